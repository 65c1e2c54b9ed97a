//! [`CameraTracker`]: the per-frame camera of a video. Each frame: look for a shot cut; follow the
//! camera from the previous frame (frame-to-frame motion chained onto its homography, turned back
//! into a physical camera); correct it against the frame's white lines; refuse it when the lines
//! stop agreeing for too long. Without a camera (first frames, after a cut, close-ups, crowd
//! shots) it re-initialises from the lines alone every few frames and says why it has none.

use sportz_contract::CameraSource;

use super::broadcast::BroadcastCamera;
use super::cut::CutDetector;
use super::init::{InitConfig, InitFailure, SearchStep, search, search_with_lines};
use super::model::{LineSample, samples};
use super::motion::{MotionConfig, MotionTracker};
use super::refine::{LineFit, RefineConfig, fit_to_lines, fit_to_points};
use super::work::{Shrinker, WorkScale, work_size};
use crate::image::SharedLineModel;
use crate::pitch::{Calibration, Homography, mul3};
use crate::{BBox, Point, RgbImage};

/// How the tracker decides.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackerSettings {
    pub motion: MotionConfig,
    pub refine: RefineConfig,
    pub init: InitConfig,
    /// A line fit is used when at least this share of visible samples sit on lines…
    pub min_support: f64,
    /// …on at least this many markings.
    pub min_markings: usize,
    /// Frames followed on motion alone (lines not agreeing) before the camera is dropped.
    pub max_unconfirmed: u32,
    /// While lost, initialisation is tried every this many frames…
    pub retry_every: u64,
    /// …and while the searches of one shot keep finding no camera on a frame with pitch and
    /// lines (a close-up of players on grass, a replay, an angle no plan covers), the gap
    /// between them doubles up to this many frames; the next cut or a camera found resets it.
    /// A search that stops early (too little grass, no lines) does not count: it costs little.
    /// (Each failed search costs ~100 ms on the frame thread: on the shared real clip they were
    /// most of the camera's cost.)
    pub retry_backoff_max: u64,
    /// While lost, a break in the picture's motion restarts the searches' back-off (a cut the
    /// colours do not show) only after at least this many frames of reliable motion in a row.
    /// A close-up's motion is unreliable with a reliable frame now and then (the shared real
    /// clip, frames 481–586: runs of one), and each such blink restarted the line-map searches
    /// at ~0.5 s each — a shot change ends a steady shot, not a flicker.
    pub steady_before_break: u64,
    /// Initialisation is left to the caller ([`CameraStep::init_request`], then
    /// [`CameraTracker::offer_init`]), who runs it beside the frame loop; the tracker follows the
    /// picture's motion meanwhile and brings the found camera forward to the frame it arrives on.
    /// Off (the default), it runs inline: deterministic, for offline analysis.
    pub deferred_init: bool,
    /// Every this many frames a confirmed camera's position is refitted too (0: never).
    pub reposition_every: u64,
    /// Once a camera has been followed this many frames in a row, its position is the video's
    /// main camera ("home"): later searches look from there only (pan, tilt, zoom free, the
    /// position within a few metres), so another shot (a behind-goal or 18-yard camera) gets no
    /// camera rather than a main-camera alias that fits its lines (0: never).
    pub home_after_frames: u32,
    /// Lost for this many frames with a home, a search over every main-camera stand runs again
    /// (the home position may be off: an initialisation on a narrow view trades position for
    /// focal length); what it finds is kept only within [`HOME_RADIUS_M`] of home.
    pub home_fallback_frames: u64,
    /// With a line model ([`CameraTracker::with_line_model`]), a followed camera whose top-hat
    /// fit puts fewer than this share of samples on lines (faint real-broadcast lines)…
    pub map_below_support: f64,
    /// …is fitted to the model's line map instead, at most every this many frames (0: never;
    /// the model costs tens of milliseconds, the top-hat a few).
    pub map_every: u64,
    /// While lost, a search the top-hat fails is run again on the line map at most every this
    /// many frames (0: never): a search costs ~100 ms, and on shots no main camera explains
    /// (alternate angles) every one fails.
    pub map_search_every: u64,
    /// For this many frames after the main camera was last followed, a search that finds no
    /// main camera also tries the other broadcast angles on the play (the 18-yard camera, a
    /// high camera behind the goal: [`alternate_stands`]), keeping only a camera that looks
    /// within [`ALTERNATE_RADIUS_M`] of where the main camera looked (0: never).
    pub alternate_window: u64,
    /// A followed camera whose line support falls by more than this from one frame to the next
    /// while the picture's motion is unreliable has met a cut the colours did not show: its
    /// lines were refitted onto another camera's picture (seed 8107: an 18-yard camera, support
    /// 1.0, "followed" onto the main camera's picture at 0.57 and then 0.37 for 160 frames,
    /// 8–15 m off). Both supports are the top-hat's: a line-map fit's is not comparable (seed
    /// 52711: the map held the old camera at 0.60 on the new picture, the top-hat at 0.26).
    pub cut_support_drop: f64,
    /// A followed camera whose line support falls by more than this from one frame to the next
    /// (less than a cut's drop, or with the picture's motion reliable) and stays down is
    /// searched for again soon and for a while, whatever the recheck back-off
    /// ([`recheck_after_fall`]): a cut between two cameras looking at the same part
    /// of the pitch (seed 28547 frame 511, the 18-yard camera back to the main one: support
    /// 1.0 → 0.72 with the motion steady) kept the old camera, 12 m off, for 50 frames until the
    /// backed-off recheck came — and every returning player a new id.
    pub recheck_support_drop: f64,
    /// A followed camera with fewer than this share of its samples on lines…
    pub recheck_below: f64,
    /// …is searched for again this many frames after it was found (0: never; inline offline,
    /// beside the frame loop with [`Self::deferred_init`], the camera followed meanwhile; the
    /// gap doubles, up to 16×, while the searches find nothing better, and quadruples when they
    /// find no camera at all), and replaced by the camera found (brought forward by the
    /// picture's motion) when that puts at least
    /// `recheck_gain` more of its samples on lines (an alias found after a cut, a camera
    /// refitted onto another shot: seeds 6262 and 8104 followed such cameras at 0.5–0.8 for
    /// hundreds of frames, 12–19 m off, where the right one has 0.95).
    pub recheck_every: u64,
    pub recheck_gain: f64,
    /// A followed camera with fewer than this share of its samples on lines is rechecked
    /// every `recheck_every` frames without backing off, searching every main-camera stand
    /// within [`HOME_RADIUS_M`] of home rather than from home first: on the shared real clip
    /// the 8-bit detector's run followed a wrong camera at 0.34–0.45 support for 200 frames
    /// (3–7 m off), which searches from home never replaced and a search over the nearby
    /// stands did (0.60) once the rechecks stopped backing off.
    pub recheck_faint_below: f64,
    /// The line fit's search reach per round (pixels) when the picture's motion is reliable:
    /// the chained camera is then within a pixel or two of the lines, and the wide first round
    /// of [`RefineConfig::reach_px`] (for a camera brought forward without motion) is half the
    /// frame-to-frame cost.
    pub follow_reach_px: [f64; 3],
    /// Frames wider than this are shrunk to this width (area average) before the camera reads
    /// them, and its cameras scaled back to the frame's pixels ([`super::work`]; 0: read every
    /// frame as it is). The line tests and the search were tuned on 640-wide frames; wider
    /// ones have wider lines and cost more per pixel.
    pub work_width: u32,
}

