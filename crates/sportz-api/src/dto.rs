//! Every REST body the API answers with, built from the store's rows in this one place (the store
//! returns rows and never builds wire shapes):
//!
//! - the contract's match-centre shapes, which `/ws` broadcasts carry too: [`match_dto`],
//!   [`commentary_dto`], [`score_update`];
//! - the REST-only shapes: [`SessionDto`], [`EventDto`], [`CalibrationDto`],
//!   [`AutoCalibrationDto`], [`HealthDto`], [`Liveness`], and the schemas of the non-JSON bodies ([`JpegImage`], [`OpenApiDocument`]);
//! - the envelopes: [`Data`] (`{data}`) and [`Paged`] (`{data: […], nextCursor}`).
//!
//! REST bodies go through [`serde_json::Value`] ([`data`], [`page`]), so their keys are written
//! in sorted order whatever the field order here.

use axum::Json;
use serde::Serialize;
use serde_json::Value;
use sportz_contract::match_centre::{CommentaryDto, MatchDto, ScoreUpdate};
use sportz_contract::worker::{PointPair, SessionConfig};
use sportz_contract::{CameraSource, EventData, MatchId, SessionId, SessionStatus};
use sportz_store::{Commentary, Match, Session, StoredEvent};
use sportz_vision::pitch::ReprojectionError;
use time::OffsetDateTime;
use utoipa::ToSchema;
use utoipa::openapi::RefOr;
use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, Schema, SchemaFormat, Type};

/// `{data: T}`: every REST answer but pages.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Data<T> {
    pub data: T,
}

/// `{data: [T], nextCursor}`: one page; `nextCursor` is `null` on the last page.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Paged<T> {
    pub data: Vec<T>,
    pub next_cursor: Option<String>,
}

/// `{data: v}` as a JSON body.
pub fn data<T: Serialize>(v: T) -> Json<Value> {
    Json(serde_json::json!(Data { data: v }))
}

/// `{data: items, nextCursor: next}` as a JSON body.
pub fn page<T: Serialize>(items: Vec<T>, next: Option<String>) -> Json<Value> {
    Json(serde_json::json!(Paged {
        data: items,
        next_cursor: next,
    }))
}

/// A match as REST returns it and `match_created` / `match_updated` carry it, at `now` (the
/// phase is derived from the status and the kick-off/end times).
#[must_use]
pub fn match_dto(m: &Match, now: OffsetDateTime) -> MatchDto {
    MatchDto {
        id: m.id,
        name: m.name.clone(),
        sport: m.sport.clone(),
        home_team: m.home_team.clone(),
        away_team: m.away_team.clone(),
        competition: m.competition.clone(),
        start_time: m.start_time,
        end_time: m.end_time,
        home_score: m.home_score,
        away_score: m.away_score,
        status: m.status,
        phase: m.phase(now),
        status_message: m.status_message.clone(),
        video_source: m.video_source.clone(),
        current_session_id: m.current_session_id,
        event_count: m.event_count,
        created_at: m.created_at,
        updated_at: m.updated_at,
    }
}

/// A commentary row as REST returns it and `commentary` carries it.
#[must_use]
pub fn commentary_dto(c: Commentary) -> CommentaryDto {
    CommentaryDto {
        id: c.id,
        match_id: c.match_id,
        minute: c.minute,
        sequence: c.sequence,
        period: c.period,
        event_type: c.event_type,
        actor: c.actor,
        team: c.team,
        message: c.message,
        metadata: c.metadata,
        tags: c.tags,
        created_at: c.created_at,
    }
}

/// `score_update.data`.
#[must_use]
pub const fn score_update(m: &Match) -> ScoreUpdate {
    ScoreUpdate {
        match_id: m.id,
        home_score: m.home_score,
        away_score: m.away_score,
    }
}

/// A processing session.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionDto {
    pub id: SessionId,
    pub match_id: MatchId,
    pub worker_id: Option<String>,
    pub status: SessionStatus,
    pub device: Option<String>,
    pub frames_processed: u64,
    pub avg_fps: Option<f64>,
    pub avg_latency_ms: Option<f64>,
    pub error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub started_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    pub stopped_at: Option<OffsetDateTime>,
    pub config: SessionConfig,
}

