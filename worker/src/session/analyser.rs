//! The analyser stage: a one-frame latest-wins [`Slot`] between the session loop and a
//! dedicated OS thread that runs the session's [`Analyzer`] on whatever frame is in the slot
//! and sends the results to the publisher. Inference is blocking and CPU-bound, so it never
//! runs on the async runtime.
//!
//! An analyser with separate detection stages ([`Analyzer::detect_stages`]) runs on two or
//! more threads: the detectors take frames from the slot in turn and hand each, with its
//! detections, to the analyser thread through a channel of `lead` frames, so inference of the
//! next frames overlaps the camera, tracking and events of this one; the analyser thread puts
//! them back in the order the slot gave them out, so frames still leave in order. Live, there
//! is one detector and the lead is one frame (a deeper queue would only add latency); offline
//! the lead is [`OFFLINE_LEAD`], so the detectors keep both cores busy while the analyser
//! spends a few hundred milliseconds on one frame (a camera search after a cut).

use std::collections::BTreeMap;
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
    state: Mutex<SlotState>,
    changed: Condvar,
}

#[derive(Debug, Default)]
struct SlotState {
    frame: Option<VideoFrame>,
    closed: bool,
    /// Frames taken so far: the order the detectors' results are put back in.
    taken: u64,
}

impl Slot {
    /// Puts a frame; returns true when it replaced one the analyser had not taken (a drop).
    pub(crate) fn put(&self, f: VideoFrame) -> bool {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let dropped = s.frame.replace(f).is_some();
        self.changed.notify_all();
        dropped
    }