impl Default for TrackerSettings {
    fn default() -> Self {
        Self {
            motion: MotionConfig::default(),
            refine: RefineConfig::default(),
            init: InitConfig::default(),
            min_support: 0.35,
            min_markings: 2,
            max_unconfirmed: 25,
            retry_every: 5,
            retry_backoff_max: 40,
            steady_before_break: 5,
            deferred_init: false,
            reposition_every: 25,
            home_after_frames: 125,
            home_fallback_frames: 125,
            map_below_support: 0.6,
            map_every: 10,
            map_search_every: 25,
            alternate_window: 200,
            cut_support_drop: 0.3,
            recheck_support_drop: 0.2,
            recheck_below: 0.85,
            recheck_every: 25,
            recheck_gain: 0.1,
            recheck_faint_below: 0.45,
            follow_reach_px: [10.0, 5.0, 5.0],
            work_width: super::work::DEFAULT_WORK_WIDTH,
        }
    }
}

/// The camera of one frame, as the rest of the pipeline uses it.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameCameraEstimate {
    /// The physical camera (for a manual calibration that is no broadcast camera, the nearest).
    pub camera: Option<BroadcastCamera>,
    /// Pixels ↔ pitch.
    pub calibration: Calibration,
    pub source: CameraSource,
    /// 0..1: the share of visible model-line samples on white lines (1 for a static manual
    /// calibration).
    pub confidence: f64,
}

impl FrameCameraEstimate {
    /// The contract's `frame.data.camera`.
    #[must_use]
    pub fn to_contract(&self) -> sportz_contract::FrameCamera {
        let m = self.calibration.pitch_from_image.matrix();
        sportz_contract::FrameCamera {
            image_to_pitch: [
                m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1], m[2][2],
            ],
            source: self.source,
            confidence: self.confidence,
        }
    }
}

/// Why a frame has no camera.
#[derive(Debug, Clone, PartialEq)]
pub enum NoCamera {
    /// A new shot started this frame.
    Cut,
    /// Initialisation ran and found nothing.
    Init(InitFailure),
    /// The lines stopped agreeing with the followed camera.
    LostLines { frames: u32 },
    /// Waiting for the next initialisation attempt (the last one's reason).
    Waiting(String),
}

impl std::fmt::Display for NoCamera {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Cut => f.write_str("shot cut: camera dropped, re-acquiring"),
            Self::Init(e) => write!(f, "{e}"),
            Self::LostLines { frames } => write!(
                f,
                "the pitch lines disagreed with the followed camera for {frames} frames: camera dropped"
            ),
            Self::Waiting(why) => write!(f, "no camera yet: {why}"),
        }
    }
}

/// One frame's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraStep {
    pub estimate: Option<FrameCameraEstimate>,
    /// Why `estimate` is `None`.
    pub missing: Option<NoCamera>,
    /// Whether a cut was detected on this frame.
    pub cut: bool,
    /// With [`TrackerSettings::deferred_init`]: run [`search`] on this frame (its number) and
    /// hand the result to [`CameraTracker::offer_init`] when it is done.
    pub init_request: Option<u64>,
    /// The picture's motion from the previous frame to this one (previous pixels → these
    /// pixels), when it was measured on enough of the pitch, else the ground's motion between
    /// the cameras followed on both frames; `None` on the first frame, after a cut, or when the
    /// corners disagreed and no camera was followed on both frames. The player and ball trackers
    /// move their state with it.
    pub motion: Option<Homography>,
}

/// An initialisation running elsewhere: the frame it runs on, and the picture's motion since
/// (that frame's pixels → the latest frame's), `None` once the motion was lost.
#[derive(Debug, Clone)]
struct Pending {
    frame: u64,
    motion: Option<[[f64; 3]; 3]>,
    /// Set when the search is a recheck of a followed camera (beside the frame loop).
    recheck: Option<PendingRecheck>,
}

/// A recheck asked for while following a camera: the support the followed camera had on the
/// searched frame (a camera found must beat it by `recheck_gain`), and the searches to run.
#[derive(Debug, Clone)]
struct PendingRecheck {
    support: f64,
    faint: bool,
    plan: Vec<SearchStep>,
}

const IDENTITY: [[f64; 3]; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

#[derive(Debug, Clone)]
enum State {
    Lost {
        last_try: Option<u64>,
        why: String,
    },
    Tracking {
        camera: BroadcastCamera,
        unconfirmed: u32,
        manual: bool,
    },
    /// A manual calibration that no broadcast camera explains: used as clicked on every frame.
    Static(Calibration),
}

/// Follows the camera of one video, frame by frame.
#[derive(Debug, Clone)]
pub struct CameraTracker {
    settings: TrackerSettings,
    samples: Vec<LineSample>,
    coarse: Vec<LineSample>,
    motion: MotionTracker,
    cuts: CutDetector,
    state: State,
    frame: u64,
    /// How the manual calibration (if any) agreed with the first frame's lines.
    manual_check: Option<LineFit>,
    pending: Option<Pending>,
    offered: Option<(u64, Result<LineFit, InitFailure>)>,
    /// Frames the current camera has been followed in a row.
    run: u32,
    /// The position of the longest-followed camera so far and that run's length.
    home: Option<([f64; 3], u32)>,
    /// The frame the current stretch without a camera began.
    lost_since: Option<u64>,
    /// The learned line model initialisation reads, if any (else the top-hat line test).
    lines: Option<SharedLineModel>,
    /// The first frame a followed camera may be fitted to the line map again.
    next_map: u64,
    /// The first frame a failed search may be run on the line map again, and the current gap
    /// between such searches (doubling while they fail, reset by a cut or a camera found).
    next_map_search: u64,
    map_search_gap: u64,
    /// Where the main camera last looked (the pitch point at the image centre) and the frame.
    last_view: Option<(Point, u64)>,
    /// The top-hat line support of the last frame's followed camera, when it had one (before
    /// any line-map fit: the cut test compares like with like).
    top_hat: Option<f64>,
    /// The support before the followed camera's last fall of more than
    /// [`TrackerSettings::recheck_support_drop`], and the frame of the fall.
    support_fell: Option<(f64, u64)>,
    /// The first frame a poorly supported followed camera may be searched for again, and the
    /// gap between such searches (doubling while they find nothing better).
    next_recheck: u64,
    /// The frame of the last recheck (faint cameras are rechecked every `recheck_every`).
    last_recheck: u64,
    recheck_gap: u64,
    /// Searches run to the end without a camera since the last cut or camera found
    /// ([`TrackerSettings::retry_backoff_max`]).
    failed_searches: u32,
    /// Frames in a row whose picture moved reliably from the one before, up to this one
    /// ([`Self::restart_searches`] when a steady run breaks).
    steady_frames: u64,
    /// The last frame's followed camera (working resolution), for [`ground_motion`] when the
    /// picture's own motion is unreliable.
    followed: Option<Calibration>,
    /// Shrinks frames to [`TrackerSettings::work_width`], into `work_rgb`.
    shrinker: Shrinker,
    work_rgb: Vec<u8>,
}

/// [`CameraTracker::init_inputs`]: fine and coarse model samples, home, the searches to run.
pub type SearchInputs<'a> = (
    &'a [LineSample],
    &'a [LineSample],
    Option<[f64; 3]>,
    Vec<SearchStep>,
);

