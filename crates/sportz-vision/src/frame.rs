//! Adapters from this crate's outputs to the contract: `frame.data` from the trackers, `event.data`
//! from the engine, and the engine's inputs from the trackers.
//!
//! Pitch fields are `None` (and `coordinate_mode` is `pixel`) while there is no calibration.

use sportz_contract::{
    Ball, CoordinateMode, EventData, EventId, FrameData, Kits, MatchId, ObjectClass, PitchPoint,
    PixelPoint, Player, TeamSide, TrailPoint, Velocity,
};
use ulid::Ulid;

use crate::Point;
use crate::ball::{BallState, TrailSample};
use crate::camera::BroadcastCamera;
use crate::detect::Detection;
use crate::events::{BallObs, Event, PlayerObs};
use crate::pitch::{Calibration, Homography};
use crate::teams::TeamAssigner;

/// What the source says about a frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameMeta {
    pub frame_number: u64,
    /// Seconds from the start of the video.
    pub video_timestamp: f64,
    /// Unix seconds when the frame was read.
    pub timestamp: f64,
    pub width: u32,
    pub height: u32,
    pub latency_ms: f64,
}

fn pitch_point(p: Point) -> PitchPoint {
    PitchPoint { x: p.x, y: p.y }
}

/// The team of a track, when a side is known.
fn team(teams: Option<&TeamAssigner>, track_id: u64) -> Option<TeamSide> {
    teams.and_then(|t| t.team_of(track_id))
}

/// `frame.data` for one frame: the ball (if tracked), its trail, and the tracked people (those
/// without a track id are left out).
#[must_use]
pub fn build_frame<'a>(
    meta: &FrameMeta,
    ball: Option<&BallState>,
    trail: impl IntoIterator<Item = &'a TrailSample>,
    players: &[Detection],
    teams: Option<&TeamAssigner>,
    calibration: Option<&Calibration>,
) -> FrameData {
    let calibrated = calibration.is_some();
    let ball = ball.map(|b| Ball {
        track_id: b.track_id,
        bbox: b.bbox.to_array_f64(),
        pixel: PixelPoint {
            x: b.pixel.x,
            y: b.pixel.y,
        },
        pitch: b.pitch.filter(|_| calibrated).map(pitch_point),
        confidence: b.confidence,
        velocity: Velocity {
            x: b.velocity_px_s.0,
            y: b.velocity_px_s.1,
        },
        speed: b.speed_px_s,
        // faster than any ball is kicked: a track hopping between candidates, no speed
        speed_mps: b
            .speed_mps
            .filter(|v| calibrated && *v <= crate::ball::MAX_BALL_MPS),
        predicted: b.predicted,
        // centimetres
        height_m: b
            .height_m
            .filter(|_| calibrated)
            .map(|h| (h * 100.0).round() / 100.0),
    });
    let trail = trail
        .into_iter()
        .map(|s| TrailPoint {
            t: s.t,
            x: s.pixel.x,
            y: s.pixel.y,
            pitch: s.pitch.filter(|_| calibrated).map(pitch_point),
            predicted: s.predicted,
        })
        .collect();
    let players = players
        .iter()
        .filter_map(|d| {
            let track_id = d.track_id?;
            Some(Player {
                track_id,
                class: d.class?,
                bbox: d.bbox.to_array_f64(),
                confidence: f64::from(d.confidence),
                pitch: calibration
                    .and_then(|c| c.foot_to_pitch(&d.bbox))
                    .map(pitch_point),
                team: team(teams, track_id),
            })
        })
        .collect();
    FrameData {
        frame_number: meta.frame_number,
        video_timestamp: meta.video_timestamp,
        timestamp: meta.timestamp,
        width: meta.width,
        height: meta.height,
        coordinate_mode: if calibrated {
            CoordinateMode::Pitch
        } else {
            CoordinateMode::Pixel
        },
        ball,
        trail,
        players,
        latency_ms: meta.latency_ms,
        camera: None,
        kits: teams
            .and_then(TeamAssigner::kit_colours)
            .map(|[home, away]| Kits {
                home: hex(home),
                away: hex(away),
            }),
    }
}

