//! The pitch calibration (get, set: ≥ 4 non-degenerate pairs on a 105×68 pitch) and a still of
//! the video to click landmarks on.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use sportz_contract::MatchId;
use sportz_contract::worker::{PointPair, VideoSource};

use super::bodies::CalibrationBody;
use super::{PageQuery, S};
use crate::dto::{CalibrationDto, Data, JpegImage, data};
use crate::error::{ApiError, ApiResult};
use crate::extract::{AppJson, AppQuery, MatchPath, Operator, Reader};
use crate::service;

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
    let pairs = service::calibration::get_calibration(&st, id).await?;
    let fit = service::calibration::reprojection_error(&pairs);
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
    let m = service::calibration::set_calibration(&st, id, pairs).await?;
    let fit = service::calibration::reprojection_error(&m.calibration);
    Ok(data(CalibrationDto::new(m.calibration, fit)))
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
        (status = 200, description = "A JPEG frame", body = JpegImage, content_type = "image/jpeg")
    )
)]
pub(crate) async fn still(
    State(st): S,
    AppQuery(q): AppQuery<PageQuery>,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Response> {
    let m = service::matches::get_match(&st, id).await?;
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
    let jpeg = still_jpeg(&input, t).await?;
    Ok(([(header::CONTENT_TYPE, "image/jpeg")], jpeg).into_response())
}

/// One JPEG frame of `input` at `t` seconds (ffmpeg, command line from `sportz-media`; 15 s at
/// most).
async fn still_jpeg(input: &str, t: f64) -> ApiResult<Vec<u8>> {
    let out = tokio::time::timeout(
        std::time::Duration::from_secs(15),
        tokio::process::Command::from(sportz_media::still_command(input, t))
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
    Ok(out.stdout)
}