/// Where a followed camera's fit on a frame started: the last frame's camera, the motion's
/// prediction from it, and the reach the fit had (the follow's narrow one where the motion
/// was reliable).
#[derive(Debug, Clone, Copy)]
pub struct Starts<'a> {
    pub last: &'a BroadcastCamera,
    pub predicted: &'a BroadcastCamera,
    pub reach_px: [f64; 3],
}

/// The lines lost from the motion's prediction (`fit`, from `starts`): the motion may have
/// misled it (seed 88093 frames 462 and 465: the prediction off the lines, support 0.95 →
/// 0.02 and then 0.00; the camera carried 4 m off, then re-found 30 m off). Fitted again at
/// `full` reach from the prediction (when the first fit reached less) and from the last
/// frame's camera (when the prediction moved it); the best-supported fit is kept.
#[must_use]
pub fn refit_lost(
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    starts: &Starts<'_>,
    full: &RefineConfig,
    fit: LineFit,
) -> LineFit {
    let again = [
        (starts.reach_px != full.reach_px).then_some(starts.predicted),
        (starts.predicted != starts.last).then_some(starts.last),
    ];
    again
        .into_iter()
        .flatten()
        .map(|c| fit_to_lines(img, c, samples, boxes, full))
        .fold(fit, |best, f| {
            if f.support() > best.support() {
                f
            } else {
                best
            }
        })
}

/// How far a search from "home" may move the camera (x, y, z metres).
const HOME_SLACK: [f64; 3] = [3.0, 3.0, 2.0];
/// A camera found by the fallback search farther than this from home is another shot's alias.
pub const HOME_RADIUS_M: f64 = 15.0;
/// Before the fallback, a camera the search over every stand finds is kept only this close to
/// home (an initialisation's position is a few metres off; aliases stood 10 m and more away).
pub const NEAR_HOME_M: f64 = 5.0;
/// Another angle on the play looks within this distance of where the main camera last looked
/// (play moves on during the cut; the mirrored box at the other end is 70 m away).
pub const ALTERNATE_RADIUS_M: f64 = 25.0;
/// How fast (metres a frame) the point the main camera looks at may move while it is not seen:
/// 10 m/s at 25 fps, faster than play moves the view.
pub const VIEW_DRIFT_M_PER_FRAME: f64 = 0.4;

/// Support at or above which a frame's lines count as clearly seen. Only then may a followed
/// camera's position be refitted over 3 markings, or kept for sitting closer to the lines at
/// the same support: on faint real lines (the shared 360p clip's median support is 0.55, 10 %
/// of its frames reach 0.8) a 3-marking refit is under-constrained and the RMS of the few hits
/// is noise — with the relaxed rule on every frame that clip lost 18 camera frames and gained 7
/// ids (e424222). Seed 50021's segment that needs it sits at 0.82–0.85.
pub const CLEAR_LINES_SUPPORT: f64 = 0.8;

/// Markings in view for a followed camera's position to be refitted when its lines are clearly
/// seen (a centre view's halfway line, circle and far touchline pin it: seed 50021 frames
/// 523–598 were 1–1.5 m off on the grid with 4 required); 4 otherwise.
pub const REPOSITION_MIN_MARKINGS: usize = 3;

/// Whether the position of a camera that fits `held` may be refitted now (markings in view).
#[must_use]
pub fn may_reposition(held: &LineFit) -> bool {
    held.markings >= 4
        || (held.markings >= REPOSITION_MIN_MARKINGS && held.support() >= CLEAR_LINES_SUPPORT)
}

/// Whether `free` (the fit with the position freed) replaces `held` (pan, tilt, roll and zoom
/// only): more of its samples on lines, or — where the lines are clearly seen — as many and
/// sitting closer to them (RMS below 0.8×: a camera on most of its samples may gain no support,
/// and its position bias then lasted the shot), never over fewer markings.
#[must_use]
pub fn repositioned_is_better(held: &LineFit, free: &LineFit) -> bool {
    let (a, b) = (held.support(), free.support());
    let closer = a >= CLEAR_LINES_SUPPORT && b >= a && free.rms_px < 0.8 * held.rms_px;
    free.markings >= held.markings && (b >= a + 0.01 || closer)
}

/// What a recheck's search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recheck {
    /// A camera clearly better than the one followed, which replaced it.
    Switched,
    /// A camera, but not clearly better.
    NoBetter,
    /// No camera at all: none reached the acceptance bar, so no clearly better one is on this
    /// view (the faint lines of the shared real clip, where every recheck found nothing, at
    /// 0.1–0.5 s each).
    NothingFound,
}

/// Frames until the next recheck after one that ended in `outcome`, `gap` frames after the
/// one before (`every`: [`TrackerSettings::recheck_every`]). A camera no search improves on is
/// most likely right: the gap doubles, and quadruples when the search found nothing at all, up
/// to 16 × `every`; a switch starts again at `every`.
#[must_use]
pub fn next_recheck_gap(gap: u64, every: u64, outcome: Recheck) -> u64 {
    let factor = match outcome {
        Recheck::Switched => return every,
        Recheck::NoBetter => 2,
        Recheck::NothingFound => 4,
    };
    (gap.max(every) * factor).min(16 * every)
}

/// Whether a poorly supported followed camera is searched for again at `frame`: when the
/// backed-off gap is over (`next_recheck`), or — for a camera on faint support
/// ([`TrackerSettings::recheck_faint_below`]) — `every` frames after the last search whatever
/// the back-off.
#[must_use]
pub const fn recheck_due(
    frame: u64,
    next_recheck: u64,
    last_recheck: u64,
    every: u64,
    faint: bool,
) -> bool {
    frame >= next_recheck || (faint && frame >= last_recheck.saturating_add(every))
}

/// A fall in support ([`TrackerSettings::recheck_support_drop`]) that lasts this many frames
/// is another picture, not a passing dip (on seed 35813 the support swings 0.99 ↔ 0.76 from
/// one frame to the next as players cross the lines, and searching on every such swing
/// switched to cameras a little worse 30 times)…
const FELL_CONFIRM_FRAMES: u64 = 3;
/// …and the followed camera is then searched for again every this many frames…
const FELL_RECHECK_EVERY: u64 = 5;
/// …for this many frames while its support stays low.
const FELL_RECHECK_FRAMES: u64 = 50;

