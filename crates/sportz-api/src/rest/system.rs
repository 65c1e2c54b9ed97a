//! Workers (from their heartbeats), health, liveness and Prometheus metrics.

use axum::Json;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::S;
use crate::dto::{
    BusHealth, Data, HealthDto, Liveness, RecordingsHealth, StoreHealth, ViewerVideoHealth, data,
};
use crate::error::ApiResult;
use crate::extract::Reader;
use sportz_contract::worker::Heartbeat;

#[utoipa::path(
    get,
    path = "/api/workers",
    responses(
        (status = 200, description = "Every worker with a live heartbeat", body = Data<Vec<Heartbeat>>)
    )
)]
pub(crate) async fn workers(State(st): S, _: Reader) -> ApiResult<Json<Value>> {
    Ok(data(st.bus.heartbeats().await?))
}

#[utoipa::path(
    get,
    path = "/health",
    responses(
        (status = 200, description = "Ready", body = HealthDto),
        (status = 503, description = "Live but not ready", body = HealthDto)
    )
)]
pub(crate) async fn health(State(st): S) -> Response {
    let bus = st.bus.raw().ping().await;
    let store = st.store.ping().await;
    let fanout = st.fanout_ready.load(std::sync::atomic::Ordering::SeqCst);
    let ready = bus.is_ok() && store.is_ok() && fanout;
    let body = json!(HealthDto {
        live: true,
        ready,
        bus: BusHealth {
            backend: st.bus.raw().backend(),
            ok: bus.is_ok(),
            error: bus.err().map(|e| e.to_string()),
        },
        store: StoreHealth {
            ok: store.is_ok(),
            error: store.err().map(|e| e.to_string()),
        },
        fanout,
        recordings: st.config.recordings.as_ref().map(|r| {
            use std::sync::atomic::Ordering::Relaxed;
            let u = &st.recordings;
            RecordingsHealth {
                dir: r.dir.display().to_string(),
                files: u.files.load(Relaxed),
                bytes: u.bytes.load(Relaxed),
                max_bytes: r.max_bytes,
                keep_days: r.keep_days,
                errors: u.errors.load(Relaxed),
                last_error: u
                    .last_error
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone(),
            }
        }),
        viewer_video: match &st.config.viewer_video {
            crate::video::ViewerVideo::On(hub) => ViewerVideoHealth {
                on: hub.stopped().is_none(),
                reason: hub.stopped(),
                viewers: hub.viewers(),
            },
            crate::video::ViewerVideo::Off(why) => ViewerVideoHealth {
                on: false,
                reason: Some(why.clone()),
                viewers: 0,
            },
        },
    });
    let code = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    (code, Json(body)).into_response()
}

#[utoipa::path(
    get,
    path = "/health/live",
    operation_id = "health_live",
    responses(
        (status = 200, description = "Live", body = Liveness)
    )
)]
pub(crate) async fn live() -> Json<Value> {
    Json(json!(Liveness { live: true }))
}

#[utoipa::path(
    get,
    path = "/metrics",
    responses(
        (status = 200, description = "Prometheus text format", body = String, content_type = "text/plain; version=0.0.4")
    )
)]
pub(crate) async fn prometheus(State(st): S) -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        st.metrics.encode(),
    )
        .into_response()
}
