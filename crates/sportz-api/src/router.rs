//! The whole HTTP surface: every route, the per-client rate limit and request metrics, the web UI
//! (or a page that says it is not built) and JSON 404s.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Request, State};
use axum::http::Method;
use axum::middleware::{self, Next};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};

use crate::error::ApiError;
use crate::openapi::openapi_json;
use crate::rest::{S, calibration, commentary, matches, sessions, system};
use crate::state::AppState;

pub(crate) fn client_ip(req: &Request) -> IpAddr {
    req.extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip())
}

async fn limit_and_measure(State(st): S, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let method = req.method().clone();
    // the API is limited; the web UI's static files, health checks, metrics and WebSocket
    // upgrades (which have their own limit) are not
    let limited = path.starts_with("/matches") || path.starts_with("/api/");
    let exempt = !limited;
    if !exempt && let Err(retry) = st.http_limiter.check(client_ip(&req)) {
        st.metrics.rate_limited.inc();
        return ApiError::RateLimited {
            retry_after_secs: retry,
        }
        .into_response();
    }
    let started = Instant::now();
    let resp = next.run(req).await;
    if !path.starts_with("/ws") {
        st.metrics
            .http_latency
            .observe(started.elapsed().as_secs_f64());
        st.metrics
            .http_requests
            .get_or_create(&crate::metrics::HttpLabels {
                method: method.to_string(),
                status: resp.status().as_u16(),
            })
            .inc();
    }
    resp
}

async fn no_ui() -> Html<&'static str> {
    Html(
        "<!doctype html><title>sportz</title><p>The sportz API is running. The web UI is not built: run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>.</p>",
    )
}

async fn not_found(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::NotFound(format!("no route for {method} {}", uri.path()))
}

/// The whole HTTP surface.
pub fn router(state: Arc<AppState>) -> Router {
    let limit = state.config.max_message_bytes;
    let api = Router::new()
        .route(
            "/matches",
            get(matches::list_matches).post(matches::create_match),
        )
        .route(
            "/matches/{id}",
            get(matches::get_match)
                .patch(matches::update_match)
                .delete(matches::delete_match),
        )
        .route(
            "/matches/{id}/score",
            axum::routing::patch(commentary::update_score),
        )
        .route(
            "/matches/{id}/commentary",
            get(commentary::list_commentary).post(commentary::add_commentary),
        )
        .route("/matches/{id}/sessions", get(sessions::list_sessions))
        .route("/matches/{id}/events", get(sessions::list_events))
        .route(
            "/matches/{id}/sessions/{sid}/export",
            get(crate::rest::recordings::export_session),
        )
        .route(
            "/matches/{id}/calibration",
            get(calibration::get_calibration).put(calibration::set_calibration),
        )
        .route(
            "/matches/{id}/calibration/auto",
            post(calibration::auto_calibration),
        )
        .route("/matches/{id}/still", get(calibration::still))
        .route("/matches/{id}/video", get(crate::rest::video::live_video))
        .route("/matches/{id}/start", post(sessions::start))
        .route("/matches/{id}/pause", post(sessions::pause))
        .route("/matches/{id}/stop", post(sessions::stop))
        .route("/matches/{id}/restart", post(sessions::restart))
        .route("/matches/{id}/{action}", post(sessions::unknown_action))
        .route("/api/workers", get(system::workers))
        .route("/api/openapi.json", get(openapi_json))
        .route("/api/{*rest}", axum::routing::any(not_found))
        .route("/health", get(system::health))
        .route("/health/live", get(system::live))
        .route("/metrics", get(system::prometheus))
        .route("/ws", get(crate::ws::centre))
        .route("/ws/matches/{id}", get(crate::ws::live));
    let with_ui = match state
        .config
        .ui_dir
        .clone()
        .filter(|d| d.join("index.html").is_file())
    {
        Some(dir) => {
            let index = dir.join("index.html");
            api.fallback_service(
                tower_http::services::ServeDir::new(dir)
                    .fallback(tower_http::services::ServeFile::new(index)),
            )
        }
        None => api.route("/", get(no_ui)).fallback(not_found),
    };
    with_ui
        .layer(DefaultBodyLimit::max(limit))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            limit_and_measure,
        ))
        .with_state(state)
}
