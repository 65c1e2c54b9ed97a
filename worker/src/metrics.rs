//! The session's figures, published once per second as `metrics`.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use sportz_contract::MetricsData;

/// Counts and recent samples; `snapshot` turns them into a metrics message.
#[derive(Debug)]
pub struct SessionMetrics {
    window: Duration,
    read: VecDeque<Instant>,
    analysed: VecDeque<(Instant, f64)>,
    pub frames_processed: u64,
    pub dropped_frames: u64,
    pub events_emitted: u64,
    /// Events dropped because the bus was down longer than the outbox holds.
    pub events_dropped: u64,
    pub last_latency_ms: f64,
    /// Why the last analysed frame had no camera.
    pub camera_missing: Option<String>,
    device: String,
}

fn trim<T>(q: &mut VecDeque<T>, now: Instant, window: Duration, at: impl Fn(&T) -> Instant) {
    while q
        .front()
        .is_some_and(|x| now.duration_since(at(x)) > window)
    {
        q.pop_front();
    }
}

/// The p-th percentile (0..=1) of unsorted samples; 0 when empty.
#[must_use]
pub fn percentile(samples: &[f64], p: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let mut s = samples.to_vec();
    s.sort_by(f64::total_cmp);
    let i = ((s.len() - 1) as f64 * p).round() as usize;
    s[i]
}

impl SessionMetrics {
    #[must_use]
    pub fn new(device: String) -> Self {
        Self {
            window: Duration::from_secs(1),
            read: VecDeque::new(),
            analysed: VecDeque::new(),
            frames_processed: 0,
            dropped_frames: 0,
            events_emitted: 0,
            events_dropped: 0,
            last_latency_ms: 0.0,
            camera_missing: None,
            device,
        }
    }

    pub fn frame_read(&mut self, at: Instant) {
        self.read.push_back(at);
    }

    pub fn frame_done(&mut self, at: Instant, detect_ms: f64, latency_ms: f64) {
        self.analysed.push_back((at, detect_ms));
        self.frames_processed += 1;
        self.last_latency_ms = latency_ms;
    }

    /// Events the bus took (`events_emitted` counts these, not the ones still waiting).
    pub fn events_published(&mut self, n: usize) {
        self.events_emitted += n as u64;
    }

    /// Events dropped because the outbox was full (reported in every later metrics message).
    pub fn events_lost(&mut self, n: usize) {
        self.events_dropped += n as u64;
    }

    /// The figures over the last second.
    pub fn snapshot(&mut self, now: Instant) -> MetricsData {
        let w = self.window;
        trim(&mut self.read, now, w, |t| *t);
        trim(&mut self.analysed, now, w, |(t, _)| *t);
        let detect: Vec<f64> = self.analysed.iter().map(|(_, d)| *d).collect();
        MetricsData {
            source_fps: self.read.len() as f64 / w.as_secs_f64(),
            inference_fps: self.analysed.len() as f64 / w.as_secs_f64(),
            detect_ms: percentile(&detect, 0.5),
            detect_ms_p95: Some(percentile(&detect, 0.95)),
            latency_ms: self.last_latency_ms,
            frames_processed: self.frames_processed,
            dropped_frames: self.dropped_frames,
            events_emitted: self.events_emitted,
            device: self.device.clone(),
            gpu: None,
            camera_missing: self.camera_missing.clone(),
            events_dropped: self.events_dropped,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles() {
        assert_eq!(percentile(&[], 0.5), 0.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 0.5), 2.0);
        let s: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&s, 0.95), 95.0);
    }

    #[test]
    fn rates_cover_the_last_second() {
        let mut m = SessionMetrics::new("cpu".into());
        let t0 = Instant::now();
        for i in 0..50u32 {
            let t = t0 + Duration::from_millis(u64::from(i) * 40); // 25 fps for 2 s
            m.frame_read(t);
            if i % 2 == 0 {
                m.frame_done(t, f64::from(i), 10.0);
                m.events_published(1);
            } else {
                m.dropped_frames += 1;
            }
        }
        let s = m.snapshot(t0 + Duration::from_millis(49 * 40));
        assert_eq!(s.source_fps, 26.0); // 26 reads within the last 1000 ms inclusive
        assert_eq!(s.inference_fps, 13.0);
        assert_eq!(
            (s.frames_processed, s.dropped_frames, s.events_emitted),
            (25, 25, 25)
        );
        assert_eq!(s.device, "cpu");
    }
}