/// Whether the followed camera is searched for again at `frame` because its support fell:
/// `fell` is the support before the last fall of more than `drop` and the frame of that fall,
/// kept while the support stays down (the caller forgets it when the support is back up).
/// Once it has stayed down [`FELL_CONFIRM_FRAMES`] frames, then every [`FELL_RECHECK_EVERY`]
/// frames after the last search, up to [`FELL_RECHECK_FRAMES`] after the fall.
#[must_use]
pub fn recheck_after_fall(
    frame: u64,
    fell: Option<(f64, u64)>,
    support: f64,
    drop: f64,
    last_recheck: u64,
) -> bool {
    fell.is_some_and(|(was, at)| {
        support + drop < was
            && frame >= at + FELL_CONFIRM_FRAMES
            && frame - at <= FELL_RECHECK_FRAMES
            && frame >= last_recheck + FELL_RECHECK_EVERY
    })
}

/// How far from where the main camera last looked, `frames` ago, a camera found now may look.
#[must_use]
pub fn view_radius_m(frames: u64) -> f64 {
    ALTERNATE_RADIUS_M + VIEW_DRIFT_M_PER_FRAME * frames as f64
}

/// How far (x, y, z metres) an alternate-angle search may move a stand of [`alternate_stands`].
const ALTERNATE_SLACK: [f64; 3] = [4.0, 8.0, 4.0];

/// The other broadcast angles on play around pitch `x`: the 18-yard cameras on the main stand at
/// either penalty-box line (a director may take either; 18–30 m back, 20–30 m up), and a high
/// camera behind the nearer goal (18–30 m back, 10–18 m up) — each as four positions across
/// that range: from one position, the coarse search found a camera standing 4–6 m away on few
/// of these shots (seed 5151: 5 of 30 probed frames; `examples/camera_probe.rs`).
#[must_use]
pub fn alternate_stands(x: f64) -> Vec<[f64; 3]> {
    let back = if x < 52.5 { -1.0 } else { 1.0 };
    let goal_x = if x < 52.5 { 0.0 } else { 105.0 };
    let mut stands = Vec::new();
    for box_x in [16.5, 88.5] {
        for (y, z) in [(88.0, 22.0), (88.0, 28.0), (96.0, 22.0), (96.0, 28.0)] {
            stands.push([box_x, y, z]);
        }
    }
    for (d, z) in [(20.0, 12.0), (20.0, 16.0), (28.0, 12.0), (28.0, 16.0)] {
        stands.push([goal_x + back * d, 34.0, z]);
    }
    stands
}

/// The search for another angle on play around `view` (where the main camera last looked):
/// [`alternate_stands`] with a finer coarse grid, narrowed to the views within
/// [`ALTERNATE_RADIUS_M`] of `view`, accepted only at ≥ 90 % support (on seed 5151's probed
/// alternate frames the wrong cameras had 0.76–0.89, the right ones 0.93–1.00).
#[must_use]
pub fn alternate_config(view: Point, base: &InitConfig) -> InitConfig {
    InitConfig {
        positions: alternate_stands(view.x),
        position_slack: ALTERNATE_SLACK,
        looking_at: Some((view, ALTERNATE_RADIUS_M)),
        aim_near_view: true,
        grid_steps: 10.0,
        min_support: base.min_support.max(ALTERNATE_MIN_SUPPORT),
        min_support_learned: base.min_support_learned.max(ALTERNATE_MIN_SUPPORT),
        ..base.clone()
    }
}

/// The least share of observable samples on lines for a camera on another angle.
pub const ALTERNATE_MIN_SUPPORT: f64 = 0.9;

fn calibration_of(camera: &BroadcastCamera) -> Option<Calibration> {
    Calibration::from_image_from_pitch(camera.image_from_pitch().ok()?).ok()
}

impl CameraTracker {
    /// A tracker seeded by a manual calibration when given (else it initialises automatically).
    #[must_use]
    pub fn new(settings: TrackerSettings, manual: Option<&Calibration>) -> Self {
        let state = match manual {
            None => State::Lost {
                last_try: None,
                why: "not initialised yet".to_owned(),
            },
            Some(cal) => State::Static(cal.clone()),
        };
        Self {
            motion: MotionTracker::new(settings.motion),
            samples: samples(1.0),
            coarse: samples(2.0),
            settings,
            cuts: CutDetector::default(),
            state,
            frame: 0,
            manual_check: None,
            pending: None,
            offered: None,
            run: 0,
            home: None,
            lost_since: None,
            lines: None,
            next_map: 0,
            next_map_search: 0,
            map_search_gap: 0,
            last_view: None,
            top_hat: None,
            support_fell: None,
            next_recheck: 0,
            last_recheck: 0,
            recheck_gap: 0,
            failed_searches: 0,
            steady_frames: 0,
            followed: None,
            shrinker: Shrinker::default(),
            work_rgb: Vec::new(),
        }
    }

    /// The same tracker, looking for the camera with `model`'s line maps of the frames it
    /// initialises from (following a found camera keeps the per-frame top-hat: the model costs
    /// tens of milliseconds a frame).
    #[must_use]
    pub fn with_line_model(mut self, model: Option<SharedLineModel>) -> Self {
        self.lines = model;
        self
    }

    /// The line model initialisation reads, for searches run beside the frame loop.
    #[must_use]
    pub fn line_model(&self) -> Option<&SharedLineModel> {
        self.lines.as_ref()
    }

    /// The video's main camera position once [`TrackerSettings::home_after_frames`] frames of
    /// one camera were followed; `None` before.
    #[must_use]
    pub fn home(&self) -> Option<[f64; 3]> {
        self.home
            .filter(|&(_, run)| {
                self.settings.home_after_frames > 0 && run >= self.settings.home_after_frames
            })
            .map(|(p, _)| p)
    }

    /// Remembers where `cam` looks, when it is the main camera (no home yet, or near home).
    fn note_view(&mut self, cam: &BroadcastCamera) {
        let main = self
            .home()
            .is_none_or(|h| super::init::stand_distance(cam.position, h) <= HOME_RADIUS_M);
        if let Some(p) = super::init::looks_at(cam).filter(|p| crate::pitch::is_inside(*p, 10.0))
            && main
        {
            self.last_view = Some((p, self.frame));
        }
    }

    /// Where the main camera last looked and how many frames ago, while that is at most
    /// [`TrackerSettings::alternate_window`] frames back.
    fn recent_view(&self) -> Option<(Point, u64)> {
        let window = self.settings.alternate_window;
        let (view, at) = self.last_view?;
        let ago = self.frame.saturating_sub(at);
        (window > 0 && ago <= window).then_some((view, ago))
    }

    /// The searches to run ([`Self::stands_plan`]); shortly after the main camera was lost, every
    /// one keeps only a camera that looks within [`view_radius_m`] of where it last looked: a
    /// camera that fits the lines but looks at the other end of the pitch a second after a cut
    /// is an alias (seed 24680: a main-stand camera on a behind-goal shot, 55–59 m off).
    fn init_plan(&self) -> Vec<SearchStep> {
        let mut plan = self.stands_plan();
        if let Some((view, ago)) = self.recent_view() {
            for step in &mut plan {
                step.config
                    .looking_at
                    .get_or_insert((view, view_radius_m(ago)));
            }
        }
        plan
    }