/// `#rrggbb` of a colour in `0..=1`.
fn hex(c: crate::teams::Colour) -> String {
    // clamped to 0..=255 first
    sportz_contract::frame::hex_of_rgb(c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8))
}

/// The ground homography (pitch → pixels) of a published frame's camera: the inverse of its
/// row-major `image_to_pitch` (`FrameCameraEstimate::to_contract`); `None` without a camera
/// (pixel mode) or for one that does not invert.
#[must_use]
pub fn published_image_from_pitch(frame: &FrameData) -> Option<Homography> {
    let c = frame
        .camera
        .as_ref()
        .filter(|_| frame.coordinate_mode == CoordinateMode::Pitch)?;
    let m = c.image_to_pitch;
    Homography::from_matrix([[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]])
        .and_then(|h| h.inverse())
        .ok()
}

/// Where the camera whose ground homography is `image_from_pitch` stands on the ground, metres
/// (`None` when no camera fits it: a top-down view, a degenerate fit) — for a published frame,
/// which carries its homography but not its camera.
#[must_use]
pub fn camera_on_ground(image_from_pitch: &Homography, width: u32, height: u32) -> Option<Point> {
    BroadcastCamera::from_homography(&image_from_pitch.matrix(), width, height)
        .ok()
        .map(|c| Point::new(c.position[0], c.position[1]))
}

/// The event engine's view of the trackers' output: the ball and the players (keepers
/// included); referees are left out, they never have the ball. `camera`: the frame's physical
/// camera (the one `calibration` comes from), which says where the camera stands.
#[must_use]
pub fn event_inputs(
    ball: Option<&BallState>,
    players: &[Detection],
    teams: Option<&TeamAssigner>,
    calibration: Option<&Calibration>,
    camera: Option<&BroadcastCamera>,
) -> (Option<BallObs>, Vec<PlayerObs>) {
    let ball = ball.map(|b| BallObs {
        pitch: b.pitch.filter(|_| calibration.is_some()),
        predicted: b.predicted,
        confidence: b.confidence,
        with_camera: calibration.is_some(),
        height_m: b.height_m,
        camera_at: camera
            .filter(|_| calibration.is_some())
            .map(|c| Point::new(c.position[0], c.position[1])),
    });
    let players = players
        .iter()
        .filter(|d| d.class != Some(ObjectClass::Referee))
        .filter_map(|d| {
            let track_id = d.track_id?;
            Some(PlayerObs {
                track_id,
                team: team(teams, track_id),
                pitch: calibration.and_then(|c| c.foot_to_pitch(&d.bbox)),
            })
        })
        .collect();
    (ball, players)
}

/// Event ids built from (match, frame, seq), so the same event detected again (a restarted
/// session re-reading a frame) gets the same id and is persisted once. The ULID's time part is
/// the frame's Unix time in ms, so ids sort by time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventIds {
    /// The top 32 of the 80 random bits: taken from the match id.
    salt: u128,
}

const LOW_48: u128 = (1 << 48) - 1;
const RANDOM_80: u128 = (1 << 80) - 1;

impl EventIds {
    #[must_use]
    pub const fn new(match_id: MatchId) -> Self {
        Self {
            salt: match_id.ulid().random() & RANDOM_80 & !LOW_48,
        }
    }

    #[must_use]
    pub fn id(&self, e: &Event) -> EventId {
        // clamped to ULID's 48-bit ms
        let ms = (e.timestamp * 1000.0).clamp(0.0, LOW_48 as f64) as u64;
        let random =
            self.salt | (u128::from(e.frame_number & 0xFFFF_FFFF) << 16) | u128::from(e.seq);
        EventId::from_ulid(Ulid::from_parts(ms, random))
    }
}

/// `event.data` for one event.
#[must_use]
pub fn event_data(e: &Event, ids: &EventIds) -> EventData {
    EventData {
        event_id: ids.id(e),
        kind: e.kind,
        video_timestamp: e.video_timestamp,
        timestamp: e.timestamp,
        frame_number: e.frame_number,
        pitch: e.pitch.map(pitch_point),
        team: e.team,
        player_track_id: e.player_track_id,
        confidence: e.confidence,
        details: e.details.clone(),
    }
}

#[cfg(test)]
mod tests;
