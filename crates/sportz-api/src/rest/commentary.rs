//! The score (broadcasts `score_update` to everyone) and commentary (to the match's room).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sportz_contract::MatchId;
use sportz_contract::match_centre::{CommentaryDto, MatchDto};
use sportz_store::NewCommentary;

use super::bodies::{CommentaryBody, ScoreBody};
use super::{PageQuery, S};
use crate::dto::{self, Data, Paged, data, page};
use crate::error::ApiResult;
use crate::extract::{AppJson, AppQuery, MatchPath, Operator, Reader};
use crate::service;
use crate::validate::Body;

#[utoipa::path(
    patch,
    path = "/matches/{id}/score",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    request_body = ScoreBody,
    responses(
        (status = 200, description = "The match with its new score", body = Data<MatchDto>)
    )
)]
pub(crate) async fn update_score(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Json<Value>> {
    let mut b = Body::new(raw)?;
    let home = b.req_u32("homeScore", 0..=999);
    let away = b.req_u32("awayScore", 0..=999);
    b.finish()?;
    let (home, away) = (home.unwrap_or_default(), away.unwrap_or_default());
    let m = service::commentary::set_score(&st, id, home, away).await?;
    Ok(data(dto::match_dto(&m, sportz_store::now())))
}

#[utoipa::path(
    get,
    path = "/matches/{id}/commentary",
    params(
        ("id" = MatchId, Path, description = "The match"),
        ("limit" = Option<u32>, Query, description = "Rows per page, 1 to 500 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The `nextCursor` of the previous page")
    ),
    responses(
        (status = 200, description = "One page of commentary, newest first", body = Paged<CommentaryDto>)
    )
)]
pub(crate) async fn list_commentary(
    State(st): S,
    AppQuery(q): AppQuery<PageQuery>,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let p = service::commentary::list_commentary(&st, id, q.page()).await?;
    let items: Vec<_> = p.items.into_iter().map(dto::commentary_dto).collect();
    Ok(page(items, p.next_cursor))
}

#[utoipa::path(
    post,
    path = "/matches/{id}/commentary",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    request_body = CommentaryBody,
    responses(
        (status = 201, description = "The entry added", body = Data<CommentaryDto>)
    )
)]
pub(crate) async fn add_commentary(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Response> {
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
    let row = service::commentary::add_commentary(
        &st,
        NewCommentary {
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
        },
    )
    .await?;
    Ok((StatusCode::CREATED, data(dto::commentary_dto(row))).into_response())
}
