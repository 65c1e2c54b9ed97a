//! `evaluate`: truth against predictions, into a [`Report`]. This file holds the options, the
//! report's types and the driver; each part is scored in a child module (`align`, `players`,
//! `ball`, `events`) and `table` prints the report.

use serde::Serialize;
use sportz_contract::{EventKind, PitchPoint};

use crate::EvalError;
use crate::input::{Predictions, Truth};
use crate::mot::{Clear, HotaAtAlpha, Identity};

mod align;
mod ball;
mod camera;
mod events;
mod kits;
mod players;
pub(crate) mod table;

use align::{align, truth_period};
use ball::ball;
use camera::camera;
use events::events;
use kits::kits;
use players::players;

/// The IoU at which IDF1 and CLEAR count a match, and at which a prediction is matched to an
/// ignored truth box (as in `TrackEval`).
pub const MATCH_IOU: f64 = 0.5;

/// How predicted frames are paired with truth frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameAlignment {
    /// By `video_timestamp`: each predicted frame goes to the truth frame nearest in time, when
    /// it is within half a truth frame period. Works when `sportz track --fps` sampled the video
    /// at another rate (its `frame_number` then counts sampled frames, not video frames).
    #[default]
    Timestamp,
    /// By `frame_number`: equal numbers pair up (both are 0-based). Only right when the
    /// prediction ran at the video's own frame rate.
    FrameNumber,
}

impl std::str::FromStr for FrameAlignment {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "timestamp" => Ok(Self::Timestamp),
            "frame_number" | "frame-number" => Ok(Self::FrameNumber),
            _ => Err(format!(
                "unknown frame alignment `{s}`, expected timestamp or frame_number"
            )),
        }
    }
}

/// What `sportz eval` can tune. [`Default`] gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalOptions {
    /// An event matches a true event of the same kind within this many seconds (default 1.0).
    pub event_tolerance_s: f64,
    /// A predicted ball is right within this many pixels of the true centre (default 5.0).
    pub ball_tolerance_px: f64,
    /// A partially visible person counts as truth only when at least this share of the figure
    /// is seen (`visible_fraction`, default 0.25); below it the person is ignored.
    pub min_visible_fraction: f64,
    /// How predicted frames pair with truth frames (default by timestamp).
    pub alignment: FrameAlignment,
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            event_tolerance_s: 1.0,
            ball_tolerance_px: 5.0,
            min_visible_fraction: 0.25,
            alignment: FrameAlignment::Timestamp,
        }
    }
}

/// Frame counts and how they were paired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameCounts {
    pub truth_frames: usize,
    pub pred_frames: usize,
    /// Truth frames with a predicted frame: the frames every metric is computed on.
    pub evaluated_frames: usize,
    /// Predicted frames that no truth frame took (out of range, or a second one for the same
    /// truth frame).
    pub pred_frames_unaligned: usize,
    pub alignment: FrameAlignment,
}

/// Player tracking metrics (HOTA family, IDF1, CLEAR) and the pitch error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerMetrics {
    /// Truth detections counted (visible people, referee excluded), over all evaluated frames.
    pub truth_objects: u64,
    /// Distinct truth ids among them.
    pub truth_ids: usize,
    /// Predicted player/goalkeeper detections scored.
    pub pred_objects: u64,
    pub pred_ids: usize,
    /// Predictions left out: classed `referee`, or matched (IoU ≥ 0.5) to an ignored truth
    /// person (the referee, an occluded or barely visible player).
    pub pred_ignored: u64,
    /// Means over α = 0.05 … 0.95.
    pub hota: f64,
    pub det_a: f64,
    pub ass_a: f64,
    pub loc_a: f64,
    pub det_re: f64,
    pub det_pr: f64,
    pub ass_re: f64,
    pub ass_pr: f64,
    pub identity: Identity,
    pub clear: Clear,
    /// Mean distance between truth and predicted foot points, metres, over the pairs matched at
    /// α = 0.5 where the prediction has a pitch position; `null` when there is none.
    pub pitch_error_m: Option<f64>,
    /// 95th percentile (nearest rank) of the same distances, metres.
    pub pitch_error_p95_m: Option<f64>,
    pub pitch_pairs: u64,
    pub per_alpha: Vec<HotaAtAlpha>,
}

