//! The REST routes, the router (with rate limits, metrics and the web UI), and the OpenAPI
//! document generated from the same route table.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sportz_contract::match_centre::{MatchPhase, ScoreUpdate, ServerMessage};
use sportz_contract::status::MatchStatus;
use sportz_contract::worker::{PointPair, VideoSource};
use sportz_contract::{EventKind, MatchId, PITCH_LENGTH_M, PITCH_WIDTH_M, SessionId};
use sportz_store::{
    EventFilter, MatchFilter, MatchUpdate, NewCommentary, NewMatch, PageRequest, ProcessingSettings,
};

use crate::auth::{bearer, require_operator, require_reader};
use crate::error::{ApiError, ApiResult};
use crate::fanout::broadcast_or_log;
use crate::sessions::{self, Action};
use crate::state::AppState;
use crate::validate::Body;

type S = State<Arc<AppState>>;

fn parse_id(raw: &str) -> ApiResult<MatchId> {
    raw.parse().map_err(|e: sportz_contract::ContractError| {
        ApiError::NotFound(format!("match `{raw}` not found ({e})"))
    })
}

fn data<T: Serialize>(v: T) -> Json<Value> {
    Json(json!({ "data": v }))
}

fn page<T: Serialize>(items: Vec<T>, next: Option<String>) -> Json<Value> {
    Json(json!({ "data": items, "nextCursor": next }))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    limit: Option<u32>,
    cursor: Option<String>,
    status: Option<String>,
    phase: Option<String>,
    kind: Option<String>,
    session_id: Option<String>,
    t: Option<f64>,
}

impl PageQuery {
    fn page(&self) -> PageRequest {
        PageRequest {
            cursor: self.cursor.clone(),
            limit: self.limit,
        }
    }
}

async fn reader(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    require_reader(state, bearer(headers)).await
}

// ---- matches ----------------------------------------------------------------------------------

