//! The built-in demo source (`VideoSource::Synthetic(seed)`): the synthetic broadcast match of
//! `sportz-synth`, rendered live on a thread and paced at its frame rate. It never ends (a live
//! demo); resuming after a pause continues at the frame it had reached.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use sportz_synth::{SynthConfig, SynthMatch};
use tokio::sync::mpsc;

use crate::source::{Probe, SourceEvent, VideoFrame};

/// The probe of a synthetic source of this size and rate.
#[must_use]
pub fn probe(size: (u32, u32), fps: f64) -> Probe {
    Probe {
        width: size.0,
        height: size.1,
        fps,
        duration: None,
    }
}

/// A running synthetic source; stops when dropped.
#[derive(Debug)]
pub struct SyntheticSource {
    stop: Arc<AtomicBool>,
}

impl SyntheticSource {
    /// Starts rendering match `seed` from `start_at` seconds.
    ///
    /// # Errors
    /// When the size or rate is not renderable.
    pub fn start(
        seed: u64,
        size: (u32, u32),
        fps: f64,
        start_at: f64,
        realtime: bool,
        tx: mpsc::Sender<SourceEvent>,
    ) -> Result<Self, String> {
        let fps_whole = fps.round().clamp(1.0, 120.0) as u32;
        let cfg = SynthConfig {
            width: size.0,
            height: size.1,
            fps: fps_whole,
            duration_secs: f64::MAX / 4.0,
            ..SynthConfig::default()
        };
        let mut m = SynthMatch::new(seed, cfg).map_err(|e| e.to_string())?;
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let fps = f64::from(fps_whole);
        let first = (start_at * fps).round().max(0.0) as u64;
        std::thread::Builder::new()
            .name("synthetic-source".into())
            .spawn(move || {
                let t0 = Instant::now();
                let mut k: u64 = 0;
                while !stopped.load(Ordering::Relaxed) {
                    let n = first + k;
                    let (img, _truth) = if k == 0 && n > 0 {
                        m.render(n)
                    } else {
                        m.render_next()
                    };
                    if realtime {
                        let due = t0 + Duration::from_secs_f64(k as f64 / fps);
                        if let Some(wait) = due.checked_duration_since(Instant::now()) {
                            std::thread::sleep(wait);
                        }
                    }
                    let frame = VideoFrame {
                        frame_number: n,
                        video_timestamp: n as f64 / fps,
                        read_at: sportz_contract::unix_now(),
                        read_instant: Instant::now(),
                        width: img.width,
                        height: img.height,
                        rgb: img.data,
                    };
                    if tx.blocking_send(SourceEvent::Frame(frame)).is_err() {
                        return;
                    }
                    k += 1;
                }
            })
            .map_err(|e| format!("cannot start the synthetic source: {e}"))?;
        Ok(Self { stop })
    }

    pub fn stop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Drop for SyntheticSource {
    fn drop(&mut self) {
        self.stop();
    }
}