    /// Waits until the slot is empty (offline mode: no drops).
    pub(crate) fn wait_empty(&self) {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while s.frame.is_some() && !s.closed {
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn take(&self) -> Option<VideoFrame> {
        self.take_numbered().map(|(_, f)| f)
    }

    /// The next frame and its place among the frames taken (0, 1, …); `None` once closed.
    fn take_numbered(&self) -> Option<(u64, VideoFrame)> {
        let mut s = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(f) = s.frame.take() {
                let n = s.taken;
                s.taken += 1;
                self.changed.notify_all();
                return Some((n, f));
            }
            if s.closed {
                return None;
            }
            s = self.changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }

    pub(crate) fn close(&self) {
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .closed = true;
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
    let detectors = analyzer.detect_stages();
    if !detectors.is_empty() {
        return spawn_two_stages(detectors, analyzer, slot, tx, lead);
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

/// The detector threads (slot → detections, frames in turn) and the analyser thread
/// (detections in the slot's order → analysis → publisher), joined by a channel of `lead`
/// frames. Any one stopping closes the slot.
fn spawn_two_stages(
    detectors: Vec<Box<dyn DetectStage>>,
    analyzer: Box<dyn Analyzer>,
    slot: Arc<Slot>,
    tx: mpsc::Sender<Result<Analysed, AnalyzerError>>,
    lead: usize,
) {
    let (dtx, drx) = std::sync::mpsc::sync_channel::<(u64, DetectedFrame)>(lead.max(1));
    let parallel = detectors.len() > 1;
    for (i, mut detector) in detectors.into_iter().enumerate() {
        let detector_slot = slot.clone();
        let dtx = dtx.clone();
        let name = if parallel {
            format!("detector-{}", i + 1)
        } else {
            "detector".to_owned()
        };
        let spawned = std::thread::Builder::new().name(name).spawn(move || {
            while let Some((n, frame)) = detector_slot.take_numbered() {
                let detected = detector.detect(&frame);
                let failed = detected.is_err();
                if dtx.send((n, (frame, detected))).is_err() || failed {
                    break;
                }
            }
            detector_slot.close();
        });
        if let Err(e) = spawned {
            tracing::error!("cannot start a detector thread: {e}");
            slot.close();
            return;
        }
    }
    drop(dtx);
    let mut reorder = InOrder::default();
    spawn_analyser_thread(slot, tx, analyzer, move |analyzer| {
        let (frame, detected) = reorder.next(|| drx.recv().ok())?;
        Some((
            frame.read_instant,
            detected.and_then(|d| analyzer.finish(&frame, d)),
        ))
    });
}

/// Puts items numbered 0, 1, 2, … that arrive in any order back in order.
#[derive(Debug)]
struct InOrder<T> {
    next: u64,
    early: BTreeMap<u64, T>,
}

impl<T> Default for InOrder<T> {
    fn default() -> Self {
        Self {
            next: 0,
            early: BTreeMap::new(),
        }
    }
}

impl<T> InOrder<T> {
    /// The next item in order, receiving (and keeping the early ones) until it comes; `None`
    /// when `recv` runs dry before it does.
    fn next(&mut self, mut recv: impl FnMut() -> Option<(u64, T)>) -> Option<T> {
        loop {
            if let Some(item) = self.early.remove(&self.next) {
                self.next += 1;
                return Some(item);
            }
            let (n, item) = recv()?;
            self.early.insert(n, item);
        }
    }
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
        /// Detection stages handed out.
        detectors: usize,
    }

    struct Stage1 {
        fail_at: u64,
        /// Which stage this is (1, 2, …): stage k takes k ms a frame, so with several stages
        /// frames finish out of order.
        index: u64,
    }

    impl DetectStage for Stage1 {
        fn detect(&mut self, f: &VideoFrame) -> Result<Detected, AnalyzerError> {
            std::thread::sleep(std::time::Duration::from_millis(self.index));
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
                detect_ms: match thread.strip_prefix("detector") {
                    Some("") => 1.0,
                    Some(n) => n.trim_start_matches('-').parse::<f64>().unwrap_or(0.0) + 100.0,
                    None => 0.0,
                },
                shirts: Vec::new(),
                kits: Vec::new(),
            })
        }
    }

    impl Analyzer for TwoStage {
        fn analyze(&mut self, _: &VideoFrame) -> Result<Analysis, AnalyzerError> {
            Err(AnalyzerError::Other("one-stage path taken".into()))
        }
        fn detect_stages(&mut self) -> Vec<Box<dyn DetectStage>> {
            (1..=self.detectors as u64)
                .map(|index| {
                    Box::new(Stage1 {
                        fail_at: self.fail_at,
                        index,
                    }) as Box<dyn DetectStage>
                })
                .collect()
        }
        fn finish(&mut self, f: &VideoFrame, d: Detected) -> Result<Analysis, AnalyzerError> {
            let detect_thread = match d.detect_ms {
                1.0 => "detector".to_owned(),
                n if n > 100.0 => format!("detector-{}", n - 100.0),
                _ => "?".to_owned(),
            };
            let me = std::thread::current().name().unwrap_or("?").to_owned();
            self.finished
                .lock()
                .unwrap()
                .push((f.frame_number, detect_thread, me));
            crate::analyzer::PassThrough::default().analyze(f)
        }
    }

    /// Frame, the thread its detection ran on, the thread its finish ran on.
    type Finished = Vec<(u64, String, String)>;

    fn run_two_stages(
        fail_at: u64,
        lead: usize,
        detectors: usize,
    ) -> (Vec<Result<u64, String>>, Finished) {
        let finished = Arc::new(Mutex::new(Vec::new()));
        let analyser = TwoStage {
            finished: finished.clone(),
            fail_at,
            detectors,
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
            let (out, finished) = run_two_stages(u64::MAX, lead, 1);
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
    fn parallel_detectors_share_the_frames_and_keep_their_order() {
        for lead in [1, OFFLINE_LEAD] {
            let (out, finished) = run_two_stages(u64::MAX, lead, 3);
            assert_eq!(out, (1..=20).map(Ok).collect::<Vec<_>>(), "lead {lead}");
            let order: Vec<u64> = finished.iter().map(|f| f.0).collect();
            assert_eq!(order, (1..=20).collect::<Vec<_>>(), "lead {lead}");
            assert!(finished.iter().all(|(_, _, a)| a == "analyser"));
            // the fastest detector takes most frames, but the slowest one still takes some
            for d in ["detector-1", "detector-3"] {
                assert!(
                    finished.iter().any(|(_, t, _)| t == d),
                    "lead {lead}: {d} detected no frame: {finished:?}"
                );
            }
        }
    }

    #[test]
    fn a_detection_failure_ends_the_stages_with_its_error() {
        for (lead, detectors) in [(1, 1), (OFFLINE_LEAD, 1), (1, 3), (OFFLINE_LEAD, 3)] {
            let (out, _) = run_two_stages(5, lead, detectors);
            assert_eq!(out.len(), 5, "lead {lead}, {detectors} detectors: {out:?}");
            assert_eq!(out[..4], [Ok(1), Ok(2), Ok(3), Ok(4)]);
            assert_eq!(out[4], Err("frame 5 failed".to_owned()));
        }
    }

    #[test]
    fn in_order_puts_what_arrives_early_back_in_place() {
        // (arrival order, items released in order before the input runs dry)
        let cases: [(&[u64], &[u64]); 5] = [
            (&[0, 1, 2], &[0, 1, 2]),
            (&[2, 1, 0], &[0, 1, 2]),
            (&[1, 0, 3, 2, 4], &[0, 1, 2, 3, 4]),
            // 1 never comes: 2 and 3 wait behind it
            (&[0, 2, 3], &[0]),
            (&[], &[]),
        ];
        for (arrivals, expected) in cases {
            let mut input = arrivals.iter().map(|&n| (n, n));
            let mut order = InOrder::default();
            let mut out = Vec::new();
            while let Some(n) = order.next(|| input.next()) {
                out.push(n);
            }
            assert_eq!(out, expected, "arrivals {arrivals:?}");
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
