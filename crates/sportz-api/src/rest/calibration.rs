//! The pitch calibration (get, set: ≥ 4 non-degenerate pairs on a 105×68 pitch), a still of the
//! video to click landmarks on, and the automatic calibration of a still (found, not saved).

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sportz_contract::MatchId;
use sportz_contract::worker::PointPair;

use super::bodies::{AutoCalibrationBody, CalibrationBody};
use super::{PageQuery, S};
use crate::dto::{AutoCalibrationDto, CalibrationDto, Data, JpegImage, data};
use crate::error::{ApiError, ApiResult, ErrorBody};
use crate::extract::{AppJson, AppQuery, MatchPath, Operator, Reader};
use crate::service;
use crate::validate::Body;

#[utoipa::path(
    get,
    path = "/matches/{id}/calibration",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    responses(
        (status = 200, description = "The pairs and their reprojection error", body = Data<CalibrationDto>)
    )
)]
pub(crate) async fn get_calibration(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let (pairs, fit) = service::calibration::get_calibration(&st, id).await?;
    Ok(data(CalibrationDto::new(pairs, fit)))
}

#[utoipa::path(
    put,
    path = "/matches/{id}/calibration",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    request_body = CalibrationBody,
    responses(
        (status = 200, description = "The calibration stored and its reprojection error", body = Data<CalibrationDto>)
    )
)]
pub(crate) async fn set_calibration(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Json<Value>> {
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
    let (m, fit) = service::calibration::set_calibration(&st, id, pairs).await?;
    Ok(data(CalibrationDto::new(m.calibration, Some(fit))))
}

/// A JPEG still of the match's video at `t` seconds, for clicking calibration landmarks.
#[utoipa::path(
    get,
    path = "/matches/{id}/still",
    params(
        ("id" = MatchId, Path, description = "The match"),
        ("t" = Option<f64>, Query, description = "Seconds from the start of the video (default 0)")
    ),
    responses(
        (status = 200, description = "A JPEG frame", body = JpegImage, content_type = "image/jpeg"),
        (status = 409, description = "No frame to show: a synthetic or device source, or no frame at `t`", body = ErrorBody),
        (status = 422, description = "The source is not one this server opens (a private or loopback host, unless allowed)", body = ErrorBody)
    )
)]
pub(crate) async fn still(
    State(st): S,
    AppQuery(q): AppQuery<PageQuery>,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Response> {
    let t = q.t.unwrap_or(0.0).max(0.0);
    let jpeg = service::calibration::still_jpeg(&st, id, t).await?;
    Ok(([(header::CONTENT_TYPE, "image/jpeg")], jpeg).into_response())
}

/// Finds the pitch in the still at `t` without clicks; saves nothing.
#[utoipa::path(
    post,
    path = "/matches/{id}/calibration/auto",
    params(
        ("id" = MatchId, Path, description = "The match")
    ),
    request_body = AutoCalibrationBody,
    responses(
        (status = 200, description = "The camera found from the pitch lines and the point pairs it implies (not saved: PUT them to /matches/{id}/calibration)", body = Data<AutoCalibrationDto>),
        (status = 422, description = "No pitch found in the still (too little grass, no lines, no camera fits), or a source this server does not open (a private or loopback host, unless allowed): the reason", body = ErrorBody)
    )
)]
pub(crate) async fn auto_calibration(
    State(st): S,
    _: Operator,
    MatchPath(id): MatchPath,
    AppJson(raw): AppJson<Value>,
) -> ApiResult<Json<Value>> {
    let mut body = Body::new(raw)?;
    let t = body.opt_f64("t", 0.0..=MAX_T).flatten().unwrap_or(0.0);
    body.finish()?;
    Ok(data(
        service::calibration::auto_calibration(&st, id, t).await?,
    ))
}

/// The latest still time accepted, seconds (a week).
const MAX_T: f64 = 604_800.0;
