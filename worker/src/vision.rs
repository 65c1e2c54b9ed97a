//! The real vision stage: the ONNX detector ([`sportz_inference`]) followed by the pure maths of
//! [`sportz_vision`] — player tracker, ball tracker, teams by shirt colour, pitch mapping and the
//! event engine — producing the contract's `frame.data` and `event.data`.
//!
//! [`VisionAnalyzerFactory`] loads the default model once (checking it, warming it up and
//! learning the execution device for heartbeats) and keeps loaded detectors in a pool: a session
//! checks one out and gives it back when it ends, so sessions that follow each other reuse the
//! warm session and sessions that overlap (a GPU worker runs several) each get their own, which
//! `session.run` needs (it takes `&mut`) and which lets them run in parallel.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use sportz_contract::worker::SessionConfig;
use sportz_contract::{EventData, MatchId};
use sportz_inference::{Detector, DetectorOptions, InferenceError};
use sportz_vision::RgbImage;
use sportz_vision::ball::{BallConfig, BallTracker};
use sportz_vision::camera::{CameraTracker, TrackerSettings};
use sportz_vision::detect::{DecodeConfig, Detection, Detections};
use sportz_vision::events::{EventConfig, EventEngine, EventFrame};
use sportz_vision::frame::{EventIds, FrameMeta, build_frame, event_data, event_inputs};
use sportz_vision::graphics::{GraphicsConfig, GraphicsMask, PictureChange};
use sportz_vision::identity::{IdentityConfig, IdentityKeeper, Observed};
use sportz_vision::image::SharedLineModel;
use sportz_vision::pitch::Calibration;
use sportz_vision::teams::{TeamAssigner, TeamConfig, shirt_sample};
use sportz_vision::track::{ByteTracker, TrackerConfig};

use crate::analyzer::{Analysis, Analyzer, AnalyzerError, AnalyzerFactory, DetectStage, Detected};
use crate::source::VideoFrame;

/// A detector as the analyser uses it: an image in, detections and the ms it took out. The real
/// one is a pooled [`Detector`]; tests may substitute their own.
pub trait Detect: Send {
    /// # Errors
    /// The model failed or gave outputs its layout did not promise.
    fn detect(
        &mut self,
        image: &RgbImage<'_>,
        decode: &DecodeConfig,
    ) -> Result<(Detections, f64), AnalyzerError>;
}

impl Detect for Detector {
    fn detect(
        &mut self,
        image: &RgbImage<'_>,
        decode: &DecodeConfig,
    ) -> Result<(Detections, f64), AnalyzerError> {
        if self.decode_config() != decode {
            self.set_decode_config(*decode);
        }
        let (dets, timing) = Self::detect(self, image).map_err(AnalyzerError::Detect)?;
        Ok((dets, timing.total_ms()))
    }
}

/// Idle detectors by model and intra-op threads.
type Pool = Arc<Mutex<HashMap<(PathBuf, usize), Vec<Detector>>>>;

/// A detector checked out of the factory's pool, returned to it on drop.
struct Pooled {
    detector: Option<Detector>,
    key: (PathBuf, usize),
    pool: Pool,
}

impl Detect for Pooled {
    fn detect(
        &mut self,
        image: &RgbImage<'_>,
        decode: &DecodeConfig,
    ) -> Result<(Detections, f64), AnalyzerError> {
        match self.detector.as_mut() {
            Some(d) => Detect::detect(d, image, decode),
            None => Err(AnalyzerError::Other(
                "the detector was already returned".to_owned(),
            )),
        }
    }
}

impl Drop for Pooled {
    fn drop(&mut self) {
        if let Some(d) = self.detector.take() {
            self.pool
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(self.key.clone())
                .or_default()
                .push(d);
        }
    }
}

/// Makes a [`VisionAnalyzer`] per session over pooled ONNX detectors.
#[derive(Debug)]
pub struct VisionAnalyzerFactory {
    default_model: PathBuf,
    /// The model of live sessions that name none ([`Self::with_live_default`]); `None`: the
    /// default model.
    live_model: Option<PathBuf>,
    options: DetectorOptions,
    device: String,
    pool: Pool,
    /// Models loaded so far, default first (file names, for heartbeats).
    loaded: Mutex<Vec<String>>,
    /// The built-in pitch-line model every session's camera search reads (`None`: the top-hat
    /// line test alone, when it cannot load or `SPORTZ_LINE_MODEL=none`).
    lines: Option<SharedLineModel>,
}

