//! Ground truth, one [`FrameTruth`] per rendered frame (a line of `truth.jsonl`), plus the
//! match's [`EventTruth`]s. Every type round-trips through serde so `eval` can read them back.
//!
//! Conventions: pitch metres on a 105×68 pitch, origin at the corner (x = 0, y = 0), x along the
//! length; the home team attacks towards x = 105. Pixels have (0, 0) at the top-left corner of
//! the top-left pixel (pixel centres at +0.5); boxes are `[x1, y1, x2, y2]` with `x2`/`y2`
//! exclusive (a box one pixel wide has `x2 = x1 + 1`).

use serde::{Deserialize, Serialize};
use sportz_contract::{EventKind, ObjectClass, PitchPoint, PixelPoint, TeamSide};

use crate::geom::Mat3;
use crate::render::Drawn;

/// Everything true about one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameTruth {
    /// 0-based index of the frame in the video.
    pub frame_number: u64,
    /// Seconds from the start of the video (`frame_number / fps`).
    pub video_timestamp: f64,
    pub camera: CameraTruth,
    /// Every person on the pitch (22 players and the referee), sorted by id, on screen or not.
    pub objects: Vec<ObjectTruth>,
    pub ball: BallTruth,
    /// The true events whose `frame` is this frame (also collected in `events.json`).
    pub events: Vec<EventTruth>,
    pub score: Score,
    /// The team in control of the ball, `null` while the ball is loose or out of play.
    pub possession: Option<TeamSide>,
}

/// Which broadcast camera a frame is seen from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Shot {
    /// The main camera: the wide shot from the gantry on the near side that follows play.
    #[default]
    Main,
    /// A second angle for a few seconds (high at a penalty-box line, or behind a goal): still a
    /// wide shot of the ground around the ball.
    Alternate,
    /// A close-up of the player on or near the ball: a narrow field of view, little pitch.
    CloseUp,
}

/// The broadcast camera of one frame. The homographies are the exact matrices the ground plane
/// was rendered with (row-major, normalised so that the bottom-right entry is 1), whatever the
/// shot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CameraTruth {
    /// Pitch metres (z = 0) → pixels.
    pub image_from_pitch: Mat3,
    /// Pixels → pitch metres on the ground plane.
    pub pitch_from_image: Mat3,
    /// Camera centre `[x, y, z]` in metres (z up).
    pub position_m: [f64; 3],
    /// Ground point at the image centre, metres.
    pub target: PitchPoint,
    /// Horizontal field of view, degrees.
    pub fov_deg: f64,
    /// The camera on air: `main`, `alternate` or `close_up` (`main` in truth written before
    /// shots existed).
    #[serde(default)]
    pub shot: Shot,
    /// The first frame of a new shot (a cut from the previous frame); never frame 0.
    #[serde(default)]
    pub cut: bool,
    /// Enough pitch is in view to calibrate from this frame (main and alternate shots, not
    /// close-ups); `true` in truth written before shots existed.
    #[serde(default = "yes")]
    pub pitch_visible: bool,
}

const fn yes() -> bool {
    true
}

/// How much of an object the viewer can see.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Entirely in frame and not covered by anything nearer.
    Visible,
    /// Partly covered by nearer objects or partly outside the frame.
    Partial,
    /// In frame but fully covered by nearer objects.
    Occluded,
    /// Not in the frame at all.
    OffScreen,
}

/// One person (player, goalkeeper or referee).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectTruth {
    /// Stable for the whole match: home 1..=11 (1 is the goalkeeper), away 12..=22 (12 is the
    /// goalkeeper), referee 23.
    pub id: u32,
    /// `player`, `goalkeeper` or `referee`.
    pub role: ObjectClass,
    /// `home`, `away`, or `other` for the referee.
    pub team: TeamSide,
    /// Shirt number (0 for the referee).
    pub number: u8,
    /// Exact extent of the pixels drawn for this object in this frame (before occlusion by
    /// nearer objects), clipped to the image; `null` when nothing of it is in frame.
    pub bbox: Option<[f64; 4]>,
    /// The figure's projected extent, not clipped to the image (may lie partly outside).
    pub bbox_full: [f64; 4],
    /// The foot point on the ground, metres.
    pub pitch: PitchPoint,
    /// The foot point in pixels (may lie outside the image).
    pub foot_pixel: PixelPoint,
    /// Ground speed, metres per second.
    pub speed_mps: f64,
    pub visibility: Visibility,
    /// Fraction of the full figure that is seen: in-frame share of `bbox_full` times the share
    /// of its drawn pixels not covered by nearer objects. 1 = fully visible, 0 = not seen.
    pub visible_fraction: f64,
    /// Share of its in-frame pixels covered by nearer objects (0 when none are in frame).
    pub occluded_fraction: f64,
    /// Pixels of this object seen in the final image.
    pub visible_px: u32,
}

