//! The analyser stage: a one-frame latest-wins [`Slot`] between the session loop and a
//! dedicated OS thread that runs the session's [`Analyzer`] on whatever frame is in the slot
//! and sends the results to the publisher. Inference is blocking and CPU-bound, so it never
//! runs on the async runtime.

use std::sync::Arc;
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::Instant;

use tokio::sync::mpsc;

use crate::analyzer::{Analysis, Analyzer, AnalyzerError};
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

/// A frame the analyser is done with, on its way to the publisher.
#[derive(Debug)]
pub(crate) struct Analysed {
    pub analysis: Analysis,
    /// When the frame was read from the source (the publisher measures `latency_ms` from it).
    pub read_instant: Instant,
}

pub(crate) fn spawn_analyser(
    mut analyzer: Box<dyn Analyzer>,
    slot: Arc<Slot>,
    tx: mpsc::Sender<Result<Analysed, AnalyzerError>>,
) {
    let spawned = std::thread::Builder::new()
        .name("analyser".into())
        .spawn(move || {
            while let Some(frame) = slot.take() {
                let out = analyzer.analyze(&frame).map(|analysis| Analysed {
                    analysis,
                    read_instant: frame.read_instant,
                });
                let failed = out.is_err();
                if tx.blocking_send(out).is_err() || failed {
                    break;
                }
            }
            slot.close();
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the analyser thread: {e}");
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
