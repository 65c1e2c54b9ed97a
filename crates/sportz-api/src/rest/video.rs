//! `GET /matches/{id}/video`: the match's annotated live video as MJPEG ([`crate::video`]).

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use super::S;
use crate::error::{ApiError, ApiResult};
use crate::extract::{MatchPath, Reader};
use crate::video::{IDLE_END, ViewerVideo, content_type, stream};

#[utoipa::path(
    get,
    path = "/matches/{id}/video",
    params(
        ("id" = sportz_contract::MatchId, Path, description = "The match"),
        ("token" = Option<String>, Query, description = "A viewer or operator token, when the server requires one (an `<img>` cannot send `Authorization`)")
    ),
    responses(
        (status = 200, description = "The annotated video (boxes, ids, ball trail) as MJPEG: one JPEG per part, the newest picture whenever the client is ready (slow clients skip pictures); the stream ends after 10 s without a picture (the match stopped), and the client asks again", body = crate::dto::JpegImage, content_type = "multipart/x-mixed-replace"),
        (status = 401, description = "This server requires a viewer token", body = crate::error::ErrorBody),
        (status = 404, description = "Unknown match", body = crate::error::ErrorBody),
        (status = 409, description = "The match is not being analysed in this process (not running, or its worker runs on another machine): the video exists only where the worker runs", body = crate::error::ErrorBody),
        (status = 503, description = "This server does not render video for viewers (started with --viewer-video off, no renderer, or the renderer failed): the reason", body = crate::error::ErrorBody)
    )
)]
pub(crate) async fn live_video(
    State(st): S,
    _: Reader,
    MatchPath(id): MatchPath,
) -> ApiResult<Response> {
    crate::service::matches::get_match(&st, id).await?;
    let hub = match &st.config.viewer_video {
        ViewerVideo::On(hub) => hub.clone(),
        ViewerVideo::Off(why) => return Err(ApiError::Unavailable(why.clone())),
    };
    if let Some(why) = hub.stopped() {
        return Err(ApiError::Unavailable(why));
    }
    let rx = hub.subscribe(&id).ok_or_else(|| {
        ApiError::Conflict(format!(
            "match {id} is not being analysed in this process (not running, or its worker runs on another machine): its video exists only where its worker runs"
        ))
    })?;
    st.metrics.connected("video", 1);
    let metrics = st.metrics.clone();
    let body = Body::from_stream(stream(rx, IDLE_END, move || {
        metrics.connected("video", -1);
    }));
    let mut resp = body.into_response();
    let h = resp.headers_mut();
    if let Ok(v) = HeaderValue::from_str(&content_type()) {
        h.insert(header::CONTENT_TYPE, v);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(resp)
}