    /// Every main-camera stand while there is no home; with one, first from home only, then
    /// every stand keeping only a camera within [`NEAR_HOME_M`] of home, then the other angles
    /// on where the main camera last looked; after `home_fallback_frames` without a camera,
    /// every stand within [`HOME_RADIUS_M`].
    fn stands_plan(&self) -> Vec<SearchStep> {
        let free = || self.settings.init.clone();
        let Some(home) = self.home() else {
            return vec![SearchStep {
                config: free(),
                max_from_home_m: None,
            }];
        };
        let fallback = self
            .lost_since
            .is_some_and(|s| self.frame.saturating_sub(s) > self.settings.home_fallback_frames);
        if fallback {
            return vec![SearchStep {
                config: free(),
                max_from_home_m: Some(HOME_RADIUS_M),
            }];
        }
        let mut plan = vec![
            SearchStep {
                config: InitConfig {
                    positions: vec![home],
                    position_slack: HOME_SLACK,
                    ..free()
                },
                max_from_home_m: None,
            },
            SearchStep {
                config: free(),
                max_from_home_m: Some(NEAR_HOME_M),
            },
        ];
        if let Some((view, _)) = self.recent_view() {
            plan.push(SearchStep {
                config: alternate_config(view, &self.settings.init),
                max_from_home_m: None,
            });
        }
        plan
    }

