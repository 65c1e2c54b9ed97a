//! The pitch calibration (get, set: ≥ 4 non-degenerate pairs on a 105×68 pitch) and a still of
//! the video to click landmarks on.

use axum::Json;
use axum::extract::{Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};
use sportz_contract::worker::{PointPair, VideoSource};
use sportz_contract::{PITCH_LENGTH_M, PITCH_WIDTH_M};

use super::{PageQuery, S, data};
use crate::error::{ApiError, ApiResult};
use crate::extract::{AppJson, MatchPath, Operator, Reader};

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

pub(crate) async fn get_calibration(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Json<Value>> {
    let pairs = st.store.get_calibration(id).await?;
    Ok(data(calibration_view(&pairs)))
}

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
pub(crate) async fn still(
    State(st): S,
    Query(q): Query<PageQuery>,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Response> {
    let m = st.store.get_match(id).await?;
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