/// The machine's cores (1 when unknown).
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
}

/// Intra-op threads for the pitch-line model where it runs beside the detector (`track`, the
/// worker, the API's automatic calibration in the same process): half the cores, at least one.
/// The detector's session already uses every core; on the 2-core development machine a line
/// model on two threads made `track` of the real clip at 1280×720 8 % slower than on one, with
/// the same camera on every frame (BENCHMARKS.md, "Session 16").
#[must_use]
pub fn line_model_threads_beside_detector() -> usize {
    (cores() / 2).max(1)
}

/// Intra-op threads for the pitch-line model where nothing else runs (`sportz calibrate`).
#[must_use]
pub fn line_model_threads_alone() -> usize {
    cores()
}

/// The pitch-line model the camera search reads, on `threads` intra-op threads: the built-in
/// one, or the ONNX file named by `SPORTZ_LINE_MODEL` (`none`: the top-hat line test alone, for
/// comparisons). A model that cannot load is a warning, and the camera works without it.
#[must_use]
pub fn load_line_model(threads: usize) -> Option<SharedLineModel> {
    let chosen = std::env::var_os("SPORTZ_LINE_MODEL");
    let loaded = match chosen.as_deref().and_then(|v| v.to_str()) {
        Some("none") => {
            tracing::info!(
                "SPORTZ_LINE_MODEL=none: the camera search uses the top-hat line test alone"
            );
            return None;
        }
        Some(path) if !path.is_empty() => std::fs::read(path)
            .map_err(|e| format!("cannot read SPORTZ_LINE_MODEL={path}: {e}"))
            .and_then(|bytes| {
                sportz_inference::OnnxLineModel::from_bytes(path, &bytes, threads)
                    .map_err(|e| e.to_string())
            }),
        _ => sportz_inference::OnnxLineModel::built_in(threads).map_err(|e| e.to_string()),
    };
    match loaded {
        Ok(m) => Some(SharedLineModel(Arc::new(m))),
        Err(e) => {
            tracing::warn!(error = %e, "the pitch-line model cannot load: the camera search uses the top-hat line test alone");
            None
        }
    }
}

impl VisionAnalyzerFactory {
    /// Loads `model` (with `options`: providers, threads, thresholds, class names) and keeps it
    /// warm for the first session.
    ///
    /// # Errors
    /// The model cannot be loaded (missing file, no ONNX Runtime, unsupported layout, …).
    pub fn new(
        model: impl Into<PathBuf>,
        options: DetectorOptions,
    ) -> Result<Self, InferenceError> {
        Self::with_line_model(
            model,
            options,
            load_line_model(line_model_threads_beside_detector()),
        )
    }

    /// As [`Self::new`], with the pitch-line model already loaded (one model shared with the
    /// API's automatic calibration in the same process; `None`: the top-hat line test alone).
    ///
    /// # Errors
    /// As [`Self::new`].
    pub fn with_line_model(
        model: impl Into<PathBuf>,
        options: DetectorOptions,
        lines: Option<SharedLineModel>,
    ) -> Result<Self, InferenceError> {
        let default_model = model.into();
        let detector = Detector::load(&default_model, &options)?;
        let device = detector.device().to_owned();
        let loaded = Mutex::new(vec![detector.model_name()]);
        let pool: Pool = Arc::default();
        pool.lock().unwrap_or_else(PoisonError::into_inner).insert(
            (default_model.clone(), options.intra_threads()),
            vec![detector],
        );
        Ok(Self {
            default_model,
            live_model: None,
            options,
            device,
            pool,
            loaded,
            lines,
        })
    }

    /// Live sessions (a stream, or a file replayed in real time) that name no model run `model`
    /// instead of the default, loaded when the first one starts: a model that keeps up with
    /// the source where dropping frames would cost more than its small differences (the
    /// built-in detector's 8-bit version, half the float model's inference time).
    #[must_use]
    pub fn with_live_default(mut self, model: impl Into<PathBuf>) -> Self {
        self.live_model = Some(model.into());
        self
    }