    /// What [`search`] needs besides the frame (with [`TrackerSettings::deferred_init`]): the
    /// model samples (fine, coarse), home and the plan.
    #[must_use]
    pub fn init_inputs(&self) -> SearchInputs<'_> {
        let plan = match self.pending.as_ref().and_then(|p| p.recheck.as_ref()) {
            Some(r) => r.plan.clone(),
            None => self.init_plan(),
        };
        (&self.samples, &self.coarse, self.home(), plan)
    }

    /// The result of the initialisation [`CameraStep::init_request`] asked for on `frame`; it is
    /// used on the next [`CameraTracker::update`] (dropped if a cut came in between).
    pub fn offer_init(&mut self, frame: u64, result: Result<LineFit, InitFailure>) {
        self.offered = Some((frame, result));
    }

    /// How the manual calibration sat on the first frame's lines (its support and RMS distance,
    /// in pixels of the working resolution), once a frame has been seen; `None` without one.
    #[must_use]
    pub fn manual_check(&self) -> Option<&LineFit> {
        self.manual_check.as_ref()
    }

    /// The camera for `img` (`boxes`: players, whose pixels hide lines and move on their own),
    /// in `img`'s pixels. A frame wider than [`TrackerSettings::work_width`] is read shrunk
    /// ([`super::work`]); a deferred search ([`CameraStep::init_request`]) must then run on
    /// the same frame at that resolution, [`super::WorkFrame::of`]`(img, boxes, work_width)`.
    pub fn update(&mut self, img: &RgbImage<'_>, boxes: &[BBox]) -> CameraStep {
        let frame = (img.width(), img.height());
        let Some(size) = work_size(frame.0, frame.1, self.settings.work_width) else {
            return self.update_work(img, boxes);
        };
        let scale = WorkScale::new(frame, size);
        if self.frame == 0
            && let State::Static(cal) = &self.state
            && let Ok(work) = scale.calibration_to_work(cal)
        {
            self.state = State::Static(work);
        }
        let mut rgb = std::mem::take(&mut self.work_rgb);
        self.shrinker.shrink(img, size, &mut rgb);
        let boxes: Vec<BBox> = boxes.iter().map(|b| scale.box_to_work(b)).collect();
        let step = match RgbImage::new(&rgb, size.0, size.1) {
            Ok(small) => self.update_work(&small, &boxes),
            Err(e) => unreachable!("the shrinker sizes its output: {e}"),
        };
        self.work_rgb = rgb;
        scale_step(step, &scale, frame)
    }

    /// [`Self::update`] on a frame at the working resolution.
    fn update_work(&mut self, img: &RgbImage<'_>, boxes: &[BBox]) -> CameraStep {
        let (cut, _) = self.cuts.update(img);
        let motion = self.motion.update(img, boxes);
        let mut step = self.step(img, boxes, motion.as_ref(), cut);
        match (&self.state, &step.estimate) {
            (State::Tracking { camera, .. }, Some(estimate)) => {
                // a camera just found starts a run of its own, even with no frame lost before
                // it (a cut the colours did not show, straight to another angle)
                self.run = if estimate.source == CameraSource::Auto {
                    1
                } else {
                    self.run + 1
                };
                if estimate.source == CameraSource::Auto {
                    // a camera just found is not searched for again at once
                    self.recheck_gap = self.settings.recheck_every;
                    self.next_recheck = self.frame + self.recheck_gap;
                }
                self.lost_since = None;
                if self.home.is_none_or(|(_, longest)| self.run >= longest) {
                    self.home = Some((camera.position, self.run));
                }
            }
            _ => {
                self.top_hat = None;
                self.run = 0;
                self.lost_since = self.lost_since.or(Some(self.frame - 1));
            }
        }
        let followed = match (&self.state, &step.estimate) {
            (State::Tracking { .. }, Some(e)) if !cut => Some(e.calibration.clone()),
            _ => None,
        };
        step.motion = motion
            .filter(|m| !cut && reliable(m))
            .and_then(|m| Homography::from_matrix(m.h).ok())
            .or_else(|| ground_motion(self.followed.as_ref()?, followed.as_ref()?));
        self.followed = followed;
        step
    }

    fn step(
        &mut self,
        img: &RgbImage<'_>,
        boxes: &[BBox],
        motion: Option<&super::motion::Motion>,
        cut: bool,
    ) -> CameraStep {
        let n = self.frame;
        self.frame += 1;
        let (w, h) = (img.width(), img.height());
        // a manual calibration seeds the tracker on the first frame when it is a broadcast camera
        if let State::Static(cal) = &self.state
            && n == 0
        {
            let seed = BroadcastCamera::from_homography(&cal.image_from_pitch.matrix(), w, h)
                .ok()
                .filter(|c| c.check().is_ok());
            if let Some(c) = seed {
                let check = fit_to_lines(
                    img,
                    &c,
                    &self.samples,
                    boxes,
                    &RefineConfig {
                        reach_px: [3.0, 3.0, 3.0],
                        iterations: 0,
                        ..self.settings.refine
                    },
                );
                self.manual_check = Some(check);
                self.state = State::Tracking {
                    camera: c,
                    unconfirmed: 0,
                    manual: true,
                };
            }
        }
        if let State::Static(cal) = &self.state {
            return CameraStep {
                estimate: Some(FrameCameraEstimate {
                    camera: None,
                    calibration: cal.clone(),
                    source: CameraSource::Manual,
                    confidence: 1.0,
                }),
                missing: None,
                cut,
                init_request: None,
                motion: None,
            };
        }
        if cut {
            self.state = State::Lost {
                last_try: None,
                why: NoCamera::Cut.to_string(),
            };
            self.pending = None;
        }
        if let Some(p) = self.pending.as_mut() {
            p.motion = match (p.motion, motion) {
                (Some(acc), Some(m)) if m.inliers >= 12 => Some(mul3(&m.h, &acc)),
                _ => None,
            };
        }
        if let Some(step) = self.take_offered(img, boxes, cut) {
            return step;
        }
        // A shot change the colours do not show still breaks the picture's motion. While lost
        // (searches backing off on a shot no camera explains), the searches then start again at
        // their first pace: seed 64029 cut from an 18-yard shot back to the main camera unseen
        // by the colours, and its camera came 25 frames late, at the backed-off search.
        let motion_ok = motion.is_some_and(reliable);
        let broke = self.steady_frames >= self.settings.steady_before_break && !motion_ok;
        self.steady_frames = if motion_ok { self.steady_frames + 1 } else { 0 };
        match self.state.clone() {
            State::Tracking {
                camera,
                unconfirmed,
                manual,
            } => self.follow(img, boxes, camera, unconfirmed, manual, motion, cut),
            State::Lost { last_try, why } => {
                if broke && !cut {
                    self.restart_searches();
                }
                self.acquire(img, boxes, n, last_try, &why, cut)
            }
            State::Static(_) => unreachable!("handled above"),
        }
    }

    #[allow(clippy::too_many_arguments, reason = "one frame's state, passed flat")]
    fn follow(
        &mut self,
        img: &RgbImage<'_>,
        boxes: &[BBox],
        camera: BroadcastCamera,
        unconfirmed: u32,
        manual: bool,
        motion: Option<&super::motion::Motion>,
        cut: bool,
    ) -> CameraStep {
        let predicted = match motion {
            Some(m) if m.inliers >= 12 => chain(&camera, &m.h).unwrap_or(camera),
            _ => camera,
        };
        let refine = if motion.is_some_and(reliable) {
            RefineConfig {
                reach_px: self.settings.follow_reach_px,
                ..self.settings.refine
            }
        } else {
            self.settings.refine
        };
        let mut fit = fit_to_lines(img, &predicted, &self.samples, boxes, &refine);
        if fit.support() < self.settings.min_support {
            let starts = Starts {
                last: &camera,
                predicted: &predicted,
                reach_px: refine.reach_px,
            };
            fit = refit_lost(
                img,
                boxes,
                &self.samples,
                &starts,
                &self.settings.refine,
                fit,
            );
        }
        let top_hat = fit.support();
        // faint lines: now and then, the line model's map of this frame instead of the top-hat
        let map = match &self.lines {
            Some(model)
                if self.settings.map_every > 0
                    && fit.support() < self.settings.map_below_support
                    && self.frame >= self.next_map =>
            {
                self.next_map = self.frame + self.settings.map_every;
                model.0.line_map(img).ok()
            }
            _ => None,
        };
        let mapped = map.as_ref().map(|m| img.with_lines(m));
        if let Some(on_map) = &mapped {
            let f = fit_to_lines(on_map, &predicted, &self.samples, boxes, &refine);
            if f.support() > fit.support() && f.camera.check().is_ok() {
                fit = f;
            }
        }
        let img = mapped.as_ref().unwrap_or(img);
        let s = &self.settings;
        let confirmed = fit.support() >= s.min_support
            && fit.markings >= s.min_markings
            && fit.camera.check().is_ok();
        let motion_ok = motion.is_some_and(reliable);
        // (the top-hat supports: a line-map fit's support is not comparable with them)
        let dropped = self
            .top_hat
            .is_some_and(|was| top_hat + s.cut_support_drop < was);
        if let Some(was) = self
            .top_hat
            .filter(|was| top_hat + s.recheck_support_drop < *was)
        {
            // the lines fit worse than a frame ago: look again now (a recheck only switches
            // to a clearly better camera)
            self.support_fell = Some((was, self.frame));
        } else if self
            .support_fell
            .is_some_and(|(was, _)| top_hat + s.recheck_support_drop >= was)
        {
            // back up: a passing dip (players over the lines), not another picture
            self.support_fell = None;
        }
        self.top_hat = Some(top_hat);
        if (!confirmed || dropped) && !motion_ok {
            // neither the picture's motion nor its lines continue the shot (the lines fit far
            // worse than a frame ago, or not at all): a cut the colours did not show (another
            // camera on the same pitch)
            return self.acquire(
                img,
                boxes,
                self.frame - 1,
                None,
                &NoCamera::Cut.to_string(),
                true,
            );
        }
        let (mut cam, unconfirmed, mut confidence) = if confirmed {
            (fit.camera, 0, fit.support())
        } else {
            (predicted, unconfirmed + 1, fit.support())
        };
        // Now and then, with many markings in view, let the position move too: the position an
        // initialisation found on a narrow view trades off against the focal length, and held
        // for a whole shot that bias stays.
        // (only on the main stands: the refit's box is theirs, and would drag another angle's
        // camera into it)
        let (lo, hi) = super::refine::MAIN_CAMERA_BOX;
        let on_main_stand = (0..3).all(|k| (lo[k]..=hi[k]).contains(&cam.position[k]));
        if confirmed
            && on_main_stand
            && s.reposition_every > 0
            && self.frame.is_multiple_of(s.reposition_every)
            && may_reposition(&fit)
        {
            let p = cam.position;
            let slack = [8.0, 12.0, 5.0];
            let bounds = (
                std::array::from_fn(|k| (p[k] - slack[k]).max(lo[k])),
                std::array::from_fn(|k| (p[k] + slack[k]).min(hi[k])),
            );
            let free = fit_to_lines(
                img,
                &cam,
                &self.samples,
                boxes,
                &RefineConfig {
                    free_position: true,
                    position_box: bounds,
                    ..s.refine
                },
            );
            if free.camera.check().is_ok() && repositioned_is_better(&fit, &free) {
                cam = free.camera;
                confidence = free.support();
            }
        }
        // a camera followed with few of its lines on the picture may be an alias that a
        // search would now replace: now and then, look again and keep a clearly better fit
        let (gain, every) = (s.recheck_gain, s.recheck_every);
        // on faint support the followed camera may have drifted onto a wrong view: look from
        // every main stand near home, and keep looking (every `every` frames, whatever the
        // back-off)
        let faint = confidence < s.recheck_faint_below;
        // after a fall in support, while it lasts: look again every few frames for a while,
        // whatever the back-off (the first frames of a new shot may not show the lines a search
        // needs: seed 28547's first recheck, on the cut's frame, found nothing better)
        let fell = recheck_after_fall(
            self.frame,
            self.support_fell,
            confidence,
            s.recheck_support_drop,
            self.last_recheck,
        );
        let due = fell
            || recheck_due(
                self.frame,
                self.next_recheck,
                self.last_recheck,
                every,
                faint,
            );
        let recheck = confirmed
            && s.recheck_every > 0
            && confidence < s.recheck_below
            && due
            && self.pending.is_none();
        let mut switched = false;
        let mut init_request = None;
        if recheck {
            let plan = self.recheck_plan(faint);
            if s.deferred_init {
                // live: the search runs beside the frame loop ([`Self::take_offered`] decides)
                self.pending = Some(Pending {
                    frame: self.frame,
                    motion: Some(IDENTITY),
                    recheck: Some(PendingRecheck {
                        support: confidence,
                        faint,
                        plan,
                    }),
                });
                init_request = Some(self.frame);
            } else {
                let found = search(img, boxes, &self.samples, &self.coarse, self.home(), &plan);
                let outcome = match clearly_better(&found, confidence, gain) {
                    Ok(better) => {
                        cam = better.camera;
                        confidence = better.support();
                        switched = true;
                        Recheck::Switched
                    }
                    Err(outcome) => outcome,
                };
                self.schedule_recheck(self.frame, faint, outcome);
            }
        }
        let s = &self.settings;
        if unconfirmed > s.max_unconfirmed || cam.check().is_err() {
            let why = NoCamera::LostLines {
                frames: unconfirmed,
            };
            self.state = State::Lost {
                last_try: None,
                why: why.to_string(),
            };
            return CameraStep {
                estimate: None,
                missing: Some(why),
                cut,
                init_request: None,
                motion: None,
            };
        }
        // a manual seed stays "manual" until the camera has moved
        let still_manual = manual && motion.is_none_or(|m| moved_px(&m.h, img) < 0.5);
        self.state = State::Tracking {
            camera: cam,
            unconfirmed,
            manual: still_manual,
        };
        let Some(calibration) = calibration_of(&cam) else {
            return CameraStep {
                estimate: None,
                missing: Some(NoCamera::LostLines { frames: 0 }),
                cut,
                init_request: None,
                motion: None,
            };
        };
        self.note_view(&cam);
        CameraStep {
            estimate: Some(FrameCameraEstimate {
                camera: Some(cam),
                calibration,
                source: if switched {
                    CameraSource::Auto
                } else if still_manual {
                    CameraSource::Manual
                } else {
                    CameraSource::Tracked
                },
                confidence,
            }),
            missing: None,
            cut,
            init_request,
            motion: None,
        }
    }

    /// The searches of a recheck: on faint support every main-camera stand within
    /// [`HOME_RADIUS_M`] of home, else the usual [`Self::init_plan`].
    fn recheck_plan(&self, faint: bool) -> Vec<SearchStep> {
        if faint {
            vec![SearchStep {
                config: self.settings.init.clone(),
                max_from_home_m: Some(HOME_RADIUS_M),
            }]
        } else {
            self.init_plan()
        }
    }

    /// The next recheck after one run on `frame`: every `recheck_every` frames on faint
    /// support, else backing off by its outcome ([`next_recheck_gap`]).
    fn schedule_recheck(&mut self, frame: u64, faint: bool, outcome: Recheck) {
        let every = self.settings.recheck_every;
        self.recheck_gap = if faint {
            every
        } else {
            next_recheck_gap(self.recheck_gap, every, outcome)
        };
        self.next_recheck = frame + self.recheck_gap;
        self.last_recheck = frame;
    }

    /// After a failed search: searches that ran to the end (a pitch with lines, no camera on
    /// them) come less and less often ([`TrackerSettings::retry_backoff_max`]).
    fn back_off(&mut self, e: &InitFailure) {
        if matches!(e, InitFailure::NoFit { .. } | InitFailure::NotMain(_)) {
            self.failed_searches = self.failed_searches.saturating_add(1);
        }
    }

    /// A new shot may have begun (a cut, or the picture's motion broke): the searches' back-off
    /// and the line-map searches' gap start again.
    fn restart_searches(&mut self) {
        self.failed_searches = 0;
        self.map_search_gap = self.settings.map_search_every;
        self.next_map_search = self.frame;
    }

    /// Frames from one search to the next while lost: `retry_every`, doubling from the second
    /// failed search on, up to `retry_backoff_max`.
    fn search_gap(&self) -> u64 {
        let s = &self.settings;
        let doublings = self.failed_searches.saturating_sub(1).min(16);
        (s.retry_every << doublings).clamp(s.retry_every, s.retry_backoff_max.max(s.retry_every))
    }

    /// Applies an offered initialisation result: the camera found on its frame, brought forward
    /// by the motion since and confirmed on this frame's lines.
    fn take_offered(
        &mut self,
        img: &RgbImage<'_>,
        boxes: &[BBox],
        cut: bool,
    ) -> Option<CameraStep> {
        let (frame, result) = self.offered.take()?;
        let pending = self.pending.take().filter(|p| p.frame == frame)?;
        if let (Some(r), State::Tracking { .. }) = (&pending.recheck, &self.state) {
            // a recheck of the followed camera: replace it only by a clearly better one, found
            // on the same frame and brought forward by the picture's motion since
            let better = clearly_better(&result, r.support, self.settings.recheck_gain)
                .and_then(|fit| brought_forward(fit, pending.motion).ok_or(Recheck::NoBetter));
            let outcome = better.as_ref().err().copied().unwrap_or(Recheck::Switched);
            self.schedule_recheck(frame, r.faint, outcome);
            return better
                .ok()
                .map(|camera| self.adopt(img, boxes, camera, cut));
        }
        match (result, pending.motion) {
            (Ok(fit), Some(acc)) => {
                let camera = brought_forward(&fit, Some(acc))?;
                self.failed_searches = 0;
                Some(self.adopt(img, boxes, camera, cut))
            }
            (Ok(_), None) => {
                // the picture moved in a way no homography followed: try again
                self.state = State::Lost {
                    last_try: None,
                    why: "the camera moved too much while it was being found".to_owned(),
                };
                None
            }
            (Err(e), _) => {
                self.back_off(&e);
                self.state = State::Lost {
                    last_try: Some(frame),
                    why: e.to_string(),
                };
                None
            }
        }
    }

    /// Follows a camera a search found (brought forward to this frame) from this frame on,
    /// published as found automatically.
    fn adopt(
        &mut self,
        img: &RgbImage<'_>,
        boxes: &[BBox],
        camera: BroadcastCamera,
        cut: bool,
    ) -> CameraStep {
        self.state = State::Tracking {
            camera,
            unconfirmed: 0,
            manual: false,
        };
        let mut step = self.follow(img, boxes, camera, 0, false, None, cut);
        if let Some(e) = step.estimate.as_mut() {
            e.source = CameraSource::Auto;
        }
        step
    }

    fn acquire(
        &mut self,
        img: &RgbImage<'_>,
        boxes: &[BBox],
        n: u64,
        last_try: Option<u64>,
        why: &str,
        cut: bool,
    ) -> CameraStep {
        if cut {
            self.restart_searches();
        }
        let due = last_try.is_none_or(|t| n >= t + self.search_gap());
        if !due || self.pending.is_some() {
            return waiting(why, cut, None);
        }
        if self.settings.deferred_init {
            self.pending = Some(Pending {
                frame: n,
                motion: Some(IDENTITY),
                recheck: None,
            });
            self.state = State::Lost {
                last_try: Some(n),
                why: why.to_owned(),
            };
            return waiting(why, cut, Some(n));
        }
        let plan = self.init_plan();
        // a search on the line map at most every `map_search_every` frames, backing off while
        // they fail (a shot no main camera explains fails every time) until the next cut
        let every = self.settings.map_search_every;
        let model = self
            .lines
            .as_ref()
            .filter(|_| self.settings.map_search_every > 0 && self.frame >= self.next_map_search)
            .map(|m| &*m.0);
        let gap = self.map_search_gap.max(every);
        if model.is_some() {
            self.next_map_search = self.frame + gap;
        }
        let result = search_with_lines(
            model,
            img,
            boxes,
            &self.samples,
            &self.coarse,
            self.home(),
            &plan,
        );
        self.map_search_gap = match (&result, model.is_some()) {
            (Ok(_), _) => every,
            (Err(_), true) => (gap * 2).min(8 * every),
            (Err(_), false) => gap,
        };
        match result {
            Ok(fit) => {
                if calibration_of(&fit.camera).is_none() {
                    return CameraStep {
                        estimate: None,
                        missing: Some(NoCamera::Waiting("singular camera".to_owned())),
                        cut,
                        init_request: None,
                        motion: None,
                    };
                }
                self.state = State::Tracking {
                    camera: fit.camera,
                    unconfirmed: 0,
                    manual: false,
                };
                self.failed_searches = 0;
                self.note_view(&fit.camera);
                // The frame a camera is found on gets no metres: it is followed from the next
                // frame, once that frame's lines and motion confirm it. The frame may be a
                // shot's first (a cut the colours did not show: seed 77003's close-up back to
                // the main camera), and a search that runs beside the frame loop never
                // publishes its own frame either.
                self.recheck_gap = self.settings.recheck_every;
                self.next_recheck = self.frame + self.recheck_gap;
                // (on a cut frame the reason given is the cut)
                waiting(FOUND_UNCONFIRMED, cut, None)
            }
            Err(e) => {
                self.back_off(&e);
                self.state = State::Lost {
                    last_try: Some(n),
                    why: e.to_string(),
                };
                CameraStep {
                    estimate: None,
                    missing: Some(NoCamera::Init(e)),
                    cut,
                    init_request: None,
                    motion: None,
                }
            }
        }
    }
}