async fn list_matches(
    State(st): S,
    headers: HeaderMap,
    Query(q): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let status = q
        .status
        .as_deref()
        .map(str::parse::<MatchStatus>)
        .transpose()
        .map_err(|e| ApiError::field("status", e))?;
    let phase = match q.phase.as_deref() {
        None => None,
        Some("scheduled") => Some((MatchPhase::Scheduled, sportz_store::now())),
        Some("live") => Some((MatchPhase::Live, sportz_store::now())),
        Some("finished") => Some((MatchPhase::Finished, sportz_store::now())),
        Some(other) => {
            return Err(ApiError::field(
                "phase",
                format!("unknown phase `{other}`, expected scheduled, live or finished"),
            ));
        }
    };
    let p = st
        .store
        .list_matches(MatchFilter {
            status,
            phase,
            page: q.page(),
        })
        .await?;
    let now = sportz_store::now();
    Ok(page(
        p.items.iter().map(|m| m.to_dto(now)).collect(),
        p.next_cursor,
    ))
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct SettingsBody {
    target_fps: Option<f64>,
    realtime: Option<bool>,
    model: Option<String>,
    confidence_threshold: Option<f64>,
    enable_tracking: Option<bool>,
    enable_teams: Option<bool>,
    enable_events: Option<bool>,
}

fn settings_field(
    body: &Value,
    base: &ProcessingSettings,
) -> Result<Option<ProcessingSettings>, ApiError> {
    let Some(v) = body.get("settings").filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let s: SettingsBody = serde_json::from_value(v.clone()).map_err(|e| {
        ApiError::field(
            "settings",
            format!("{e}; expected {{targetFps?, realtime?, model?, confidenceThreshold?, enableTracking?, enableTeams?, enableEvents?}}"),
        )
    })?;
    let mut out = base.clone();
    if let Some(f) = s.target_fps {
        if !(f.is_finite() && f > 0.0 && f <= 120.0) {
            return Err(ApiError::field(
                "settings.targetFps",
                "expected a number of frames per second from 0 to 120",
            ));
        }
        out.target_fps = Some(f);
    }
    if let Some(c) = s.confidence_threshold {
        if !(0.0..=1.0).contains(&c) {
            return Err(ApiError::field(
                "settings.confidenceThreshold",
                "expected a number from 0 to 1",
            ));
        }
        out.confidence_threshold = c;
    }
    out.realtime = s.realtime.unwrap_or(out.realtime);
    out.model = s.model.or(out.model);
    out.enable_tracking = s.enable_tracking.unwrap_or(out.enable_tracking);
    out.enable_teams = s.enable_teams.unwrap_or(out.enable_teams);
    out.enable_events = s.enable_events.unwrap_or(out.enable_events);
    Ok(Some(out))
}

async fn create_match(
    State(st): S,
    headers: HeaderMap,
    body: Result<Json<Value>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Response> {
    require_operator(&st, &headers).await?;
    let Json(raw) = body?;
    let settings = settings_field(&raw, &ProcessingSettings::default())?;
    let mut b = Body::new(raw)?;
    let home = b.req_str("homeTeam", 100);
    let away = b.req_str("awayTeam", 100);
    let name = b.opt_str("name", 200).flatten();
    let sport = b.opt_str("sport", 50).flatten();
    let competition = b.opt_str("competition", 200).flatten();
    let start = b.opt_time("startTime").flatten();
    let end = b.opt_time("endTime").flatten();
    let source = b.opt_video_source("videoSource").flatten();
    b.finish()?;
    let (home, away) = (home.unwrap_or_default(), away.unwrap_or_default());
    if let (Some(s), Some(e)) = (start, end)
        && e < s
    {
        return Err(ApiError::field("endTime", "must not be before startTime"));
    }
    let name = name.unwrap_or_else(|| format!("{home} v {away}"));
    let mut new = NewMatch::new(&name, &home, &away);
    if let Some(s) = sport {
        new.sport = s;
    }
    new.competition = competition;
    new.start_time = start;
    new.end_time = end;
    new.video_source = source;
    if let Some(s) = settings {
        new.settings = s;
    }
    let m = st.store.create_match(new).await?;
    let dto = m.to_dto(sportz_store::now());
    broadcast_or_log(
        &st,
        &ServerMessage::MatchCreated {
            data: Box::new(dto.clone()),
        },
        "match_created",
    )
    .await;
    Ok((StatusCode::CREATED, data(dto)).into_response())
}

async fn get_match(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let m = st.store.get_match(parse_id(&id)?).await?;
    Ok(data(m.to_dto(sportz_store::now())))
}

async fn update_match(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Value>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Json<Value>> {
    require_operator(&st, &headers).await?;
    let id = parse_id(&id)?;
    let Json(raw) = body?;
    let current = st.store.get_match(id).await?;
    let settings = settings_field(&raw, &current.settings)?;
    let mut b = Body::new(raw)?;
    let update = MatchUpdate {
        name: b.opt_str("name", 200).flatten(),
        sport: b.opt_str("sport", 50).flatten(),
        home_team: b.opt_str("homeTeam", 100).flatten(),
        away_team: b.opt_str("awayTeam", 100).flatten(),
        competition: b.opt_str("competition", 200),
        start_time: b.opt_time("startTime"),
        end_time: b.opt_time("endTime"),
        video_source: b.opt_video_source("videoSource"),
        settings,
        ..MatchUpdate::default()
    };
    b.finish()?;
    let m = st.store.update_match(id, update).await?;
    sessions::announce(&st, &m).await;
    Ok(data(m.to_dto(sportz_store::now())))
}

async fn delete_match(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<StatusCode> {
    require_operator(&st, &headers).await?;
    let id = parse_id(&id)?;
    st.store.delete_match(id).await?;
    if let Err(e) = st.bus.raw().del(&sportz_contract::keys::control(&id)).await {
        tracing::warn!(match_id = %id, "control key not removed: {e}");
    }
    Ok(StatusCode::NO_CONTENT)
}

async fn update_score(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Value>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Json<Value>> {
    require_operator(&st, &headers).await?;
    let id = parse_id(&id)?;
    let Json(raw) = body?;
    let mut b = Body::new(raw)?;
    let home = b.req_u32("homeScore", 0..=999);
    let away = b.req_u32("awayScore", 0..=999);
    b.finish()?;
    let (home, away) = (home.unwrap_or_default(), away.unwrap_or_default());
    let m = st.store.update_score(id, home, away).await?;
    let msg = ServerMessage::ScoreUpdate {
        data: ScoreUpdate {
            match_id: id,
            home_score: m.home_score,
            away_score: m.away_score,
        },
    };
    broadcast_or_log(&st, &msg, "score_update").await;
    Ok(data(m.to_dto(sportz_store::now())))
}

// ---- commentary -------------------------------------------------------------------------------

async fn list_commentary(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let p = st.store.list_commentary(parse_id(&id)?, q.page()).await?;
    let items: Vec<sportz_contract::match_centre::CommentaryDto> =
        p.items.into_iter().map(Into::into).collect();
    Ok(page(items, p.next_cursor))
}

async fn add_commentary(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Value>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Response> {
    require_operator(&st, &headers).await?;
    let id = parse_id(&id)?;
    let Json(raw) = body?;
    let mut b = Body::new(raw)?;
    let sequence = b.req_u32("sequence", 1..=u32::MAX);
    let event_type = b.req_str("eventType", 50);
    let message = b.req_str("message", 2000);
    let minute = b.opt_u32("minute", 0..=200).flatten();
    let period = b.opt_str("period", 50).flatten();
    let actor = b.opt_str("actor", 100).flatten();
    let team = b.opt_str("team", 100).flatten();
    let metadata = b.opt_object("metadata").flatten();
    let tags = b.opt_strings("tags", 20, 50).unwrap_or_default();
    b.finish()?;
    let row = st
        .store
        .add_commentary(NewCommentary {
            match_id: id,
            minute,
            sequence: sequence.unwrap_or_default(),
            period,
            event_type: event_type.unwrap_or_default(),
            actor,
            team,
            message: message.unwrap_or_default(),
            metadata,
            tags,
        })
        .await?;
    let dto: sportz_contract::match_centre::CommentaryDto = row.into();
    broadcast_or_log(
        &st,
        &ServerMessage::Commentary {
            data: Box::new(dto.clone()),
        },
        "commentary",
    )
    .await;
    Ok((StatusCode::CREATED, data(dto)).into_response())
}

// ---- sessions and events ----------------------------------------------------------------------

async fn control(
    State(st): S,
    headers: HeaderMap,
    Path((id, action)): Path<(String, String)>,
) -> ApiResult<Json<Value>> {
    let action = match action.as_str() {
        "start" => Action::Start,
        "pause" => Action::Pause,
        "stop" => Action::Stop,
        "restart" => Action::Restart,
        other => {
            return Err(ApiError::NotFound(format!(
                "unknown action `{other}`, expected start, pause, stop or restart"
            )));
        }
    };
    require_operator(&st, &headers).await?;
    let m = sessions::act(&st, parse_id(&id)?, action).await?;
    Ok(data(m.to_dto(sportz_store::now())))
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct SessionDto {
    id: SessionId,
    match_id: MatchId,
    worker_id: Option<String>,
    status: sportz_contract::SessionStatus,
    device: Option<String>,
    frames_processed: u64,
    avg_fps: Option<f64>,
    avg_latency_ms: Option<f64>,
    error: Option<String>,
    #[serde(with = "time::serde::rfc3339")]
    started_at: time::OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    stopped_at: Option<time::OffsetDateTime>,
    config: sportz_contract::worker::SessionConfig,
}

async fn list_sessions(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let rows = st.store.list_sessions(parse_id(&id)?).await?;
    let dtos: Vec<SessionDto> = rows
        .into_iter()
        .map(|s| SessionDto {
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
        })
        .collect();
    Ok(data(dtos))
}

async fn list_events(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let kind = q
        .kind
        .as_deref()
        .map(str::parse::<EventKind>)
        .transpose()
        .map_err(|e| ApiError::field("kind", e))?;
    let session_id = q
        .session_id
        .as_deref()
        .map(str::parse::<SessionId>)
        .transpose()
        .map_err(|e| ApiError::field("sessionId", e.to_string()))?;
    let p = st
        .store
        .list_events(EventFilter {
            match_id: parse_id(&id)?,
            kind,
            session_id,
            page: q.page(),
        })
        .await?;
    let items: Vec<Value> = p
        .items
        .into_iter()
        .map(|e| {
            json!({
                "id": e.id,
                "matchId": e.match_id,
                "sessionId": e.session_id,
                "createdAt": e.created_at.format(&time::format_description::well_known::Rfc3339).unwrap_or_default(),
                "event": e.data,
            })
        })
        .collect();
    Ok(page(items, p.next_cursor))
}

// ---- calibration ------------------------------------------------------------------------------

/// Fits the pairs; the reprojection error on success, the reason on failure.
pub fn fit_calibration(
    pairs: &[PointPair],
) -> Result<sportz_vision::pitch::ReprojectionError, String> {
    sportz_vision::pitch::Calibration::fit_contract(pairs)
        .map(|c| c.error)
        .map_err(|e| e.to_string())
}

fn calibration_view(pairs: &[PointPair]) -> Value {
    let err = if pairs.len() >= 4 {
        fit_calibration(pairs).ok()
    } else {
        None
    };
    json!({
        "pairs": pairs,
        "reprojectionErrorPx": err.map(|e| e.rms_px),
        "reprojectionErrorM": err.map(|e| e.rms_m),
    })
}

async fn get_calibration(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    let pairs = st.store.get_calibration(parse_id(&id)?).await?;
    Ok(data(calibration_view(&pairs)))
}

async fn set_calibration(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Result<Json<Value>, axum::extract::rejection::JsonRejection>,
) -> ApiResult<Json<Value>> {
    require_operator(&st, &headers).await?;
    let id = parse_id(&id)?;
    let Json(raw) = body?;
    let pairs: Vec<PointPair> = raw
        .get("pairs")
        .cloned()
        .ok_or_else(|| ApiError::field("pairs", "is required"))
        .and_then(|v| {
            serde_json::from_value(v).map_err(|e| {
                ApiError::field(
                    "pairs",
                    format!(
                        "expected [{{\"pixel\":{{\"x\",\"y\"}},\"pitch\":{{\"x\",\"y\"}}}}, …]: {e}"
                    ),
                )
            })
        })?;
    if pairs.len() < 4 {
        return Err(ApiError::field(
            "pairs",
            format!("need at least 4 point pairs, got {}", pairs.len()),
        ));
    }
    let margin = 5.0;
    if let Some((i, _)) = pairs.iter().enumerate().find(|(_, p)| {
        !(-margin..=PITCH_LENGTH_M + margin).contains(&p.pitch.x)
            || !(-margin..=PITCH_WIDTH_M + margin).contains(&p.pitch.y)
    }) {
        return Err(ApiError::field(
            &format!("pairs[{i}].pitch"),
            "expected metres on a 105×68 pitch (x 0..105, y 0..68)",
        ));
    }
    fit_calibration(&pairs).map_err(|why| ApiError::field("pairs", why))?;
    let m = st.store.set_calibration(id, pairs).await?;
    Ok(data(calibration_view(&m.calibration)))
}

/// A JPEG still of the match's video at `t` seconds, for clicking calibration landmarks.
async fn still(
    State(st): S,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> ApiResult<Response> {
    reader(&st, &headers).await?;
    let m = st.store.get_match(parse_id(&id)?).await?;
    let t = q.t.unwrap_or(0.0).max(0.0);
    let input = match &m.video_source {
        Some(
            VideoSource::File(p)
            | VideoSource::Http(p)
            | VideoSource::Rtmp(p)
            | VideoSource::Rtsp(p)
            | VideoSource::Srt(p),
        ) => p.clone(),
        Some(other) => {
            return Err(ApiError::Conflict(format!(
                "no still image for a {other:?} source"
            )));
        }
        None => return Err(ApiError::Conflict("the match has no video source".into())),
    };
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(15),
        tokio::process::Command::new("ffmpeg")
            .args([
                "-hide_banner",
                "-loglevel",
                "error",
                "-nostdin",
                "-ss",
                &format!("{t:.3}"),
                "-i",
                &input,
            ])
            .args(["-frames:v", "1", "-f", "image2", "-c:v", "mjpeg", "-"])
            .kill_on_drop(true)
            .output(),
    )
    .await
    .map_err(|_| ApiError::Unavailable("timed out reading a frame of the video".into()))?
    .map_err(|e| ApiError::Internal(format!("ffmpeg: {e}")))?;
    if !out.status.success() || out.stdout.is_empty() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(ApiError::Conflict(format!(
            "cannot read a frame at {t} s: {}",
            err.lines().last().unwrap_or("no frame")
        )));
    }
    Ok(([(header::CONTENT_TYPE, "image/jpeg")], out.stdout).into_response())
}

// ---- system -----------------------------------------------------------------------------------

async fn workers(State(st): S, headers: HeaderMap) -> ApiResult<Json<Value>> {
    reader(&st, &headers).await?;
    Ok(data(st.bus.heartbeats().await?))
}

async fn health(State(st): S) -> Response {
    let bus = st.bus.raw().ping().await;
    let store = st.store.ping().await;
    let fanout = st.fanout_ready.load(std::sync::atomic::Ordering::SeqCst);
    let ready = bus.is_ok() && store.is_ok() && fanout;
    let body = json!({
        "live": true,
        "ready": ready,
        "bus": {"backend": st.bus.raw().backend(), "ok": bus.is_ok(), "error": bus.err().map(|e| e.to_string())},
        "store": {"ok": store.is_ok(), "error": store.err().map(|e| e.to_string())},
        "fanout": fanout,
    });
    let code = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(body)).into_response()
}

async fn live() -> Json<Value> {
    Json(json!({"live": true}))
}

async fn prometheus(State(st): S) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        st.metrics.encode(),
    )
        .into_response()
}

/// One documented route.
#[derive(Debug)]
pub struct RouteDoc {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub operator: bool,
}

/// Every route, documented; the OpenAPI document is generated from this table and a test checks
/// that each entry is routed.
pub const ROUTES: &[RouteDoc] = &[
    RouteDoc {
        method: "get",
        path: "/matches",
        summary: "List matches (filters: status, phase; cursor, limit)",
        operator: false,
    },
    RouteDoc {
        method: "post",
        path: "/matches",
        summary: "Create a match (broadcasts match_created)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}",
        summary: "Get a match",
        operator: false,
    },
    RouteDoc {
        method: "patch",
        path: "/matches/{id}",
        summary: "Update a match",
        operator: true,
    },
    RouteDoc {
        method: "delete",
        path: "/matches/{id}",
        summary: "Delete a match (409 while processing)",
        operator: true,
    },
    RouteDoc {
        method: "patch",
        path: "/matches/{id}/score",
        summary: "Update the score (broadcasts score_update)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/commentary",
        summary: "List commentary, newest first",
        operator: false,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/commentary",
        summary: "Post commentary (to the match's room)",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/start",
        summary: "Start (or resume) processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/pause",
        summary: "Pause processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/stop",
        summary: "Stop processing",
        operator: true,
    },
    RouteDoc {
        method: "post",
        path: "/matches/{id}/restart",
        summary: "Restart in a new session",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/sessions",
        summary: "List processing sessions",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/events",
        summary: "List detected events (filters: kind, sessionId; cursor, limit)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/calibration",
        summary: "Get the pitch calibration and its reprojection error",
        operator: false,
    },
    RouteDoc {
        method: "put",
        path: "/matches/{id}/calibration",
        summary: "Set the pitch calibration (≥ 4 non-degenerate pairs)",
        operator: true,
    },
    RouteDoc {
        method: "get",
        path: "/matches/{id}/still",
        summary: "A JPEG frame of the video at ?t= seconds",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/api/workers",
        summary: "Workers from their heartbeats",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/api/openapi.json",
        summary: "This document",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/health",
        summary: "Liveness and readiness (bus, store, fan-out)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/health/live",
        summary: "Liveness only",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/metrics",
        summary: "Prometheus metrics",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/ws",
        summary: "Match-centre WebSocket (welcome, subscribe, match_created, score_update, commentary)",
        operator: false,
    },
    RouteDoc {
        method: "get",
        path: "/ws/matches/{id}",
        summary: "Live tracking WebSocket: snapshot then relay of contract messages",
        operator: false,
    },
];

/// The OpenAPI 3.1 document of [`ROUTES`].
#[must_use]
pub fn openapi() -> Value {
    let mut paths = serde_json::Map::new();
    for r in ROUTES {
        let entry = paths.entry(r.path.to_owned()).or_insert_with(|| json!({}));
        let mut op = json!({
            "summary": r.summary,
            "responses": {
                "200": {"description": "OK: `{data: …}`"},
                "400": {"description": "Validation failed: `{error: {code, message, fields}}`"},
                "404": {"description": "Not found"},
                "429": {"description": "Rate limited (Retry-After)"}
            }
        });
        if r.path.contains("{id}") {
            op["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^match_[0-9A-HJKMNP-TV-Z]{26}$"}}]);
        }
        if r.operator {
            op["security"] = json!([{"operator": []}]);
            op["responses"]["401"] = json!({"description": "Missing or unknown operator token"});
        }
        entry[r.method] = op;
    }
    json!({
        "openapi": "3.1.0",
        "info": {"title": "sportz API", "version": env!("CARGO_PKG_VERSION")},
        "components": {"securitySchemes": {"operator": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    })
}

async fn openapi_json() -> Json<Value> {
    Json(openapi())
}

// ---- middleware and router --------------------------------------------------------------------

pub(crate) fn client_ip(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip())
}

async fn limit_and_measure(State(st): S, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    // the API is limited; the web UI's static files, health checks, metrics and WebSocket
    // upgrades (which have their own limit) are not
    let limited = path.starts_with("/matches") || path.starts_with("/api/");
    let exempt = !limited;
    if !exempt && let Err(retry) = st.http_limiter.check(client_ip(&req)) {
        st.metrics.rate_limited.inc();
        return ApiError::RateLimited {
            retry_after_secs: retry,
        }
        .into_response();
    }
    let started = Instant::now();
    let resp = next.run(req).await;
    if !path.starts_with("/ws") {
        st.metrics
            .http_latency
            .observe(started.elapsed().as_secs_f64());
        st.metrics
            .http_requests
            .get_or_create(&crate::metrics::HttpLabels {
                method: method.to_string(),
                status: resp.status().as_u16(),
            })
            .inc();
    }
    resp
}

async fn no_ui() -> Html<&'static str> {
    Html(
        "<!doctype html><title>sportz</title><p>The sportz API is running. The web UI is not built: run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>.</p>",
    )
}

