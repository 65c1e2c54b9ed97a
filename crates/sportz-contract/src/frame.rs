//! `frame.data`, exactly the seed's shape: every field name, nesting and unit of the seed example.
//! Units: pixels in the source frame (`width`×`height`), pitch metres on a 105×68 pitch (origin at
//! a corner, x along the length), velocity in px/s, times in seconds (`video_timestamp` from the
//! start of the video, `timestamp` and trail `t` as noted on each field).
//!
//! Extra fields may be added (they are skipped on output when absent, so a message without them is
//! byte-for-byte the seed's shape); none may be renamed or dropped.

use serde::{Deserialize, Serialize};

use crate::wire::{self as serde_px, required_nullable};

/// A point in source-frame pixels.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PixelPoint {
    #[serde(serialize_with = "serde_px::scalar")]
    pub x: f64,
    #[serde(serialize_with = "serde_px::scalar")]
    pub y: f64,
}

/// A point on the pitch in metres: x in `0..=105`, y in `0..=68`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PitchPoint {
    pub x: f64,
    pub y: f64,
}

/// A velocity in pixels per second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Velocity {
    pub x: f64,
    pub y: f64,
}

/// Whether pitch fields are filled (`pitch`: a calibration maps pixels to metres) or not (`pixel`:
/// every `pitch` field is `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CoordinateMode {
    Pitch,
    Pixel,
}

/// The detector class of a tracked object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ObjectClass {
    Player,
    Goalkeeper,
    Referee,
    Ball,
}

/// The side a player was assigned to by shirt colour. Extra field (not in the seed).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TeamSide {
    Home,
    Away,
    /// Referees and unassigned outliers.
    Other,
}

/// The tracked ball in one frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ball {
    pub track_id: u64,
    /// `[x1, y1, x2, y2]` in pixels.
    #[serde(serialize_with = "serde_px::bbox")]
    pub bbox: [f64; 4],
    /// The ball's centre in pixels.
    pub pixel: PixelPoint,
    /// The ball's ground position in metres; `null` while uncalibrated, and for a ball whose
    /// ground point through the camera is more than 3 m off the pitch (a ball in the air, whose
    /// ground point runs far beyond it) — unless its flight is known (`height_m`): then the
    /// point under it, `null` when that is more than 3 m off the pitch. Also `null` in the
    /// first frames of a flight, once its path shows the ball in the air but before it pins
    /// down where (its ground point is then metres to tens of metres off).
    #[serde(deserialize_with = "required_nullable")]
    pub pitch: Option<PitchPoint>,
    /// 0..1; decays while the ball is predicted.
    pub confidence: f64,
    /// px/s.
    pub velocity: Velocity,
    /// px/s, the norm of `velocity`.
    pub speed: f64,
    /// `true` when the position is extrapolated (no detection this frame).
    pub predicted: bool,
    /// Extra field: ground speed on the pitch, m/s, through the frame's camera; absent without
    /// one (a ball in the air is measured as if on the ground until its flight shows, then at
    /// its horizontal speed), and above 60 m/s, faster than any ball is kicked (a ball track
    /// hopping between candidates).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_mps: Option<f64>,
    /// Extra field: the height of the ball's underside above the grass, metres, while it is in
    /// the air and its flight is known from its recent sightings (then `pitch` is the point
    /// under it, not its ground point through the camera); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height_m: Option<f64>,
}

/// One point of the ball's recent path (the seed's `trail`, oldest first, up to 30 points).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrailPoint {
    /// Video time of the point, in seconds (same clock as `video_timestamp`).
    pub t: f64,
    /// Pixels.
    pub x: f64,
    /// Pixels.
    pub y: f64,
    /// Metres; `null` while uncalibrated.
    #[serde(deserialize_with = "required_nullable")]
    pub pitch: Option<PitchPoint>,
    /// Extra field: whether this point was predicted rather than detected.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub predicted: bool,
}

/// One tracked person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Player {
    pub track_id: u64,
    pub class: ObjectClass,
    /// `[x1, y1, x2, y2]` in pixels.
    #[serde(serialize_with = "serde_px::bbox")]
    pub bbox: [f64; 4],
    pub confidence: f64,
    /// The foot point (bottom centre of the box) in metres; `null` while uncalibrated.
    #[serde(deserialize_with = "required_nullable")]
    pub pitch: Option<PitchPoint>,
    /// Extra field: the side from shirt-colour clustering, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<TeamSide>,
}

