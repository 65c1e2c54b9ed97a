//! What every handler, consumer and socket shares: the configuration ([`ApiConfig`]) and the
//! state built from it at start ([`AppState`]: the bus, the store, the `/ws` hubs, the limiters,
//! the metrics and the shutdown token).

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_store::Store;
use tokio_util::sync::CancellationToken;

use crate::{centre, metrics, ratelimit, relay};

/// How the API behaves. [`ApiConfig::default`] is the production setting.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// This instance's consumer name on the streams.
    pub instance_id: String,
    /// The built web UI (`ui/dist`), served at `/`.
    pub ui_dir: Option<PathBuf>,
    /// A fixed operator token (else one is created on first start and shown once).
    pub operator_token: Option<String>,
    /// The desktop app's own operator token: made per run, handed only to its own window
    /// (never printed, stored or put in a URL), accepted like [`Self::operator_token`].
    pub local_operator_token: Option<String>,
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
    /// How often the watchdog looks for lost workers: a lease gone on two looks in a row is a
    /// lost worker (taken over or failed), so with the contract's 8 s lease a takeover starts
    /// within about 8 s + 2 × this.
    pub watchdog_every: Duration,
    /// Reliable messages a client may have unsent before it is closed with 4008.
    pub client_queue: usize,
    /// When a new live client's store is read again for events persisted after its snapshot
    /// (delays from its join; `crate::catch_up`): covers the persister's lag, longest just after
    /// the bus comes back (it retries every second).
    pub catch_up: Vec<Duration>,
    /// Request body and WebSocket message limit.
    pub max_message_bytes: usize,
    /// Which match sources a still (and the automatic calibration) may open: the worker's rule
    /// (the default refuses private and loopback hosts).
    pub source_policy: sportz_guard::SourcePolicy,
    /// Where sessions are recorded (`crate::recording`); `None`: not recorded.
    pub recordings: Option<crate::recording::RecordingSettings>,
    /// The pitch-line model the automatic calibration reads (the app passes the built-in one);
    /// `None`: the top-hat line test alone.
    pub line_model: Option<sportz_vision::image::SharedLineModel>,
    /// The annotated live video for viewers (`GET /matches/{id}/video`), rendered by the
    /// process that analyses a match; off (with the reason the route gives) by default.
    pub viewer_video: crate::video::ViewerVideo,
}

impl Default for ApiConfig {
    fn default() -> Self {
        Self {
            instance_id: format!("api-{}", std::process::id()),
            ui_dir: None,
            operator_token: None,
            local_operator_token: None,
            require_viewer_token: false,
            allowed_origins: Vec::new(),
            http_rate: ratelimit::Rate::new(50, Duration::from_secs(10)),
            ws_rate: ratelimit::Rate::new(5, Duration::from_secs(2)),
            ping_interval: Duration::from_secs(30),
            start_timeout: Duration::from_secs(45),
            watchdog_every: Duration::from_secs(1),
            client_queue: 1024,
            catch_up: [1, 3, 10, 30].map(Duration::from_secs).to_vec(),
            max_message_bytes: 1 << 20,
            source_policy: sportz_guard::SourcePolicy::default(),
            recordings: None,
            line_model: None,
            viewer_video: crate::video::ViewerVideo::default(),
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
    pub fanout_ready: AtomicBool,
    /// The fits of stored calibrations (`GET /matches/{id}/calibration` does not refit).
    pub calibration_fits: crate::fits::FitCache,
    /// What the recordings take, and their write errors.
    pub recordings: crate::recording::RecordingUsage,
    /// The frames of running replays, by player id (the desktop overlay follows its window's).
    pub replays: crate::recording::replay::Taps,
    next_client: AtomicU64,
}

impl AppState {
    /// The state of a freshly started API (the fan-out not yet subscribed).
    #[must_use]
    pub fn new(
        config: ApiConfig,
        bus: ContractBus,
        store: Arc<dyn Store>,
        shutdown: CancellationToken,
    ) -> Self {
        Self {
            http_limiter: ratelimit::Limiter::new(config.http_rate),
            ws_limiter: ratelimit::Limiter::new(config.ws_rate),
            config,
            bus,
            store,
            metrics: Arc::default(),
            centre: centre::CentreHub::default(),
            relays: Arc::default(),
            shutdown,
            fanout_ready: AtomicBool::new(false),
            calibration_fits: crate::fits::FitCache::default(),
            recordings: crate::recording::RecordingUsage::default(),
            replays: crate::recording::replay::Taps::default(),
            next_client: AtomicU64::new(1),
        }
    }

    /// A process-unique id for a WebSocket client.
    pub fn next_client_id(&self) -> u64 {
        self.next_client.fetch_add(1, Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's heartbeat: a ping every 30 s, a socket that did not pong since the last one is
    /// terminated.
    #[test]
    fn sockets_are_pinged_every_30_s() {
        assert_eq!(ApiConfig::default().ping_interval, Duration::from_secs(30));
    }
}
