//! Session controls (start, pause, stop, restart: the table in [`crate::sessions`]), the
//! sessions of a match and its detected events.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Serialize;
use serde_json::{Value, json};
use sportz_contract::{EventKind, MatchId, SessionId};
use sportz_store::EventFilter;

use super::{PageQuery, S, data, page};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ControlPath, MatchPath, Operator, Reader, match_id};
use crate::sessions;

pub(crate) async fn control(
    State(st): S,
    path: ControlPath,
    _: Operator,
) -> ApiResult<Json<Value>> {
    let m = sessions::act(&st, match_id(&path.raw_id)?, path.action).await?;
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

pub(crate) async fn list_sessions(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let rows = st.store.list_sessions(id).await?;
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

pub(crate) async fn list_events(
    State(st): S,
    Query(q): Query<PageQuery>,
    _: Reader,
    Path(id): Path<String>,
) -> ApiResult<Json<Value>> {
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
            match_id: match_id(&id)?,
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