/// Ball detection within a pixel radius, and the ball's pitch error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BallMetrics {
    pub tolerance_px: f64,
    /// Evaluated frames where the true ball is visible (the recall denominator).
    pub truth_visible: u64,
    /// Evaluated frames with a predicted ball (the precision denominator).
    pub pred: u64,
    /// Of those, extrapolated (`predicted: true`) balls.
    pub pred_extrapolated: u64,
    /// Visible true balls with a predicted ball within the radius.
    pub recall_hits: u64,
    /// Predicted balls within the radius of the true centre (visible or not).
    pub precision_hits: u64,
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    /// Mean distance between the true ground point and the predicted pitch position, metres,
    /// over the precision hits that have a pitch position.
    pub pitch_error_m: Option<f64>,
    pub pitch_frames: u64,
    /// [`Self::pitch_error_m`] over the frames where the true ball is in the air (its underside
    /// at least [`BALL_IN_THE_AIR_M`] up), and how many of the `pitch_frames` those are.
    pub pitch_error_air_m: Option<f64>,
    pub pitch_frames_air: u64,
}

/// A true ball this high (its underside, metres) or higher is in the air for
/// [`BallMetrics::pitch_error_air_m`].
pub const BALL_IN_THE_AIR_M: f64 = 0.5;

/// Precision, recall and F1 of one event kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventScore {
    /// The contract's name of the kind, or `all`.
    pub kind: String,
    pub truth: u64,
    pub pred: u64,
    pub matched: u64,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

/// Kinds that exist on one side only, so cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct NotComparable {
    pub truth_only: Vec<String>,
    pub pred_only: Vec<String>,
}

/// Event detection within a time tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventMetrics {
    pub tolerance_s: f64,
    /// One row per comparable kind, then `all` (micro-averaged).
    pub per_kind: Vec<EventScore>,
    pub not_comparable: NotComparable,
    /// True events outside the evaluated time span (not scored).
    pub truth_outside_span: u64,
}

/// The predicted cameras (`frame.data.camera`) against the truth cameras. A frame's error is the
/// mean distance, metres, between the pitch grid points (every `grid_step_m` over 105 × 68) the
/// true camera sees in the image and where the predicted `image_to_pitch` maps their pixels
/// (each point capped at 125 m). Shares are `null` when their denominator is 0.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CameraMetrics {
    /// Spacing of the pitch grid, metres (5).
    pub grid_step_m: f64,
    /// A calibrated frame is accurate when its error is at most this, metres (1).
    pub accurate_within_m: f64,
    /// Evaluated frames whose truth has enough pitch in view to calibrate (`pitch_visible`:
    /// main and alternate shots; every frame of truth written before shots existed).
    pub pitch_visible_frames: u64,
    /// Of those, frames with a predicted camera.
    pub calibrated_frames: u64,
    /// `calibrated_frames / pitch_visible_frames`: completeness.
    pub calibrated_share: Option<f64>,
    /// Calibrated frames with at least one grid point in view (those the errors are over).
    pub error_frames: u64,
    /// Mean over those frames of the frame's error, metres.
    pub mean_error_m: Option<f64>,
    /// 95th percentile (nearest rank) over those frames of the frame's error, metres.
    pub p95_error_m: Option<f64>,
    /// Calibrated frames whose error is within `accurate_within_m`.
    pub accurate_frames: u64,
    /// `accurate_frames / pitch_visible_frames`: completeness × accuracy (SoccerNet-style).
    pub accurate_share: Option<f64>,
    /// Evaluated frames whose truth has too little pitch in view to calibrate (close-ups).
    pub no_pitch_frames: u64,
    /// Of those, frames that were (wrongly) given a camera.
    pub no_pitch_with_camera: u64,
    pub no_pitch_with_camera_share: Option<f64>,
    /// Evaluated frames that are the first of a new shot (truth `cut`).
    pub cut_frames: u64,
    /// Of those, frames the prediction left in `pixel` coordinate mode.
    pub cut_frames_pixel_mode: u64,
    pub cut_pixel_mode_share: Option<f64>,
}