/// `frame.data`: one processed video frame.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameData {
    /// Index of the frame in the source, from 0.
    pub frame_number: u64,
    /// Seconds from the start of the video.
    pub video_timestamp: f64,
    /// Unix time (seconds) when the frame was read from the source.
    pub timestamp: f64,
    /// Source frame width in pixels.
    pub width: u32,
    /// Source frame height in pixels.
    pub height: u32,
    pub coordinate_mode: CoordinateMode,
    /// `null` when no ball is tracked.
    #[serde(deserialize_with = "required_nullable")]
    pub ball: Option<Ball>,
    pub trail: Vec<TrailPoint>,
    pub players: Vec<Player>,
    /// Publish time minus the frame's read time, in milliseconds.
    pub latency_ms: f64,
    /// Extra field: the camera this frame's pitch fields were mapped with; absent in `pixel`
    /// mode (no trustworthy camera for this frame).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<FrameCamera>,
    /// Extra field: the colours of the two sides' kits (absent until the sides are learnt), so
    /// viewers draw each side in its own colours.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kits: Option<Kits>,
}

/// Where a frame's camera came from.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CameraSource {
    /// Found from this frame alone (pitch lines matched against the model), no clicks.
    Auto,
    /// Followed from earlier frames (frame-to-frame motion, corrected against the pitch lines).
    Tracked,
    /// The session's or match's clicked calibration, unchanged.
    Manual,
}

/// Extra field of `frame.data`: the kit colours of the two sides, as `#rrggbb` (the dominant
/// shirt colour of each side as the camera sees it).
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Kits {
    pub home: String,
    pub away: String,
}

impl Kits {
    /// The two colours as RGB (home, away); `None` when either is not `#rrggbb`.
    #[must_use]
    pub fn rgb(&self) -> Option<[[u8; 3]; 2]> {
        Some([rgb_of_hex(&self.home)?, rgb_of_hex(&self.away)?])
    }
}

/// `#rrggbb` (either case) → RGB; `None` for anything else.
#[must_use]
pub fn rgb_of_hex(s: &str) -> Option<[u8; 3]> {
    let h = s.strip_prefix('#').filter(|h| h.len() == 6)?;
    let c = |i: usize| u8::from_str_radix(h.get(i..i + 2)?, 16).ok();
    Some([c(0)?, c(2)?, c(4)?])
}

/// RGB → `#rrggbb` (lower case), as [`Kits`] carries colours.
#[must_use]
pub fn hex_of_rgb([r, g, b]: [u8; 3]) -> String {
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// Extra field of `frame.data`: the frame's own image → pitch mapping.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrameCamera {
    /// Row-major 3×3 homography taking source pixels `(x, y, 1)` to pitch metres (dehomogenise
    /// by the third coordinate).
    pub image_to_pitch: [f64; 9],
    pub source: CameraSource,
    /// 0..1: the share of the projected pitch-line samples that lie on white line pixels (1 for a
    /// manual calibration, which is trusted as clicked).
    pub confidence: f64,
}

/// `ball.data`: the ball part of a frame (sent on its own in snapshots).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BallData {
    pub frame_number: u64,
    pub video_timestamp: f64,
    #[serde(deserialize_with = "required_nullable")]
    pub ball: Option<Ball>,
    pub trail: Vec<TrailPoint>,
}

/// `players.data`: the players part of a frame (sent on its own in snapshots).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayersData {
    pub frame_number: u64,
    pub video_timestamp: f64,
    pub players: Vec<Player>,
}

impl FrameData {
    /// The `ball` message data for this frame.
    #[must_use]
    pub fn ball_data(&self) -> BallData {
        BallData {
            frame_number: self.frame_number,
            video_timestamp: self.video_timestamp,
            ball: self.ball.clone(),
            trail: self.trail.clone(),
        }
    }

    /// The `players` message data for this frame.
    #[must_use]
    pub fn players_data(&self) -> PlayersData {
        PlayersData {
            frame_number: self.frame_number,
            video_timestamp: self.video_timestamp,
            players: self.players.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Kits, hex_of_rgb, rgb_of_hex};

    #[test]
    fn kit_colours_round_trip_and_bad_ones_are_refused() {
        assert_eq!(rgb_of_hex("#f0d21e"), Some([240, 210, 30]));
        assert_eq!(rgb_of_hex("#F0D21E"), Some([240, 210, 30]));
        assert_eq!(hex_of_rgb([240, 210, 30]), "#f0d21e");
        for bad in ["f0d21e", "#f0d2", "#f0d21e0", "#g0d21e", "#é0d21", "", "#"] {
            assert_eq!(rgb_of_hex(bad), None, "{bad:?}");
        }
        let kits = |home: &str| Kits {
            home: home.to_owned(),
            away: "#000000".to_owned(),
        };
        assert_eq!(kits("#ffffff").rgb(), Some([[255; 3], [0; 3]]));
        assert_eq!(kits("white").rgb(), None);
    }
}
