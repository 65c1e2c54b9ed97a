//! The vision stage as the worker sees it: a frame in, a contract frame (and events) out.
//! The real detector + trackers plug in through [`AnalyzerFactory`]; [`PassThrough`] publishes
//! frames with no detections (used until a model is configured, and in pipeline tests).

use sportz_contract::worker::SessionConfig;
use sportz_contract::{CoordinateMode, EventData, FrameData, MatchId};

use crate::source::VideoFrame;

/// Why the vision stage cannot start a session or analyse a frame. Its message is what the
/// session publishes in its `model_failed` error and its `failed` status.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyzerError {
    /// The model cannot be loaded (missing file, no ONNX Runtime, unsupported layout, …).
    #[error(transparent)]
    Load(sportz_inference::InferenceError),
    /// The session's calibration gives no usable homography.
    #[error("calibration rejected: {0}")]
    Calibration(#[source] sportz_vision::pitch::PitchError),
    /// The frame's buffer does not match its size.
    #[error(transparent)]
    Frame(sportz_vision::image::ImageError),
    /// The detector failed on a frame, or its outputs were not what its layout promised.
    #[error(transparent)]
    Detect(sportz_inference::InferenceError),
    /// Any other failure, in the analyser's own words (wrappers, other detectors, tests).
    #[error("{0}")]
    Other(String),
}

/// What the vision stage made of one frame.
#[derive(Debug, Clone)]
pub struct Analysis {
    /// Its `latency_ms` is left at 0: the publisher sets it when it sends the frame (it is
    /// the stage that knows both when the frame was read and when it goes out).
    pub frame: FrameData,
    pub events: Vec<EventData>,
    /// Time spent in the detector, in ms.
    pub detect_ms: f64,
    /// Why the frame has no camera (it is then in `pixel` mode); `None` with one.
    pub camera_missing: Option<String>,
}

/// Turns frames into analyses, one session at a time, on its own thread.
pub trait Analyzer: Send {
    /// # Errors
    /// What ends the session with `model_failed` (e.g. the model's output was not what its
    /// layout promised).
    fn analyze(&mut self, frame: &VideoFrame) -> Result<Analysis, AnalyzerError>;

    /// Hands out the detection stages, to run on threads of their own ahead of the rest (the
    /// worker then calls [`finish`](Self::finish), never `analyze`): inference of the next
    /// frames overlaps camera, tracking and events of this one. Several stages detect frames in
    /// turn, in parallel (offline, one single-threaded ONNX session each keeps both cores busy
    /// at less cost than one session on two threads); the worker hands their results to `finish`
    /// in frame order. Empty (the default): the analyser is one stage.
    fn detect_stages(&mut self) -> Vec<Box<dyn DetectStage>> {
        Vec::new()
    }

    /// The rest of [`analyze`](Self::analyze) after the stages [`detect_stages`](Self::detect_stages)
    /// handed out.
    ///
    /// # Errors
    /// As `analyze`; the default says the analyser has no separate detection stage.
    fn finish(
        &mut self,
        frame: &VideoFrame,
        detected: Detected,
    ) -> Result<Analysis, AnalyzerError> {
        let _ = (frame, detected);
        Err(AnalyzerError::Other(
            "this analyser has no separate detection stage".to_owned(),
        ))
    }

    /// The frames have ended: the events that were waiting for more of them (each dated to
    /// its own frame). None by default.
    fn end_of_stream(&mut self) -> Vec<EventData> {
        Vec::new()
    }
}

/// What a detection stage hands the rest of the analysis.
#[derive(Debug, Clone)]
pub struct Detected {
    pub detections: sportz_vision::detect::Detections,
    pub detect_ms: f64,
    /// The torso colour of each of `detections.people()`, in that order (empty when the
    /// session does not track players).
    pub shirts: Vec<Option<sportz_vision::teams::Colour>>,
    /// The shirt pixels of each of them, for the published kit colours (same order; empty
    /// when `shirts` is).
    pub kits: Vec<sportz_vision::teams::KitPixels>,
}

/// The detection half of a two-stage analyser ([`Analyzer::detect_stages`]).
pub trait DetectStage: Send {
    /// # Errors
    /// The frame is malformed or the detector failed.
    fn detect(&mut self, frame: &VideoFrame) -> Result<Detected, AnalyzerError>;
}

/// Makes an analyzer for each session.
pub trait AnalyzerFactory: Send + Sync + std::fmt::Debug {
    /// # Errors
    /// Why the session cannot run (model missing, unexpected outputs, bad calibration).
    fn create(
        &self,
        match_id: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, AnalyzerError>;
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
    fn analyze(&mut self, f: &VideoFrame) -> Result<Analysis, AnalyzerError> {
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
                latency_ms: 0.0, // set by the publisher
                camera: None,
                kits: None,
            },
            events: Vec::new(),
            detect_ms: 0.0,
            camera_missing: None,
        })
    }
}

/// The factory for [`PassThrough`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PassThroughFactory;

impl AnalyzerFactory for PassThroughFactory {
    fn create(
        &self,
        _: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, AnalyzerError> {
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