/// The ball.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BallTruth {
    /// Projected centre of the ball (may lie outside the image).
    pub pixel: PixelPoint,
    /// Extent of the drawn ball pixels clipped to the image, `null` when none are in frame.
    pub bbox: Option<[f64; 4]>,
    /// The ground point under the ball, metres.
    pub pitch: PitchPoint,
    /// Height of the ball's centre above the ground minus its radius (0 when on the ground), metres.
    pub height_m: f64,
    /// At least one ball pixel is seen in the final image.
    pub visible: bool,
    pub visible_px: u32,
    /// Velocity `[vx, vy, vz]`, metres per second.
    pub velocity_mps: [f64; 3],
    pub speed_mps: f64,
    /// Id of the player controlling the ball, `null` when it is loose.
    pub owner: Option<u32>,
    /// `false` between the ball crossing a line and the restart.
    pub in_play: bool,
}

/// The score at a frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub home: u32,
    pub away: u32,
}

/// A true match event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventTruth {
    /// 1-based, in order of occurrence.
    pub seq: u32,
    /// `ball_lost`, `possession`, `possession_change`, `pass`, `shot`, `ball_out` or `goal`.
    pub kind: EventKind,
    /// The first frame at or after the moment of the event.
    pub frame: u64,
    /// Match time of the event, seconds (simulated at 50 Hz, so finer than the frame time).
    pub time_secs: f64,
    /// Where it happened (the ball's ground point), metres.
    pub pitch: PitchPoint,
    /// The acting team: the passer's, shooter's, scorer's, the team that gained the ball, the
    /// team that lost it (`ball_lost`), the team that last touched the ball (`ball_out`).
    pub team: Option<TeamSide>,
    /// The acting player (passer, shooter, scorer, new owner, player who lost the ball, last
    /// touch before the ball went out).
    pub player_id: Option<u32>,
    /// The intended receiver of a pass.
    pub target_player_id: Option<u32>,
    /// Ball speed at the kick (pass, shot), metres per second.
    pub speed_mps: Option<f64>,
    /// A free-form qualifier: `throw_in`, `goal_kick`, `corner_kick` (ball_out); `clearance`,
    /// `restart` (pass); `tackle`, `interception`, `save`, or the restart that handed the ball
    /// over (`kickoff`, `throw_in`, `goal_kick`, `corner_kick`) for possession, possession_change
    /// and ball_lost.
    pub detail: Option<String>,
}

/// A point pair a user would click to calibrate: a named pitch landmark and where it is seen.
/// The `pixel` and `pitch` fields match `sportz_contract::worker::PointPair`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationPoint {
    pub pixel: PixelPoint,
    pub pitch: PitchPoint,
    pub name: String,
}

impl From<CalibrationPoint> for sportz_contract::worker::PointPair {
    fn from(p: CalibrationPoint) -> Self {
        Self {
            pixel: p.pixel,
            pitch: p.pitch,
        }
    }
}

/// The drawn extent of an object, clipped to the image; `None` when nothing of it is in frame.
pub(crate) fn bbox_of(d: &Drawn) -> Option<[f64; 4]> {
    (!d.cov.is_empty()).then(|| {
        [
            f64::from(d.cov.min_x),
            f64::from(d.cov.min_y),
            f64::from(d.cov.max_x + 1),
            f64::from(d.cov.max_y + 1),
        ]
    })
}

/// An object's visibility, visible fraction and occluded fraction from what was drawn of it.
pub(crate) fn visibility(d: &Drawn, visible_px: u32, w: f64, h: f64) -> (Visibility, f64, f64) {
    if d.cov.is_empty() {
        return (Visibility::OffScreen, 0.0, 0.0);
    }
    let f = d.full;
    let area = ((f[2] - f[0]) * (f[3] - f[1])).max(1e-9);
    let inside =
        ((f[2].min(w) - f[0].max(0.0)).max(0.0) * (f[3].min(h) - f[1].max(0.0)).max(0.0)) / area;
    let seen = f64::from(visible_px) / f64::from(d.cov.drawn_px);
    let state = if visible_px == 0 {
        Visibility::Occluded
    } else if visible_px == d.cov.drawn_px && inside > 0.999 {
        Visibility::Visible
    } else {
        Visibility::Partial
    };
    (state, (inside * seen).clamp(0.0, 1.0), 1.0 - seen)
}