    /// The model a session asks for: its `model` when set (a path, or the default model's file
    /// name or stem), else the default.
    fn model_for(&self, config: &SessionConfig) -> PathBuf {
        let Some(want) = config
            .model
            .as_deref()
            .map(str::trim)
            .filter(|m| !m.is_empty())
        else {
            return match &self.live_model {
                Some(m) if !config.is_offline() => m.clone(),
                _ => self.default_model.clone(),
            };
        };
        let default_names = [
            self.default_model.file_name(),
            self.default_model.file_stem(),
        ];
        if default_names
            .iter()
            .flatten()
            .any(|n| n.to_str() == Some(want))
        {
            return self.default_model.clone();
        }
        PathBuf::from(want)
    }

    /// A detector of `model` on `threads` intra-op threads: an idle one from the pool, else a
    /// new one.
    fn checkout(&self, model: &Path, threads: usize) -> Result<Pooled, AnalyzerError> {
        let key = (model.to_path_buf(), threads);
        let pooled = self
            .pool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(&key)
            .and_then(Vec::pop);
        let detector = match pooled {
            Some(d) => d,
            None => {
                // another session holds the warm one (or a new model, or another thread
                // count): load one more
                let options = DetectorOptions {
                    threads: Some(threads),
                    ..self.options.clone()
                };
                let d = Detector::load(model, &options).map_err(AnalyzerError::Load)?;
                let name = d.model_name();
                let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
                if !loaded.contains(&name) {
                    loaded.push(name);
                }
                d
            }
        };
        Ok(Pooled {
            detector: Some(detector),
            key,
            pool: self.pool.clone(),
        })
    }
}

