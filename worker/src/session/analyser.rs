//! The analyser stage: a one-frame latest-wins [`Slot`] between the session loop and a
//! dedicated OS thread that runs the session's [`Analyzer`] on whatever frame is in the slot
//! and sends the results to the publisher. Inference is blocking and CPU-bound, so it never
//! runs on the async runtime.
//!
//! An analyser with a separate detection stage ([`Analyzer::detect_stage`]) runs on two
//! threads: the detector takes frames from the slot and hands each, with its detections, to the
//! analyser thread through a channel of `lead` frames, so inference of the next frames overlaps
//! the camera, tracking and events of this one; frames still leave in order. Live, the lead is
//! one frame (a deeper queue would only add latency); offline it is [`OFFLINE_LEAD`], so the
//! detector keeps both cores busy while the analyser spends a few hundred milliseconds on one
//! frame (a camera search after a cut).

use std::sync::Arc;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::mpsc;

use sportz_contract::EventData;

use crate::analyzer::{Analysis, Analyzer, AnalyzerError, DetectStage, Detected};
use crate::source::VideoFrame;

/// A single-frame slot between the session loop and the analyser thread.
#[derive(Debug, Default)]
pub(crate) struct Slot {
    state: Mutex<(Option<VideoFrame>, bool)>,
    changed: Condvar,
}

