//! The request bodies, as types: what the OpenAPI document shows for each route. The handlers read
//! bodies field by field ([`crate::validate::Body`]) so that a bad request names every failing
//! field at once; these types list the same fields, with the same limits, beside them.
//! [`SettingsBody`] is also deserialised as is.

use serde::Deserialize;
use sportz_contract::VideoSource;
use sportz_contract::worker::PointPair;
use time::OffsetDateTime;
use utoipa::ToSchema;

/// `settings` of a match: how its video is processed. Absent fields keep their current value.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SettingsBody {
    /// Frames per second to sample at, 0..=120; absent keeps the source's rate.
    #[schema(exclusive_minimum = 0.0, maximum = 120.0)]
    pub target_fps: Option<f64>,
    /// Read files at native speed rather than as fast as possible.
    pub realtime: Option<bool>,
    /// Detector model path or name.
    pub model: Option<String>,
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub confidence_threshold: Option<f64>,
    pub enable_tracking: Option<bool>,
    pub enable_teams: Option<bool>,
    pub enable_events: Option<bool>,
}

/// `POST /matches`. A match with a video source starts `ready`, without one `draft`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateMatchBody {
    #[schema(min_length = 1, max_length = 100)]
    pub home_team: String,
    #[schema(min_length = 1, max_length = 100)]
    pub away_team: String,
    /// Default: `<homeTeam> v <awayTeam>`.
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    /// Default: `football`.
    #[schema(min_length = 1, max_length = 50)]
    pub sport: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub competition: Option<String>,
    /// RFC 3339.
    pub start_time: Option<OffsetDateTime>,
    /// RFC 3339, not before `startTime`.
    pub end_time: Option<OffsetDateTime>,
    pub video_source: Option<VideoSource>,
    pub settings: Option<SettingsBody>,
}

/// `PATCH /matches/{id}`: only the fields present change; `null` clears an optional one. The
/// video source and settings cannot change while a session is active (409).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateMatchBody {
    #[schema(min_length = 1, max_length = 200)]
    pub name: Option<String>,
    #[schema(min_length = 1, max_length = 50)]
    pub sport: Option<String>,
    #[schema(min_length = 1, max_length = 100)]
    pub home_team: Option<String>,
    #[schema(min_length = 1, max_length = 100)]
    pub away_team: Option<String>,
    #[schema(min_length = 1, max_length = 200)]
    pub competition: Option<String>,
    pub start_time: Option<OffsetDateTime>,
    pub end_time: Option<OffsetDateTime>,
    /// Setting one makes a `draft` match `ready`; `null` makes a `ready` one `draft`.
    pub video_source: Option<VideoSource>,
    pub settings: Option<SettingsBody>,
}

/// `PATCH /matches/{id}/score`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScoreBody {
    #[schema(maximum = 999)]
    pub home_score: u32,
    #[schema(maximum = 999)]
    pub away_score: u32,
}

/// `POST /matches/{id}/commentary`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommentaryBody {
    /// Order within the match, unique per match (a repeat is 409).
    #[schema(minimum = 1)]
    pub sequence: u32,
    #[schema(min_length = 1, max_length = 50)]
    pub event_type: String,
    #[schema(min_length = 1, max_length = 2000)]
    pub message: String,
    #[schema(maximum = 200)]
    pub minute: Option<u32>,
    #[schema(min_length = 1, max_length = 50)]
    pub period: Option<String>,
    #[schema(min_length = 1, max_length = 100)]
    pub actor: Option<String>,
    #[schema(min_length = 1, max_length = 100)]
    pub team: Option<String>,
    /// Any JSON object.
    #[schema(value_type = Option<Object>)]
    pub metadata: Option<serde_json::Value>,
    /// At most 20 tags of 1 to 50 characters.
    #[schema(max_items = 20)]
    pub tags: Option<Vec<String>>,
}

/// `PUT /matches/{id}/calibration`: 4 to 64 pairs, pitch points in metres on a 105×68 pitch (5 m
/// margin), not degenerate (no three collinear among four).
#[derive(Debug, Deserialize, ToSchema)]
pub struct CalibrationBody {
    #[schema(min_items = 4, max_items = 64)]
    pub pairs: Vec<PointPair>,
}

/// `POST /matches/{id}/calibration/auto`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AutoCalibrationBody {
    /// Seconds from the start of the video of the still to look at (default 0).
    #[schema(minimum = 0.0)]
    pub t: Option<f64>,
}
