//! Session controls (start, pause, stop, restart: the table in [`crate::service::sessions`]), the
//! sessions of a match and its detected events.

use axum::Json;
use axum::extract::{Path, State};
use serde_json::Value;
use sportz_contract::{EventKind, MatchId, SessionId};
use sportz_store::EventFilter;

use super::{PageQuery, S};
use crate::dto::{self, Data, EventDto, Paged, SessionDto, data, page};
use crate::error::{ApiError, ApiResult};
use crate::extract::{AppQuery, MatchPath, Operator, Reader, match_id};
use crate::service;
use crate::service::sessions::Action;
use crate::state::AppState;
use sportz_contract::match_centre::MatchDto;

#[utoipa::path(
    post,
    path = "/matches/{id}/start",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "Started (a new session) or resumed", body = Data<MatchDto>)
    )
)]
pub(crate) async fn start(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    control(&st, id, Action::Start).await
}

#[utoipa::path(
    post,
    path = "/matches/{id}/pause",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "Pause requested", body = Data<MatchDto>)
    )
)]
pub(crate) async fn pause(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    control(&st, id, Action::Pause).await
}

#[utoipa::path(
    post,
    path = "/matches/{id}/stop",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "Stop requested (applied at once when no worker holds the match)", body = Data<MatchDto>)
    )
)]
pub(crate) async fn stop(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    control(&st, id, Action::Stop).await
}

#[utoipa::path(
    post,
    path = "/matches/{id}/restart",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "Restarted in a new session", body = Data<MatchDto>)
    )
)]
pub(crate) async fn restart(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    control(&st, id, Action::Restart).await
}

async fn control(st: &AppState, id: MatchId, action: Action) -> ApiResult<Json<Value>> {
    let m = service::sessions::act(st, id, action).await?;
    Ok(data(dto::match_dto(&m, sportz_store::now())))
}

/// `POST /matches/{id}/{action}` for any other action: 404 (before the token is checked).
pub(crate) async fn unknown_action(Path((_, action)): Path<(String, String)>) -> ApiError {
    ApiError::NotFound(format!(
        "unknown action `{action}`, expected start, pause, stop or restart"
    ))
}

#[utoipa::path(
    get,
    path = "/matches/{id}/sessions",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "The match's sessions, newest first", body = Data<Vec<SessionDto>>)
    )
)]
pub(crate) async fn list_sessions(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let rows = service::sessions::list(&st, id).await?;
    let dtos: Vec<SessionDto> = rows.into_iter().map(Into::into).collect();
    Ok(data(dtos))
}

#[utoipa::path(
    get,
    path = "/matches/{id}/events",
    params(
        ("id" = MatchId, Path, description = "The match"),
        ("limit" = Option<u32>, Query, description = "Rows per page, 1 to 500 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The `nextCursor` of the previous page"),
        ("kind" = Option<EventKind>, Query, description = "Only events of this kind"),
        ("sessionId" = Option<SessionId>, Query, description = "Only events of this session")
    ),
    responses(
        (status = 200, description = "One page of events, in frame order", body = Paged<EventDto>)
    )
)]
pub(crate) async fn list_events(
    State(st): S,
    AppQuery(q): AppQuery<PageQuery>,
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