/// A step found on a work frame, in the frame's pixels.
fn scale_step(mut step: CameraStep, scale: &WorkScale, frame: (u32, u32)) -> CameraStep {
    if let Some(e) = step.estimate.as_mut() {
        e.camera = e.camera.map(|c| scale.camera_to_frame(&c, frame));
        match scale.calibration_to_frame(&e.calibration) {
            Ok(cal) => e.calibration = cal,
            Err(_) => {
                step.estimate = None;
                step.missing = Some(NoCamera::Waiting(
                    "the camera's homography is singular at the frame's size".to_owned(),
                ));
            }
        }
    }
    step.motion = step
        .motion
        .and_then(|m| Homography::from_matrix(scale.motion_to_frame(m.matrix())).ok());
    step
}

/// Why the frame a search found a camera on has none yet.
const FOUND_UNCONFIRMED: &str =
    "a camera was found on this frame; it is used once the next frame's lines confirm it";

/// A frame without a camera while one is being looked for (`init_request`: ask for a search).
fn waiting(why: &str, cut: bool, init_request: Option<u64>) -> CameraStep {
    CameraStep {
        estimate: None,
        missing: Some(if cut {
            NoCamera::Cut
        } else {
            NoCamera::Waiting(why.to_owned())
        }),
        cut,
        init_request,
        motion: None,
    }
}