impl Slot {
    /// Puts a frame; returns true when it replaced one the analyser had not taken (a drop).
    pub(crate) fn put(&self, f: VideoFrame) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let dropped = s.0.replace(f).is_some();
        self.changed.notify_all();
        dropped
    }

    /// Waits until the slot is empty (offline mode: no drops).
    pub(crate) fn wait_empty(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while s.0.is_some() && !s.1 {
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn take(&self) -> Option<VideoFrame> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(f) = s.0.take() {
                self.changed.notify_all();
                return Some(f);
            }
            if s.1 {
                return None;
            }
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    pub(crate) fn close(&self) {
        self.state.lock().unwrap_or_else(PoisonError::into_inner).1 = true;
        self.changed.notify_all();
    }
}

/// What the analyser thread sends the publisher.
#[derive(Debug)]
pub(crate) enum Analysed {
    /// A frame the analyser is done with.
    Frame {
        analysis: Box<Analysis>,
        /// When the frame was read from the source (the publisher measures `latency_ms` from
        /// it).
        read_instant: Instant,
    },
    /// The frames have ended: the events the analyser held back for more of them
    /// ([`Analyzer::end_of_stream`]).
    End(Vec<EventData>),
}

/// Frames the detector may run ahead of the analyser offline (each holds one RGB frame:
/// 2.8 MB at 720p).
pub(crate) const OFFLINE_LEAD: usize = 12;

pub(crate) fn spawn_analyser(
    mut analyzer: Box<dyn Analyzer>,
    slot: Arc<Slot>,
    tx: mpsc::Sender<Result<Analysed, AnalyzerError>>,
    lead: usize,
) {
    if let Some(detector) = analyzer.detect_stage() {
        return spawn_two_stages(detector, analyzer, slot, tx, lead);
    }
    let frames = slot.clone();
    spawn_analyser_thread(slot, tx, analyzer, move |analyzer| {
        frames
            .take()
            .map(|f| (f.read_instant, analyzer.analyze(&f)))
    });
}

/// The analyser thread: sends what `next` analyses to the publisher until the frames end (then
/// what the analyser held back for more of them), the publisher is gone or a frame fails, then
/// closes the slot.
fn spawn_analyser_thread(
    slot: Arc<Slot>,
    tx: mpsc::Sender<Result<Analysed, AnalyzerError>>,
    mut analyzer: Box<dyn Analyzer>,
    mut next: impl FnMut(&mut dyn Analyzer) -> Option<(Instant, Result<Analysis, AnalyzerError>)>
    + Send
    + 'static,
) {
    let spawned = std::thread::Builder::new()
        .name("analyser".into())
        .spawn(move || {
            let ended = loop {
                let Some((read_instant, out)) = next(analyzer.as_mut()) else {
                    break true;
                };
                let out = out.map(|analysis| Analysed::Frame {
                    analysis: Box::new(analysis),
                    read_instant,
                });
                let failed = out.is_err();
                if tx.blocking_send(out).is_err() || failed {
                    break false;
                }
            };
            if ended {
                let held = analyzer.end_of_stream();
                if !held.is_empty() {
                    // (the publisher may be gone already: nothing else to do)
                    let _ = tx.blocking_send(Ok(Analysed::End(held)));
                }
            }
            slot.close();
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the analyser thread: {e}");
    }
}

type DetectedFrame = (VideoFrame, Result<Detected, AnalyzerError>);

/// The detector thread (slot → detections) and the analyser thread (detections → analysis →
/// publisher), joined by a channel of `lead` frames. Either one stopping closes the slot.
fn spawn_two_stages(
    mut detector: Box<dyn DetectStage>,
    analyzer: Box<dyn Analyzer>,
    slot: Arc<Slot>,
    tx: mpsc::Sender<Result<Analysed, AnalyzerError>>,
    lead: usize,
) {
    let (dtx, drx) = std::sync::mpsc::sync_channel::<DetectedFrame>(lead.max(1));
    let detector_slot = slot.clone();
    let spawned = std::thread::Builder::new()
        .name("detector".into())
        .spawn(move || {
            while let Some(frame) = detector_slot.take() {
                let detected = detector.detect(&frame);
                let failed = detected.is_err();
                if dtx.send((frame, detected)).is_err() || failed {
                    break;
                }
            }
            detector_slot.close();
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the detector thread: {e}");
        slot.close();
        return;
    }
    spawn_analyser_thread(slot, tx, analyzer, move |analyzer| {
        let (frame, detected) = drx.recv().ok()?;
        Some((
            frame.read_instant,
            detected.and_then(|d| analyzer.finish(&frame, d)),
        ))
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(n: u64) -> VideoFrame {
        VideoFrame {
            frame_number: n,
            video_timestamp: 0.0,
            read_at: 0.0,
            read_instant: Instant::now(),
            width: 1,
            height: 1,
            rgb: vec![0; 3],
        }
    }

    /// Detects on the detector thread, fails at frame `fail_at`; `finish` records the order and
    /// the thread each half ran on.
    struct TwoStage {
        finished: Arc<Mutex<Finished>>,
        fail_at: u64,
    }

    struct Stage1 {
        fail_at: u64,
    }

    impl DetectStage for Stage1 {
        fn detect(&mut self, f: &VideoFrame) -> Result<Detected, AnalyzerError> {
            if f.frame_number == self.fail_at {
                return Err(AnalyzerError::Other(format!(
                    "frame {} failed",
                    f.frame_number
                )));
            }
            let thread = std::thread::current().name().unwrap_or("?").to_owned();
            // the thread's name travels in detect_ms's place: only the test reads it
            Ok(Detected {
                detections: sportz_vision::detect::Detections::default(),
                detect_ms: if thread == "detector" { 1.0 } else { 0.0 },
                shirts: Vec::new(),
                kits: Vec::new(),
            })
        }
    }

    impl Analyzer for TwoStage {
        fn analyze(&mut self, _: &VideoFrame) -> Result<Analysis, AnalyzerError> {
            Err(AnalyzerError::Other("one-stage path taken".into()))
        }
        fn detect_stage(&mut self) -> Option<Box<dyn DetectStage>> {
            Some(Box::new(Stage1 {
                fail_at: self.fail_at,
            }))
        }
        fn finish(&mut self, f: &VideoFrame, d: Detected) -> Result<Analysis, AnalyzerError> {
            let detect_thread = if d.detect_ms == 1.0 { "detector" } else { "?" };
            let me = std::thread::current().name().unwrap_or("?").to_owned();
            self.finished
                .lock()
                .unwrap()
                .push((f.frame_number, detect_thread.to_owned(), me));
            crate::analyzer::PassThrough::default().analyze(f)
        }
    }

    /// Frame, the thread its detection ran on, the thread its finish ran on.
    type Finished = Vec<(u64, String, String)>;

    fn run_two_stages(fail_at: u64, lead: usize) -> (Vec<Result<u64, String>>, Finished) {
        let finished = Arc::new(Mutex::new(Vec::new()));
        let analyser = TwoStage {
            finished: finished.clone(),
            fail_at,
        };
        let slot = Arc::new(Slot::default());
        let (tx, mut rx) = mpsc::channel(64);
        spawn_analyser(Box::new(analyser), slot.clone(), tx, lead);
        for n in 1..=20 {
            slot.wait_empty(); // offline: every frame is analysed
            slot.put(frame(n));
        }
        slot.wait_empty();
        let mut out = Vec::new();
        while let Some(r) = rx.blocking_recv() {
            let r = match r {
                Ok(Analysed::End(_)) => continue,
                Ok(Analysed::Frame { analysis, .. }) => Ok(analysis.frame.frame_number),
                Err(e) => Err(e.to_string()),
            };
            out.push(r);
            if out.len() == 20 || out.last().is_some_and(Result::is_err) {
                break;
            }
        }
        slot.close();
        let f = finished.lock().unwrap().clone();
        (out, f)
    }

    #[test]
    fn two_stages_keep_the_order_and_run_on_their_own_threads() {
        for lead in [1, OFFLINE_LEAD] {
            let (out, finished) = run_two_stages(u64::MAX, lead);
            assert_eq!(out, (1..=20).map(Ok).collect::<Vec<_>>(), "lead {lead}");
            assert!(
                finished
                    .iter()
                    .all(|(_, d, a)| d == "detector" && a == "analyser"),
                "lead {lead}: {finished:?}"
            );
        }
    }

    #[test]
    fn a_detection_failure_ends_the_stages_with_its_error() {
        for lead in [1, OFFLINE_LEAD] {
            let (out, _) = run_two_stages(5, lead);
            assert_eq!(out.len(), 5, "lead {lead}: {out:?}");
            assert_eq!(out[..4], [Ok(1), Ok(2), Ok(3), Ok(4)]);
            assert_eq!(out[4], Err("frame 5 failed".to_owned()));
        }
    }

    /// One stage; holds back one event (dated to its last frame) for the end of the stream.
    struct HoldsBack {
        last: u64,
    }

    impl Analyzer for HoldsBack {
        fn analyze(&mut self, f: &VideoFrame) -> Result<Analysis, AnalyzerError> {
            self.last = f.frame_number;
            crate::analyzer::PassThrough::default().analyze(f)
        }
        fn end_of_stream(&mut self) -> Vec<EventData> {
            vec![EventData {
                event_id: sportz_contract::EventId::generate(),
                kind: sportz_contract::EventKind::Pass,
                video_timestamp: 0.0,
                timestamp: 0.0,
                frame_number: self.last,
                pitch: None,
                team: None,
                player_track_id: None,
                confidence: 0.5,
                details: serde_json::Map::new(),
            }]
        }
    }

    #[test]
    fn what_the_analyser_held_back_follows_the_last_frame() {
        let slot = Arc::new(Slot::default());
        let (tx, mut rx) = mpsc::channel(64);
        spawn_analyser(Box::new(HoldsBack { last: 0 }), slot.clone(), tx, 1);
        for n in 1..=3 {
            slot.wait_empty();
            slot.put(frame(n));
        }
        slot.wait_empty();
        slot.close();
        let mut got = Vec::new();
        while let Some(r) = rx.blocking_recv() {
            got.push(match r.unwrap() {
                Analysed::Frame { analysis, .. } => {
                    format!("frame {}", analysis.frame.frame_number)
                }
                Analysed::End(events) => format!(
                    "end {:?}",
                    events.iter().map(|e| e.frame_number).collect::<Vec<_>>()
                ),
            });
        }
        assert_eq!(got, ["frame 1", "frame 2", "frame 3", "end [3]"]);
    }

    #[test]
    fn the_slot_keeps_the_latest_frame_and_counts_drops() {
        let slot = Slot::default();
        assert!(!slot.put(frame(1)));
        assert!(slot.put(frame(2)), "frame 1 was never taken: dropped");
        assert_eq!(slot.take().unwrap().frame_number, 2);
        slot.close();
        assert!(slot.take().is_none());
    }
}