/// The published kit colours (`frame.data.kits` of the last frame that has them) against the
/// true shirts, each published colour paired with the true shirt it is nearer to (which side the
/// worker calls home is a convention). `None` when the truth has no shirts (no `meta.json`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KitMetrics {
    /// `#rrggbb` of the true home and away shirts.
    pub truth: [String; 2],
    /// The published colours in the same order; `None` when no frame has kits.
    pub published: Option<[String; 2]>,
    /// RGB distance (0..=255 per channel) of each published colour from its shirt.
    pub error: Option<[f64; 2]>,
    /// Predicted frames with kits, of all predicted frames.
    pub frames_with_kits: u64,
    pub frames: u64,
}

/// Everything `sportz eval` reports; `Serialize` for `--json`, [`Report::table`] for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub options: EvalOptions,
    pub frames: FrameCounts,
    pub players: PlayerMetrics,
    pub ball: BallMetrics,
    pub events: EventMetrics,
    pub camera: CameraMetrics,
    pub kits: Option<KitMetrics>,
}

/// The contract kind a synth (truth) event kind is compared with. The synth speaks the
/// contract's own `EventKind` (its docs list the same seven names: `ball_lost`, `possession`,
/// `possession_change`, `pass`, `shot`, `ball_out`, `goal`), so every kind but one maps to
/// itself; the match is exhaustive so a kind added on either side must be placed here.
///
/// `ball_lost` is not comparable: the synth says it when a team loses the ball (always beside a
/// `possession_change`, which is compared), the worker when its ball tracker gives up (the
/// ball left the picture or was not seen for a while), a different moment.
#[must_use]
pub const fn contract_kind_of_truth(kind: EventKind) -> Option<EventKind> {
    match kind {
        EventKind::BallLost => None,
        EventKind::Possession => Some(EventKind::Possession),
        EventKind::PossessionChange => Some(EventKind::PossessionChange),
        EventKind::Pass => Some(EventKind::Pass),
        EventKind::Shot => Some(EventKind::Shot),
        EventKind::BallOut => Some(EventKind::BallOut),
        EventKind::Goal => Some(EventKind::Goal),
    }
}

/// The truth's pitch coordinates in the contract's convention. Both are metres on a 105×68
/// pitch with the origin at a corner, x along the length, y = 0 on the far touchline (the synth
/// reuses `sportz_contract::PitchPoint` and documents the same convention), so this is the
/// identity; it is the one place to change should either side move.
#[must_use]
pub const fn truth_pitch_to_contract(p: PitchPoint) -> PitchPoint {
    p
}

fn dist(a: PitchPoint, b: PitchPoint) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Scores `pred` against `truth`.
///
/// # Errors
/// [`EvalError::Alignment`] when no predicted frame lines up with a truth frame, and
/// [`EvalError::Empty`] when the truth has no frame.
pub fn evaluate(
    truth: &Truth,
    pred: &Predictions,
    opts: &EvalOptions,
) -> Result<Report, EvalError> {
    if truth.frames.is_empty() {
        return Err(EvalError::Empty {
            source_name: "truth".to_owned(),
            reason: "no frames".to_owned(),
        });
    }
    let (pairs, unaligned) = align(&truth.frames, &pred.frames, opts.alignment)?;
    let period = truth_period(&truth.frames);
    let span = (
        truth.frames[pairs[0].0].video_timestamp,
        truth.frames[pairs[pairs.len() - 1].0].video_timestamp + period,
    );
    Ok(Report {
        options: opts.clone(),
        frames: FrameCounts {
            truth_frames: truth.frames.len(),
            pred_frames: pred.frames.len(),
            evaluated_frames: pairs.len(),
            pred_frames_unaligned: unaligned,
            alignment: opts.alignment,
        },
        players: players(&truth.frames, &pred.frames, &pairs, opts),
        ball: ball(&truth.frames, &pred.frames, &pairs, opts),
        events: events(truth, pred, span, opts),
        camera: camera(&truth.frames, &pred.frames, &pairs),
        kits: kits(truth.kits, &pred.frames),
    })
}