impl From<Session> for SessionDto {
    fn from(s: Session) -> Self {
        Self {
            id: s.id,
            match_id: s.match_id,
            worker_id: s.worker_id,
            status: s.status,
            device: s.device,
            frames_processed: s.frames_processed,
            avg_fps: s.avg_fps,
            avg_latency_ms: s.avg_latency_ms,
            error: s.error,
            started_at: s.started_at,
            stopped_at: s.stopped_at,
            config: s.config,
        }
    }
}

/// A stored event: the contract's `event.data` as received, with its row id and session.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EventDto {
    pub id: i64,
    pub match_id: MatchId,
    pub session_id: Option<SessionId>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    pub event: EventData,
}

impl From<StoredEvent> for EventDto {
    fn from(e: StoredEvent) -> Self {
        Self {
            id: e.id,
            match_id: e.match_id,
            session_id: e.session_id,
            created_at: e.created_at,
            event: e.data,
        }
    }
}

/// A match's calibration and how well it fits (`null` errors with fewer than 4 pairs or a
/// degenerate set).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CalibrationDto {
    pub pairs: Vec<PointPair>,
    /// RMS reprojection error over the inliers, in pixels.
    pub reprojection_error_px: Option<f64>,
    /// The same on the pitch, in metres.
    pub reprojection_error_m: Option<f64>,
}

impl CalibrationDto {
    /// The pairs with their fit (see `service::calibration::reprojection_error`).
    #[must_use]
    pub fn new(pairs: Vec<PointPair>, fit: Option<ReprojectionError>) -> Self {
        Self {
            pairs,
            reprojection_error_px: fit.map(|e| e.rms_px),
            reprojection_error_m: fit.map(|e| e.rms_m),
        }
    }
}

/// `POST /matches/{id}/calibration/auto`: the camera found in a still from its pitch lines, not
/// saved. `pairs` are in the pixels of the `width × height` still (the video's own size) and can
/// be saved as they are with `PUT /matches/{id}/calibration`.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AutoCalibrationDto {
    /// Row-major 3×3 homography taking still pixels `(x, y, 1)` to pitch metres (dehomogenise by
    /// the third coordinate), scaled so that the last entry is 1.
    pub image_to_pitch: [f64; 9],
    /// The share of the pitch-model line samples in view that lie on white lines, 0..1.
    #[schema(minimum = 0.0, maximum = 1.0)]
    pub confidence: f64,
    /// 4 to 8 well-spread pairs the camera implies (named landmarks where enough are in view).
    #[schema(min_items = 4, max_items = 8)]
    pub pairs: Vec<PointPair>,
    pub width: u32,
    pub height: u32,
    /// Always `auto`.
    pub source: CameraSource,
}

impl AutoCalibrationDto {
    /// A camera found in a `size` (width, height) still.
    #[must_use]
    pub const fn new(
        image_to_pitch: [f64; 9],
        confidence: f64,
        pairs: Vec<PointPair>,
        size: (u32, u32),
        source: CameraSource,
    ) -> Self {
        Self {
            image_to_pitch,
            confidence,
            pairs,
            width: size.0,
            height: size.1,
            source,
        }
    }
}

/// `/health`: liveness, readiness and why not ready.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct HealthDto {
    pub live: bool,
    /// The bus and the store answer and the fan-out subscription is live.
    pub ready: bool,
    pub bus: BusHealth,
    pub store: StoreHealth,
    pub fanout: bool,
    /// Where sessions are recorded and what that takes (`null` when recording is off).
    pub recordings: Option<RecordingsHealth>,
    /// Whether this server renders the annotated live video for viewers.
    pub viewer_video: ViewerVideoHealth,
}

/// The viewer-video part of [`HealthDto`].
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ViewerVideoHealth {
    pub on: bool,
    /// Why it is off (and how to turn it on); `null` when on.
    pub reason: Option<String>,
    /// Clients watching a match's video now.
    pub viewers: usize,
}

/// The recordings part of [`HealthDto`].
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordingsHealth {
    pub dir: String,
    pub files: u64,
    pub bytes: u64,
    /// The disk-use cap, in bytes.
    pub max_bytes: u64,
    pub keep_days: u32,
    /// Sessions whose recording stopped on a write error, and the last such error.
    pub errors: u64,
    pub last_error: Option<String>,
}

/// The bus part of [`HealthDto`].
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BusHealth {
    /// `redis` or `memory`.
    pub backend: &'static str,
    pub ok: bool,
    pub error: Option<String>,
}

