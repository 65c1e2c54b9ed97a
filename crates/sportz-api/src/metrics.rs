//! Prometheus metrics for `/metrics`: connections, messages out, queue drops and closes, HTTP
//! requests and their latencies.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::queue::Pushed;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct Endpoint {
    pub endpoint: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct HttpLabels {
    pub method: String,
    pub status: u16,
}

#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    pub connections: Family<Endpoint, Gauge>,
    pub messages_out: Family<Endpoint, Counter>,
    pub frames_skipped: Family<Endpoint, Counter>,
    pub overflow_closes: Family<Endpoint, Counter>,
    pub http_requests: Family<HttpLabels, Counter>,
    pub http_latency: Histogram,
    pub rate_limited: Counter,
    pub recording_errors: Counter,
}

fn ep(endpoint: &str) -> Endpoint {
    Endpoint {
        endpoint: endpoint.to_owned(),
    }
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("sportz");
        let connections = Family::<Endpoint, Gauge>::default();
        let messages_out = Family::<Endpoint, Counter>::default();
        let frames_skipped = Family::<Endpoint, Counter>::default();
        let overflow_closes = Family::<Endpoint, Counter>::default();
        let http_requests = Family::<HttpLabels, Counter>::default();
        let http_latency = Histogram::new(exponential_buckets(0.0005, 2.0, 14));
        let rate_limited = Counter::default();
        let recording_errors = Counter::default();
        registry.register(
            "recording_errors",
            "Session recordings stopped by a write error (a full disk, …)",
            recording_errors.clone(),
        );
        registry.register(
            "ws_connections",
            "Open WebSocket connections",
            connections.clone(),
        );
        registry.register(
            "ws_messages_out",
            "Messages sent to WebSocket clients",
            messages_out.clone(),
        );
        registry.register(
            "ws_frames_skipped",
            "Frames replaced before a slow client read them (latest-wins)",
            frames_skipped.clone(),
        );
        registry.register(
            "ws_overflow_closes",
            "Clients closed with 4008 because their reliable queue overflowed",
            overflow_closes.clone(),
        );
        registry.register(
            "http_requests",
            "HTTP requests by method and status",
            http_requests.clone(),
        );
        registry.register(
            "http_request_duration_seconds",
            "HTTP request latency",
            http_latency.clone(),
        );
        registry.register(
            "rate_limited",
            "Requests and upgrades answered 429",
            rate_limited.clone(),
        );
        Self {
            registry,
            connections,
            messages_out,
            frames_skipped,
            overflow_closes,
            http_requests,
            http_latency,
            rate_limited,
            recording_errors,
        }
    }
}

impl Metrics {
    pub fn record_push(&self, endpoint: &str, p: Pushed) {
        match p {
            Pushed::ReplacedFrame => {
                self.frames_skipped.get_or_create(&ep(endpoint)).inc();
            }
            Pushed::Overflowed => {
                self.overflow_closes.get_or_create(&ep(endpoint)).inc();
            }
            Pushed::Queued | Pushed::Closing | Pushed::AlreadySent => {}
        }
    }

    pub fn sent(&self, endpoint: &str) {
        self.sent_n(endpoint, 1);
    }

    pub fn sent_n(&self, endpoint: &str, n: u64) {
        self.messages_out.get_or_create(&ep(endpoint)).inc_by(n);
    }

    pub fn recording_error(&self) {
        self.recording_errors.inc();
    }

    pub fn connected(&self, endpoint: &str, delta: i64) {
        self.connections.get_or_create(&ep(endpoint)).inc_by(delta);
    }

    /// The text exposition.
    #[must_use]
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let _ = prometheus_client::encoding::text::encode(&mut out, &self.registry);
        out
    }
}
