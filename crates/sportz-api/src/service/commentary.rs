//! The score (`score_update` to every client) and commentary (`commentary` to the match's room).

use sportz_contract::MatchId;
use sportz_contract::match_centre::ServerMessage;
use sportz_store::{Commentary, Match, NewCommentary, Page, PageRequest};

use crate::dto;
use crate::error::ApiResult;
use crate::fanout::broadcast_or_log;
use crate::state::AppState;

/// Sets the score and broadcasts `score_update`.
///
/// # Errors
/// 404 unknown match.
pub async fn set_score(
    state: &AppState,
    id: MatchId,
    home_score: u32,
    away_score: u32,
) -> ApiResult<Match> {
    let m = state.store.update_score(id, home_score, away_score).await?;
    let msg = ServerMessage::ScoreUpdate {
        data: dto::score_update(&m),
    };
    broadcast_or_log(state, &msg, "score_update").await;
    Ok(m)
}

/// Adds a commentary entry and sends it to the match's room.
///
/// # Errors
/// 404 unknown match, 409 a sequence number the match already has, 400 invalid values.
pub async fn add_commentary(state: &AppState, new: NewCommentary) -> ApiResult<Commentary> {
    let row = state.store.add_commentary(new).await?;
    let msg = ServerMessage::Commentary {
        data: Box::new(dto::commentary_dto(row.clone())),
    };
    broadcast_or_log(state, &msg, "commentary").await;
    Ok(row)
}

/// Newest first, one page.
///
/// # Errors
/// 404 unknown match, 400 a malformed cursor.
pub async fn list_commentary(
    state: &AppState,
    id: MatchId,
    page: PageRequest,
) -> ApiResult<Page<Commentary>> {
    Ok(state.store.list_commentary(id, page).await?)
}