/// `/health/live`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Liveness {
    pub live: bool,
}

/// The bytes of a JPEG image (the still endpoint's body).
#[derive(Debug, Clone, Copy)]
pub struct JpegImage;

impl utoipa::PartialSchema for JpegImage {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .content_media_type("image/jpeg")
            .into()
    }
}

impl ToSchema for JpegImage {}

/// The bytes of a session export (JSONL, CSV, JSON or MOT text, by `format`).
#[derive(Debug, Clone, Copy)]
pub struct ExportFile;

impl utoipa::PartialSchema for ExportFile {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .into()
    }
}

impl ToSchema for ExportFile {}

/// The OpenAPI 3.1 document itself (`/api/openapi.json`).
#[derive(Debug, Clone, Copy)]
pub struct OpenApiDocument;

impl utoipa::PartialSchema for OpenApiDocument {
    fn schema() -> RefOr<Schema> {
        ObjectBuilder::new()
            .schema_type(Type::Object)
            .description(Some("An OpenAPI 3.1 document"))
            .required("openapi")
            .required("info")
            .required("paths")
            .into()
    }
}

impl ToSchema for OpenApiDocument {}

/// The store part of [`HealthDto`].
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct StoreHealth {
    pub ok: bool,
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use sportz_contract::{MatchStatus, VideoSource};
    use sportz_store::ProcessingSettings;
    use time::macros::datetime;

    use super::*;

    fn row() -> Match {
        Match {
            id: "match_01JC0000000000000000000000".parse().unwrap(),
            name: "Derby".into(),
            sport: "football".into(),
            home_team: "Arsenal".into(),
            away_team: "Tottenham".into(),
            competition: None,
            start_time: Some(datetime!(2020-05-01 15:00 UTC)),
            end_time: None,
            home_score: 2,
            away_score: 1,
            status: MatchStatus::Ready,
            status_message: None,
            last_error: None,
            video_source: Some(VideoSource::File("/v/a.mp4".into())),
            settings: ProcessingSettings::default(),
            calibration: Vec::new(),
            current_session_id: None,
            event_count: 3,
            created_at: datetime!(2020-04-01 10:00 UTC),
            updated_at: datetime!(2020-04-01 10:00 UTC),
        }
    }

    #[test]
    fn a_match_in_rest_is_camel_case_with_its_phase_and_sorted_keys() {
        let now = datetime!(2020-05-01 16:00 UTC);
        let Json(body) = data(match_dto(&row(), now));
        assert_eq!(
            body.to_string(),
            json!({"data": {
                "awayScore": 1, "awayTeam": "Tottenham", "competition": null,
                "createdAt": "2020-04-01T10:00:00Z", "currentSessionId": null, "endTime": null,
                "eventCount": 3, "homeScore": 2, "homeTeam": "Arsenal",
                "id": "match_01JC0000000000000000000000", "name": "Derby", "phase": "live",
                "sport": "football", "startTime": "2020-05-01T15:00:00Z", "status": "ready",
                "statusMessage": null, "updatedAt": "2020-04-01T10:00:00Z",
                "videoSource": {"type": "file", "value": "/v/a.mp4"}}})
            .to_string()
        );
        let s = score_update(&row());
        assert_eq!((s.match_id, s.home_score, s.away_score), (row().id, 2, 1));
    }

    #[test]
    fn commentary_keeps_every_field() {
        let c = Commentary {
            id: 7,
            match_id: row().id,
            minute: Some(12),
            sequence: 3,
            period: Some("1H".into()),
            event_type: "goal".into(),
            actor: Some("Saka".into()),
            team: None,
            message: "Saka scores".into(),
            metadata: Some(json!({"xg": 0.31})),
            tags: vec!["open-play".into()],
            created_at: datetime!(2020-05-01 15:12 UTC),
        };
        let dto = commentary_dto(c.clone());
        assert_eq!(
            (dto.id, dto.match_id, dto.sequence, dto.tags, dto.metadata),
            (
                c.id,
                c.match_id,
                c.sequence,
                c.tags.clone(),
                c.metadata.clone()
            )
        );
        let Json(body) = page(vec![commentary_dto(c)], None);
        assert_eq!(body["nextCursor"], Value::Null);
        assert_eq!(body["data"][0]["eventType"], "goal");
        assert_eq!(body["data"][0]["createdAt"], "2020-05-01T15:12:00Z");
    }
}
