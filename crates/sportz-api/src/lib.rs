//! The sportz API: the Sportz match centre (REST + `/ws` rooms, seed `realtime-deep-dive.txt`)
//! and the live tracking relay (`/ws/matches/{id}`, seed `redis-contract.txt`), one server.
//!
//! - Every broadcast goes through the bus (`sportz:broadcast`, `match:{id}:commentary`), so N
//!   instances on one Redis serve all their clients ([`fanout`]).
//! - Contract consumers persist `status:updates` and `events:stream`, ack only after success,
//!   re-read their own pending entries first; a watchdog fails starts nobody picked up and
//!   sessions whose worker was lost ([`consumers`]).
//! - Mutations need an operator token; reading is open on the LAN unless a viewer token is
//!   required ([`auth`]); per-client rate limits answer 429 with `Retry-After`.

pub mod auth;
pub mod centre;
pub mod consumers;
pub mod error;
pub mod fanout;
pub mod metrics;
pub mod queue;
pub mod ratelimit;
pub mod relay;
pub mod rest;
pub mod sessions;
pub mod validate;
pub mod ws;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_store::Store;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use error::{ApiError, ApiResult};

/// How the API behaves. [`ApiConfig::default`] is the production setting.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// This instance's consumer name on the streams.
    pub instance_id: String,
    /// The built web UI (`ui/dist`), served at `/`.
    pub ui_dir: Option<PathBuf>,
    /// A fixed operator token (else one is created on first start and shown once).
    pub operator_token: Option<String>,
    /// Require a viewer (or operator) token to read and watch.
    pub require_viewer_token: bool,
    /// Extra origins allowed to open WebSockets (same-origin is always allowed).
    pub allowed_origins: Vec<String>,
    /// HTTP requests per client: `burst` per `period` (seed: 50 per 10 s).
    pub http_rate: ratelimit::Rate,
    /// WebSocket upgrades per client (seed: 5 per 2 s).
    pub ws_rate: ratelimit::Rate,
    /// Server ping interval; sockets that did not pong since the last ping are terminated.
    pub ping_interval: Duration,
    /// A start nobody picked up within this is failed.
    pub start_timeout: Duration,
    pub watchdog_every: Duration,
    /// Reliable messages a client may have unsent before it is closed with 4008.
    pub client_queue: usize,
    /// Request body and WebSocket message limit.
    pub max_message_bytes: usize,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            instance_id: format!("api-{}", std::process::id()),
            ui_dir: None,
            operator_token: None,
            require_viewer_token: false,
            allowed_origins: Vec::new(),
            http_rate: ratelimit::Rate::new(50, Duration::from_secs(10)),
            ws_rate: ratelimit::Rate::new(5, Duration::from_secs(2)),
            ping_interval: Duration::from_secs(30),
            start_timeout: Duration::from_secs(45),
            watchdog_every: Duration::from_secs(5),
            client_queue: 1024,
            max_message_bytes: 1 << 20,
        }
    }
}

/// Everything the handlers share.
#[derive(Debug)]
pub struct AppState {
    pub config: ApiConfig,
    pub bus: ContractBus,
    pub store: Arc<dyn Store>,
    pub metrics: Arc<metrics::Metrics>,
    pub centre: centre::CentreHub,
    pub relays: Arc<relay::MatchRelays>,
    pub http_limiter: ratelimit::Limiter,
    pub ws_limiter: ratelimit::Limiter,
    pub shutdown: CancellationToken,
    /// Set once the fan-out subscription is live (part of readiness).
    pub fanout_ready: std::sync::atomic::AtomicBool,
    next_client: AtomicU64,
}

impl AppState {
    pub fn next_client_id(&self) -> u64 {
        self.next_client.fetch_add(1, Ordering::Relaxed)
    }
}

/// A running API: the router to serve and its background tasks.
#[derive(Debug)]
pub struct Api {
    pub state: Arc<AppState>,
    /// The operator token created on this start (shown once), if one was created.
    pub new_operator_token: Option<String>,
    tasks: Vec<JoinHandle<()>>,
}

impl Api {
    /// Builds the state, makes sure an operator token exists, and starts the consumers, the
    /// fan-out relay and the watchdog.
    ///
    /// # Errors
    /// When the store cannot be read at start.
    pub async fn start(
        config: ApiConfig,
        bus: ContractBus,
        store: Arc<dyn Store>,
        shutdown: CancellationToken,
    ) -> ApiResult<Self> {
        let new_operator_token = auth::bootstrap(&*store, config.operator_token.is_some()).await?;
        let state = Arc::new(AppState {
            http_limiter: ratelimit::Limiter::new(config.http_rate),
            ws_limiter: ratelimit::Limiter::new(config.ws_rate),
            config,
            bus,
            store,
            metrics: Arc::default(),
            centre: centre::CentreHub::default(),
            relays: Arc::default(),
            shutdown,
            fanout_ready: std::sync::atomic::AtomicBool::new(false),
            next_client: AtomicU64::new(1),
        });
        let tasks = vec![
            tokio::spawn(fanout::run(state.clone())),
            tokio::spawn(consumers::status_consumer(state.clone())),
            tokio::spawn(consumers::event_consumer(state.clone())),
            tokio::spawn(consumers::watchdog(state.clone())),
            tokio::spawn(consumers::session_stats(state.clone())),
        ];
        Ok(Self {
            state,
            new_operator_token,
            tasks,
        })
    }

    /// The HTTP router.
    pub fn router(&self) -> axum::Router {
        rest::router(self.state.clone())
    }

    /// Serves on `listener` until the shutdown token is cancelled; then sockets are closed
    /// with 1001 and the background tasks stop.
    ///
    /// # Errors
    /// When the listener fails.
    pub async fn serve(self, listener: tokio::net::TcpListener) -> std::io::Result<()> {
        let shutdown = self.state.shutdown.clone();
        let app = self
            .router()
            .into_make_service_with_connect_info::<SocketAddr>();
        let result = axum::serve(listener, app)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
        for t in &self.tasks {
            t.abort();
        }
        result
    }
}