impl AnalyzerFactory for VisionAnalyzerFactory {
    fn create(
        &self,
        match_id: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, AnalyzerError> {
        let model = self.model_for(config);
        let mut settings = VisionSettings::from_config(config)?;
        settings.decode.iou_threshold = self.options.decode.iou_threshold;
        settings.decode.max_detections = self.options.decode.max_detections;
        settings.lines.clone_from(&self.lines);
        // offline, several single-threaded detectors in turn keep the cores busier than one
        // on every core (BENCHMARKS.md, "Session 39"); live, one on every core (latency)
        let (workers, threads) = if config.is_offline() {
            self.options.offline_workers()
        } else {
            (1, self.options.intra_threads())
        };
        let mut detectors: Vec<Box<dyn Detect>> = vec![Box::new(self.checkout(&model, threads)?)];
        // the others are a speed-up: one that cannot load (memory, a device) leaves fewer
        for _ in 1..workers {
            match self.checkout(&model, threads) {
                Ok(d) => detectors.push(Box::new(d)),
                Err(e) => {
                    tracing::warn!(error = %e, detectors = detectors.len(), "cannot load another detector for this offline session: it runs on fewer");
                    break;
                }
            }
        }
        Ok(Box::new(VisionAnalyzer::with_detectors(
            detectors, match_id, settings,
        )))
    }

    fn device(&self) -> String {
        self.device.clone()
    }

    fn models(&self) -> Vec<String> {
        self.loaded
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// What a session asks of the vision stage, read from its [`SessionConfig`].
///
/// The session's `confidence_threshold` is what it takes to *be* a player or the ball: a
/// detection below it never starts a track (ByteTrack's high threshold; births need 0.1 more,
/// as in ByteTrack) and is never published on its own. As in ByteTrack, weaker detections (down
/// to 0.1 for players, 0.05 for the ball) still extend tracks that already exist, which keeps
/// ids through the frames where a small detector's confidence dips.
#[derive(Debug, Clone)]
pub struct VisionSettings {
    /// The session's threshold.
    pub confidence: f32,
    /// What the detector keeps (the lowest confidence any tracker uses).
    pub decode: DecodeConfig,
    pub tracker: TrackerConfig,
    pub ball: BallConfig,
    /// The clicked calibration, when the session has one: it seeds the per-frame camera (or, when
    /// no broadcast camera explains it, is used as clicked on every frame).
    pub calibration: Option<Calibration>,
    /// How the per-frame camera is followed and found.
    pub camera: TrackerSettings,
    /// The player tracker; without it players carry per-frame ids and teams and events are off
    /// (both need stable tracks). The ball tracker always runs.
    pub tracking: bool,
    pub teams: bool,
    pub events: bool,
    /// The learned line model the camera search reads (else the top-hat line test).
    pub lines: Option<SharedLineModel>,
}

impl VisionSettings {
    /// # Errors
    /// [`AnalyzerError::Calibration`]: four or more calibration pairs that give no usable
    /// homography.
    pub fn from_config(config: &SessionConfig) -> Result<Self, AnalyzerError> {
        // a 0..1 threshold
        let confidence = config.confidence_threshold.clamp(0.0, 1.0) as f32;
        let defaults = TrackerConfig::default();
        let tracker = TrackerConfig {
            high_threshold: confidence,
            birth_threshold: (confidence + 0.1).min(1.0),
            low_threshold: defaults.low_threshold.min(confidence),
            ..defaults
        };
        let ball_defaults = BallConfig::default();
        let ball = BallConfig {
            min_confidence: ball_defaults.min_confidence.min(confidence),
            init_confidence: confidence,
            ..ball_defaults
        };
        let decode = DecodeConfig {
            confidence_threshold: tracker.low_threshold.min(ball.min_confidence),
            ..DecodeConfig::default()
        };
        let calibration = match config.calibration.len() {
            0 => None,
            n if n < 4 => {
                tracing::warn!(
                    pairs = n,
                    "fewer than 4 calibration pairs: running uncalibrated (pitch fields null)"
                );
                None
            }
            _ => Some(
                Calibration::fit_contract(&config.calibration)
                    .map_err(AnalyzerError::Calibration)?,
            ),
        };
        Ok(Self {
            confidence,
            decode,
            tracker,
            ball,
            calibration,
            // live sources: find the camera beside the frame loop (a ~100 ms search must not
            // stall it); offline files: inline, so a `track` run is reproducible
            camera: TrackerSettings {
                deferred_init: config.realtime
                    || !matches!(config.source, sportz_contract::VideoSource::File(_)),
                ..TrackerSettings::default()
            },
            tracking: config.enable_tracking,
            teams: config.enable_tracking && config.enable_teams,
            events: config.enable_tracking && config.enable_events,
            lines: None,
        })
    }
}

/// The detection stage of a [`VisionAnalyzer`]: the model, and the shirt colours of the people
/// it found (pure per-frame work, so it runs ahead with detection rather than in the tracking
/// stage).
struct VisionDetect {
    detector: Box<dyn Detect>,
    decode: DecodeConfig,
    shirts: bool,
}

impl DetectStage for VisionDetect {
    fn detect(&mut self, f: &VideoFrame) -> Result<Detected, AnalyzerError> {
        let image = RgbImage::new(&f.rgb, f.width, f.height).map_err(AnalyzerError::Frame)?;
        let (mut detections, detect_ms) = self.detector.detect(&image, &self.decode)?;
        sportz_vision::detect::recentre_balls(&image, &mut detections.items);
        detections.keep_one_box_per_person();
        let (shirts, kits) = if self.shirts {
            detections
                .people()
                .iter()
                .map(|p| shirt_sample(&image, &p.bbox))
                .unzip()
        } else {
            (Vec::new(), Vec::new())
        };
        Ok(Detected {
            detections,
            detect_ms,
            shirts,
            kits,
        })
    }
}

/// Detector → trackers → teams → pitch → events → contract messages, for one session. The
/// detector is a stage of its own ([`Analyzer::detect_stages`]): the worker runs it ahead on
/// other threads.
pub struct VisionAnalyzer {
    /// The detectors (one, or several that detect frames in turn offline); empty once handed
    /// out as the detection stages.
    detect: Vec<VisionDetect>,
    settings: VisionSettings,
    tracker: ByteTracker,
    ball: BallTracker,
    teams: TeamAssigner,
    engine: EventEngine,
    ids: EventIds,
    identities: IdentityKeeper,
    camera: CameraTracker,
    /// A camera search running on its own thread (deferred initialisation): its frame and the
    /// channel its result comes back on.
    init_job: Option<(u64, std::sync::mpsc::Receiver<InitResult>)>,
    /// Where the broadcast's graphics are (no ball there).
    graphics: GraphicsMask,
    /// Whether the log said graphics were found.
    graphics_noted: bool,
    /// Why the last frame had no camera (logged when it changes).
    camera_missing: Option<String>,
}

impl std::fmt::Debug for VisionAnalyzer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VisionAnalyzer")
            .field("settings", &self.settings)
            .finish_non_exhaustive()
    }
}

impl VisionAnalyzer {
    /// Event ids are derived from the match id, the frame and the event's order in it, so a
    /// restarted session that sees the same frame again produces the same ids.
    #[must_use]
    pub fn new(detector: Box<dyn Detect>, match_id: &MatchId, settings: VisionSettings) -> Self {
        Self::with_detectors(vec![detector], match_id, settings)
    }

