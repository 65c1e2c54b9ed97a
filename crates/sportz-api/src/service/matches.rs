//! Matches: create (`match_created`), update (`match_updated`), delete (and its control key), get,
//! list.

use sportz_contract::MatchId;
use sportz_contract::match_centre::ServerMessage;
use sportz_store::{Match, MatchFilter, MatchUpdate, NewMatch, Page};

use super::announce_match_updated;
use crate::dto;
use crate::error::{ApiError, ApiResult};
use crate::fanout::broadcast_or_log;
use crate::state::AppState;

/// Creates a match (`draft`, or `ready` with a video source) and broadcasts `match_created`.
///
/// # Errors
/// 400 when `end_time` is before `start_time` or a field is empty (the store's checks).
pub async fn create_match(state: &AppState, new: NewMatch) -> ApiResult<Match> {
    if let (Some(s), Some(e)) = (new.start_time, new.end_time)
        && e < s
    {
        return Err(ApiError::field("endTime", "must not be before startTime"));
    }
    let m = state.store.create_match(new).await?;
    let msg = ServerMessage::MatchCreated {
        data: Box::new(dto::match_dto(&m, sportz_store::now())),
    };
    broadcast_or_log(state, &msg, "match_created").await;
    Ok(m)
}

/// Applies a partial update and broadcasts `match_updated`.
///
/// # Errors
/// 404 unknown match, 400 invalid values, 409 a source or settings change while processing.
pub async fn update_match(state: &AppState, id: MatchId, update: MatchUpdate) -> ApiResult<Match> {
    let m = state.store.update_match(id, update).await?;
    announce_match_updated(state, &m).await;
    Ok(m)
}

/// Deletes a match with its commentary, sessions and events, then its control key.
///
/// # Errors
/// 404 unknown match, 409 while it is processing.
pub async fn delete_match(state: &AppState, id: MatchId) -> ApiResult<()> {
    state.store.delete_match(id).await?;
    if let Err(e) = state
        .bus
        .raw()
        .del(&sportz_contract::keys::control(&id))
        .await
    {
        tracing::warn!(match_id = %id, "control key not removed: {e}");
    }
    Ok(())
}

/// One match.
///
/// # Errors
/// 404 unknown match.
pub async fn get_match(state: &AppState, id: MatchId) -> ApiResult<Match> {
    Ok(state.store.get_match(id).await?)
}

/// Newest first, filtered, one page.
///
/// # Errors
/// 400 a malformed cursor or a zero limit.
pub async fn list_matches(state: &AppState, filter: MatchFilter) -> ApiResult<Page<Match>> {
    Ok(state.store.list_matches(filter).await?)
}
