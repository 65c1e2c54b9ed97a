//! Matches: list (filters, pages), create (broadcasts `match_created`), get, update (broadcasts
//! `match_updated`), delete.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sportz_contract::MatchId;
use sportz_contract::match_centre::{MatchDto, MatchPhase};
use sportz_contract::status::MatchStatus;
use sportz_store::{MatchFilter, MatchUpdate, NewMatch, ProcessingSettings};

use super::bodies::SettingsBody;
use super::bodies::{CreateMatchBody, UpdateMatchBody};
use super::{PageQuery, S};
use crate::dto::{self, Data, Paged, data, page};
use crate::error::{ApiError, ApiResult};
use crate::extract::{AppJson, AppQuery, MatchPath, Operator, Reader};
use crate::service;
use crate::validate::Body;

#[utoipa::path(
    get,
    path = "/matches",
    params(
        ("limit" = Option<u32>, Query, description = "Rows per page, 1 to 500 (default 50)"),
        ("cursor" = Option<String>, Query, description = "The `nextCursor` of the previous page"),
        ("status" = Option<MatchStatus>, Query, description = "Only matches with this status"),
        ("phase" = Option<MatchPhase>, Query, description = "Only matches in this phase now")
    ),
    responses(
        (status = 200, description = "One page of matches, newest first", body = Paged<MatchDto>)
    )
)]
pub(crate) async fn list_matches(
    State(st): S,
    AppQuery(q): AppQuery<PageQuery>,
    _: Reader,
) -> ApiResult<Json<Value>> {
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
    let p = service::matches::list_matches(
        &st,
        MatchFilter {
            status,
            phase,
            page: q.page(),
        },
    )
    .await?;
    let now = sportz_store::now();
    Ok(page(
        p.items.iter().map(|m| dto::match_dto(m, now)).collect(),
        p.next_cursor,
    ))
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

#[utoipa::path(
    post,
    path = "/matches",
    request_body = CreateMatchBody,
    responses(
        (status = 201, description = "The match created", body = Data<MatchDto>)
    )
)]
pub(crate) async fn create_match(
    State(st): S,
    _: Operator,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Response> {
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
    let m = service::matches::create_match(&st, new).await?;
    Ok((
        StatusCode::CREATED,
        data(dto::match_dto(&m, sportz_store::now())),
    )
        .into_response())
}

#[utoipa::path(
    get,
    path = "/matches/{id}",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "The match", body = Data<MatchDto>)
    )
)]
pub(crate) async fn get_match(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let m = service::matches::get_match(&st, id).await?;
    Ok(data(dto::match_dto(&m, sportz_store::now())))
}

#[utoipa::path(
    patch,
    path = "/matches/{id}",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    request_body = UpdateMatchBody,
    responses(
        (status = 200, description = "The match updated", body = Data<MatchDto>)
    )
)]
pub(crate) async fn update_match(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Json<Value>> {
    let current = service::matches::get_match(&st, id).await?;
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
    let m = service::matches::update_match(&st, id, update).await?;
    Ok(data(dto::match_dto(&m, sportz_store::now())))
}

#[utoipa::path(
    delete,
    path = "/matches/{id}",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 204, description = "Deleted, with its commentary, sessions and events")
    )
)]
pub(crate) async fn delete_match(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
) -> ApiResult<StatusCode> {
    service::matches::delete_match(&st, id).await?;
    Ok(StatusCode::NO_CONTENT)
}
