//! Session controls (start, pause, stop, restart: the table in [`crate::service::sessions`]), the
//! sessions of a match and its detected events.

use axum::Json;
use axum::extract::{Path, Query, State};
use serde_json::Value;
use sportz_contract::{EventKind, SessionId};
use sportz_store::EventFilter;

use super::{PageQuery, S};
use crate::dto::{self, EventDto, SessionDto, data, page};
use crate::error::{ApiError, ApiResult};
use crate::extract::{ControlPath, MatchPath, Operator, Reader, match_id};
use crate::service;

pub(crate) async fn control(
    State(st): S,
    path: ControlPath,
    _: Operator,
) -> ApiResult<Json<Value>> {
    let m = service::sessions::act(&st, match_id(&path.raw_id)?, path.action).await?;
    Ok(data(dto::match_dto(&m, sportz_store::now())))
}

pub(crate) async fn list_sessions(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let rows = service::sessions::list(&st, id).await?;
    let dtos: Vec<SessionDto> = rows.into_iter().map(Into::into).collect();
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
    let p = service::sessions::events(
        &st,
        EventFilter {
            match_id: match_id(&id)?,
            kind,
            session_id,
            page: q.page(),
        },
    )
    .await?;
    let items: Vec<EventDto> = p.items.into_iter().map(Into::into).collect();
    Ok(page(items, p.next_cursor))
}