    /// As [`Self::new`], with several detectors of the same model that detect frames in turn,
    /// in parallel ([`Analyzer::detect_stages`]).
    #[must_use]
    pub fn with_detectors(
        detectors: Vec<Box<dyn Detect>>,
        match_id: &MatchId,
        settings: VisionSettings,
    ) -> Self {
        Self {
            detect: detectors
                .into_iter()
                .map(|detector| VisionDetect {
                    detector,
                    decode: settings.decode,
                    shirts: settings.tracking,
                })
                .collect(),
            tracker: ByteTracker::new(settings.tracker),
            ball: BallTracker::new(settings.ball),
            teams: TeamAssigner::new(TeamConfig::default()),
            engine: EventEngine::new(EventConfig::default()),
            ids: EventIds::new(*match_id),
            identities: IdentityKeeper::new(IdentityConfig::default()),
            camera: CameraTracker::new(settings.camera.clone(), settings.calibration.as_ref())
                .with_line_model(settings.lines.clone()),
            camera_missing: None,
            init_job: None,
            graphics: GraphicsMask::new(GraphicsConfig::default()),
            graphics_noted: false,
            settings,
        }
    }
}

type InitResult = Result<sportz_vision::camera::LineFit, sportz_vision::camera::InitFailure>;

/// The camera search's answer once it has one. A search whose thread could not start or ended
/// without answering (a dropped sender) answers [`InitFailure::NotRun`](sportz_vision::camera::InitFailure::NotRun),
/// so the camera stops waiting for it and searches again later.
fn search_answer(rx: &std::sync::mpsc::Receiver<InitResult>) -> Option<InitResult> {
    match rx.try_recv() {
        Ok(result) => Some(result),
        Err(std::sync::mpsc::TryRecvError::Empty) => None,
        Err(std::sync::mpsc::TryRecvError::Disconnected) => {
            tracing::warn!("the camera search ended without an answer: searching again later");
            Some(Err(sportz_vision::camera::InitFailure::NotRun(
                "its thread could not start or ended without an answer".to_owned(),
            )))
        }
    }
}

impl VisionAnalyzer {
    /// Runs the camera search on a copy of the frame on a thread of its own; the result comes
    /// back on the returned channel (a failed thread just drops its sender).
    fn spawn_init(
        &self,
        f: &VideoFrame,
        boxes: Vec<sportz_vision::BBox>,
    ) -> std::sync::mpsc::Receiver<InitResult> {
        let (tx, rx) = std::sync::mpsc::channel();
        let (fine, coarse, home, plan) = self.camera.init_inputs();
        let (fine, coarse) = (fine.to_vec(), coarse.to_vec());
        let (rgb, width, height) = (f.rgb.clone(), f.width, f.height);
        let lines = self.camera.line_model().cloned();
        let work_width = self.settings.camera.work_width;
        let spawned = std::thread::Builder::new()
            .name("sportz-camera-init".to_owned())
            .spawn(move || {
                if let Ok(img) = RgbImage::new(&rgb, width, height) {
                    // the tracker reads frames at its working resolution: so does its search
                    let work = sportz_vision::camera::WorkFrame::of(&img, &boxes, work_width);
                    let model = lines.as_ref().map(|m| &*m.0);
                    let _ = tx.send(sportz_vision::camera::search_with_lines(
                        model,
                        &work.image(),
                        &work.boxes,
                        &fine,
                        &coarse,
                        home,
                        &plan,
                    ));
                }
            });
        if let Err(e) = spawned {
            tracing::warn!(error = %e, "cannot start the camera search thread");
        }
        rx
    }