async fn not_found(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no route for {method} {}", uri.path()))
}

/// The whole HTTP surface.
pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.config.max_message_bytes;
    let api = Router::new()
        .route("/matches", get(list_matches).post(create_match))
        .route(
            "/matches/{id}",
            get(get_match).patch(update_match).delete(delete_match),
        )
        .route("/matches/{id}/score", axum::routing::patch(update_score))
        .route(
            "/matches/{id}/commentary",
            get(list_commentary).post(add_commentary),
        )
        .route("/matches/{id}/sessions", get(list_sessions))
        .route("/matches/{id}/events", get(list_events))
        .route(
            "/matches/{id}/calibration",
            get(get_calibration).put(set_calibration),
        )
        .route("/matches/{id}/still", get(still))
        .route("/matches/{id}/{action}", post(control))
        .route("/api/workers", get(workers))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/{*rest}", axum::routing::any(not_found))
        .route("/health", get(health))
        .route("/health/live", get(live))
        .route("/metrics", get(prometheus))
        .route("/ws", get(crate::ws::centre))
        .route("/ws/matches/{id}", get(crate::ws::live));
    let with_ui = match state
        .config
        .ui_dir
        .clone()
        .filter(|d| d.join("index.html").is_file())
    {
        Some(dir) => {
            let index = dir.join("index.html");
            api.fallback_service(
                tower_http::services::ServeDir::new(dir)
                    .fallback(tower_http::services::ServeFile::new(index)),
            )
        }
        None => api.route("/", get(no_ui)).fallback(not_found),
    };
    with_ui
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            limit_and_measure,
        ))
        .with_state(state)
}
