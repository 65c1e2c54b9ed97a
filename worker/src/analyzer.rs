//! The vision stage as the worker sees it: a frame in, a contract frame (and events) out.
//! The real detector + trackers plug in through [`AnalyzerFactory`]; [`PassThrough`] publishes
//! frames with no detections (used until a model is configured, and in pipeline tests).

use sportz_contract::worker::SessionConfig;
use sportz_contract::{CoordinateMode, EventData, FrameData, MatchId};

use crate::source::VideoFrame;

/// What the vision stage made of one frame.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// `latency_ms` is filled in by the publisher.
    pub frame: FrameData,
    pub events: Vec<EventData>,
    /// Time spent in the detector, in ms.
    pub detect_ms: f64,
}

/// Turns frames into analyses, one session at a time, on its own thread.
pub trait Analyzer: Send {
    /// # Errors
    /// A message for the session's `error`/`failed` status (e.g. the model's output was not
    /// what its layout promised).
    fn analyze(&mut self, frame: &VideoFrame) -> Result<Analysis, String>;
}

/// Makes an analyzer for each session.
pub trait AnalyzerFactory: Send + Sync + std::fmt::Debug {
    /// # Errors
    /// Why the session cannot run (model missing, unexpected outputs, bad calibration).
    fn create(
        &self,
        match_id: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, String>;
    /// The execution device, e.g. `cpu` or `cuda:0`.
    fn device(&self) -> String;
    /// Models loaded or available.
    fn models(&self) -> Vec<String>;
}

/// Publishes every frame with no detections (in `pitch` mode when the session is calibrated).
#[derive(Debug, Clone, Copy, Default)]
pub struct PassThrough {
    pub calibrated: bool,
}

impl Analyzer for PassThrough {
    fn analyze(&mut self, f: &VideoFrame) -> Result<Analysis, String> {
        Ok(Analysis {
            frame: FrameData {
                frame_number: f.frame_number,
                video_timestamp: f.video_timestamp,
                timestamp: f.read_at,
                width: f.width,
                height: f.height,
                coordinate_mode: if self.calibrated {
                    CoordinateMode::Pitch
                } else {
                    CoordinateMode::Pixel
                },
                ball: None,
                trail: Vec::new(),
                players: Vec::new(),
                latency_ms: 0.0,
            },
            events: Vec::new(),
            detect_ms: 0.0,
        })
    }
}

/// The factory for [`PassThrough`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PassThroughFactory;

impl AnalyzerFactory for PassThroughFactory {
    fn create(&self, _: &MatchId, config: &SessionConfig) -> Result<Box<dyn Analyzer>, String> {
        Ok(Box::new(PassThrough {
            calibrated: config.calibration.len() >= 4,
        }))
    }
    fn device(&self) -> String {
        "cpu".to_owned()
    }
    fn models(&self) -> Vec<String> {
        Vec::new()
    }
}