    /// Replaces the tracker's ids by published ones ([`IdentityKeeper`]): a new track where a
    /// vanished player could be by now takes over that player's id. Returns which tracks are
    /// held back this frame ([`sportz_vision::identity::Assigned::held`]).
    fn identify(
        &mut self,
        t_secs: f64,
        tracked: &mut [Detection],
        colours: &[Option<sportz_vision::teams::Colour>],
        calibration: Option<&Calibration>,
    ) -> Vec<bool> {
        let model = self.teams.model();
        let observed: Vec<Observed> = tracked
            .iter()
            .zip(colours)
            .filter_map(|(p, c)| {
                Some(Observed {
                    tracker_id: p.track_id?,
                    pitch: calibration.and_then(|cal| cal.foot_to_pitch(&p.bbox)),
                    class: p.class,
                    side: model.zip(c.as_ref()).map(|(m, c)| m.classify(c)),
                    side_ambiguity: model.zip(c.as_ref()).map_or(0.0, |(m, c)| m.ambiguity(c)),
                })
            })
            .collect();
        let teams = &self.teams;
        let assigned = self
            .identities
            .assign(t_secs, &observed, |id| teams.team_of(id));
        for old in &assigned.superseded {
            self.tracker.remove(*old);
        }
        for (id, away) in &assigned.recovered {
            tracing::debug!(
                id,
                away_secs = away,
                "player re-identified by pitch position"
            );
        }
        // every tracked detection has a tracker id, so the ids line up one to one
        for (p, id) in tracked.iter_mut().zip(assigned.ids) {
            p.track_id = Some(id);
        }
        assigned.held
    }

    /// Logs when the frame's camera comes or goes, with the reason.
    fn note_camera(&mut self, frame: u64, step: &sportz_vision::camera::CameraStep) {
        if frame == 0
            && let Some(check) = self.camera.manual_check()
            && check.support() < 0.5
        {
            tracing::warn!(
                on_lines = format!("{:.0} %", check.support() * 100.0),
                rms_px = check.rms_px,
                "the manual calibration contradicts the pitch lines of the first frame"
            );
        }
        let missing = step.missing.as_ref().map(ToString::to_string);
        match (&self.camera_missing, &missing, &step.estimate) {
            (Some(_), None, Some(e)) | (None, None, Some(e))
                if frame == 0 || self.camera_missing.is_some() =>
            {
                tracing::info!(frame, source = ?e.source, confidence = e.confidence, "camera found: pitch coordinates on");
            }
            (None, Some(why), _) => tracing::info!(frame, reason = %why, "no camera: pixel mode"),
            _ => {}
        }
        self.camera_missing = missing;
    }
}

impl Analyzer for VisionAnalyzer {
    fn analyze(&mut self, f: &VideoFrame) -> Result<Analysis, AnalyzerError> {
        let detected = match self.detect.first_mut() {
            Some(d) => d.detect(f)?,
            None => {
                return Err(AnalyzerError::Other(
                    "the detector runs as a stage of its own: call finish".to_owned(),
                ));
            }
        };
        self.finish(f, detected)
    }

    fn end_of_stream(&mut self) -> Vec<EventData> {
        if !self.settings.events {
            return Vec::new();
        }
        let ids = &self.ids;
        self.engine
            .finish()
            .iter()
            .map(|e| event_data(e, ids))
            .collect()
    }

    fn detect_stages(&mut self) -> Vec<Box<dyn DetectStage>> {
        self.detect
            .drain(..)
            .map(|d| Box::new(d) as Box<dyn DetectStage>)
            .collect()
    }