/// How far (pixels) the motion moves the image corners, at most.
/// Motion measured on enough corners, most of which agree.
/// The picture's motion on the ground from one followed camera to the next (previous pixels →
/// pitch → these pixels): what the player and ball trackers need when the corners between the
/// frames disagree. A fast pan blurs the corners (seed 83145, frames 911–919: every second frame
/// unreliable at 25–30 px a frame) while the lines still carry the camera; without it every box
/// kept the last frame's place and the tracker swapped neighbours.
fn ground_motion(before: &Calibration, now: &Calibration) -> Option<Homography> {
    Homography::from_matrix(mul3(
        &now.image_from_pitch.matrix(),
        &before.pitch_from_image.matrix(),
    ))
    .ok()
}

const fn reliable(m: &super::motion::Motion) -> bool {
    m.inliers >= 12 && 2 * m.inliers >= m.tracked
}

fn moved_px(h: &[[f64; 3]; 3], img: &RgbImage<'_>) -> f64 {
    let (w, ht) = (f64::from(img.width()), f64::from(img.height()));
    let Ok(hm) = Homography::from_matrix(*h) else {
        return f64::INFINITY;
    };
    [(0.0, 0.0), (w, 0.0), (0.0, ht), (w, ht)]
        .iter()
        .map(|&(x, y)| {
            hm.apply(Point::new(x, y))
                .map_or(f64::INFINITY, |q| q.distance(&Point::new(x, y)))
        })
        .fold(0.0, f64::max)
}

/// The camera after the image moved by `motion` (previous pixels → current pixels): the chained
/// homography's view of a grid of visible pitch points, fitted with the camera's position held.
/// A recheck's camera if it is clearly better than the followed one's `support` (by `gain`),
/// else what the recheck came to.
fn clearly_better(
    found: &Result<LineFit, InitFailure>,
    support: f64,
    gain: f64,
) -> Result<&LineFit, Recheck> {
    match found {
        Ok(better) if better.support() >= support + gain => Ok(better),
        Ok(_) => Err(Recheck::NoBetter),
        Err(_) => Err(Recheck::NothingFound),
    }
}

/// A camera found on an earlier frame, moved by the picture's motion since (`None`: the motion
/// was lost on the way, so it cannot be brought forward).
fn brought_forward(fit: &LineFit, motion: Option<[[f64; 3]; 3]>) -> Option<BroadcastCamera> {
    match motion? {
        acc if acc == IDENTITY => Some(fit.camera),
        acc => chain(&fit.camera, &acc),
    }
}

fn chain(camera: &BroadcastCamera, motion: &[[f64; 3]; 3]) -> Option<BroadcastCamera> {
    let before = camera.image_from_pitch().ok()?;
    let m = Homography::from_matrix(*motion).ok()?;
    let (w, h) = (f64::from(camera.width), f64::from(camera.height));
    let mut pitch = Vec::new();
    let mut pixels = Vec::new();
    let inv = before.inverse().ok()?;
    // pitch points under a 5×4 grid of the previous image
    for j in 0..4 {
        for i in 0..5 {
            let px = Point::new(
                (f64::from(i) + 0.5) * w / 5.0,
                (f64::from(j) + 0.5) * h / 4.0,
            );
            if !camera.ray_hits_ground(px) {
                continue;
            }
            let Some(p) = inv.apply(px) else { continue };
            let Some(q) = m.apply(px) else { continue };
            pitch.push(p);
            pixels.push(q);
        }
    }
    if pitch.len() < 4 {
        return None;
    }
    Some(fit_to_points(camera, &pitch, &pixels, 4))
}