    fn finish(&mut self, f: &VideoFrame, detected: Detected) -> Result<Analysis, AnalyzerError> {
        let Detected {
            detections,
            detect_ms,
            shirts,
            kits,
        } = detected;
        let image = RgbImage::new(&f.rgb, f.width, f.height).map_err(AnalyzerError::Frame)?;
        let people = detections.people();
        let boxes: Vec<_> = people.iter().map(|d| d.bbox).collect();
        if let Some((frame, rx)) = &self.init_job
            && let Some(result) = search_answer(rx)
        {
            self.camera.offer_init(*frame, result);
            self.init_job = None;
        }
        let camera = self.camera.update(&image, &boxes);
        if let Some(frame) = camera.init_request {
            self.init_job = Some((frame, self.spawn_init(f, boxes.clone())));
        }
        self.note_camera(f.frame_number, &camera);
        self.graphics.observe(
            &image,
            match &camera.motion {
                _ if camera.cut => PictureChange::Cut,
                Some(h) => PictureChange::Moved(h),
                None => PictureChange::Unknown,
            },
        );
        if !self.graphics_noted && self.graphics.share() > 0.0 {
            self.graphics_noted = true;
            tracing::info!(
                frame = f.frame_number,
                share = format!("{:.1} %", self.graphics.share() * 100.0),
                "broadcast graphics found (still while the picture moves): no ball is taken on them"
            );
        }
        // the trackers work in pixels: move their state with the picture first; after a cut
        // no player box continues (identities come back through the pitch positions)
        if camera.cut {
            self.tracker.reset();
            self.identities.cut(f.video_timestamp);
        } else if let Some(h) = &camera.motion {
            self.tracker.compensate(h);
            self.ball.compensate(h);
        }
        let estimate = camera.estimate.as_ref();
        let calibration = estimate.map(|e| &e.calibration);

        let colours: Vec<_>;
        let shirt_pixels: Vec<_>;
        let mut held = Vec::new();
        let mut players: Vec<Detection> = if self.settings.tracking {
            // shirt colours (from the detection stage) weigh in the association, then vote
            // for the sides
            let (indices, mut tracked): (Vec<usize>, Vec<Detection>) = self
                .tracker
                .update_with_colours(&people, &shirts)
                .into_iter()
                .unzip();
            colours = indices.iter().map(|&i| shirts[i]).collect();
            shirt_pixels = indices.iter().map(|&i| kits[i]).collect();
            held = self.identify(f.video_timestamp, &mut tracked, &colours, calibration);
            tracked
        } else {
            colours = Vec::new();
            shirt_pixels = Vec::new();
            let min = self.settings.confidence;
            people
                .iter()
                .filter(|d| d.confidence >= min)
                .zip(1u64..)
                .map(|(d, id)| Detection {
                    track_id: Some(id),
                    ..*d
                })
                .collect()
        };
        let s = &self.settings;
        if s.teams {
            for ((p, colour), pixels) in players.iter().zip(&colours).zip(&shirt_pixels) {
                if let Some(id) = p.track_id {
                    self.teams.observe(id, p.class, *colour);
                }
                self.teams.observe_kit(p.class, *colour, pixels);
            }
        }
        // a held track (a new one waiting for the camera to say who it is) still votes for its
        // side and kit, but is not published until it has its id
        if held.contains(&true) {
            players = players
                .into_iter()
                .zip(&held)
                .filter_map(|(p, h)| (!h).then_some(p))
                .collect();
        }
        let teams = s.teams.then_some(&self.teams);
        // a "ball" on a broadcast graphic (a round glyph of a badge) is none
        let mut balls = detections.balls();
        let found = balls.len();
        balls.retain(|b| {
            let (x, y) = b.bbox.centre();
            !self
                .graphics
                .covers(sportz_vision::Point::new(f64::from(x), f64::from(y)))
        });
        if balls.len() < found {
            tracing::debug!(
                frame = f.frame_number,
                refused = found - balls.len(),
                "ball candidates on a broadcast graphic refused"
            );
        }
        let step = self.ball.update_seen_by(
            f.video_timestamp,
            &balls,
            calibration,
            estimate.and_then(|e| e.camera.as_ref()),
        );

        let mut events: Vec<EventData> = Vec::new();
        if s.events {
            let (ball_obs, player_obs) = event_inputs(
                step.ball.as_ref(),
                &players,
                teams,
                calibration,
                estimate.and_then(|e| e.camera.as_ref()),
            );
            let found = self.engine.step(&EventFrame {
                frame_number: f.frame_number,
                video_timestamp: f.video_timestamp,
                timestamp: f.read_at,
                ball: ball_obs,
                players: &player_obs,
            });
            events.extend(found.iter().map(|e| event_data(e, &self.ids)));
        }
        let meta = FrameMeta {
            frame_number: f.frame_number,
            video_timestamp: f.video_timestamp,
            timestamp: f.read_at,
            width: f.width,
            height: f.height,
            latency_ms: 0.0, // set by the publisher
        };
        let mut frame = build_frame(
            &meta,
            step.ball.as_ref(),
            self.ball.trail(),
            &players,
            teams,
            calibration,
        );
        frame.camera = estimate.map(sportz_vision::camera::FrameCameraEstimate::to_contract);
        Ok(Analysis {
            frame,
            events,
            detect_ms,
            camera_missing: self.camera_missing.clone(),
        })
    }
}

#[cfg(test)]
mod tests;
