//! Starting and serving the API: [`Api::start`] builds the [`AppState`], makes sure an operator
//! token exists and spawns the background tasks (fan-out relay, the two stream consumers, the
//! watchdog, session figures); [`Api::serve`] runs the router until shutdown.

use std::net::SocketAddr;
use std::sync::Arc;

use sportz_bus::ContractBus;
use sportz_store::Store;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::error::ApiResult;
use crate::state::{ApiConfig, AppState};
use crate::{auth, consumers, fanout, router};

/// How long shutdown waits for the session recorder's last write.
const RECORDER_FLUSH: std::time::Duration = std::time::Duration::from_secs(5);

/// A running API: the router to serve and its background tasks.
#[derive(Debug)]
pub struct Api {
    pub state: Arc<AppState>,
    /// The operator token created on this start (shown once), if one was created.
    pub new_operator_token: Option<String>,
    tasks: Vec<JoinHandle<()>>,
    /// The session recorder, which flushes on shutdown and is waited for.
    recorder: JoinHandle<()>,
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
        let state = Arc::new(AppState::new(config, bus, store, shutdown));
        let tasks = vec![
            tokio::spawn(fanout::run(state.clone())),
            tokio::spawn(consumers::status_consumer(state.clone())),
            tokio::spawn(consumers::event_consumer(state.clone())),
            tokio::spawn(consumers::watchdog(state.clone())),
            tokio::spawn(consumers::session_stats(state.clone())),
        ];
        // not aborted at shutdown: it writes what it holds first (see `serve`)
        let recorder = tokio::spawn(crate::recording::recorder::run(state.clone()));
        Ok(Self {
            state,
            new_operator_token,
            tasks,
            recorder,
        })
    }

    /// The HTTP router.
    pub fn router(&self) -> axum::Router {
        router::router(self.state.clone())
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
        // small messages go out as they are written (no Nagle wait for the peer's ACK): a
        // socket gets one batch per wake-up anyway
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!("cannot set TCP_NODELAY: {e}");
            }
        });
        let result = axum::serve(listener, app)
            .with_graceful_shutdown(async move { shutdown.cancelled().await })
            .await;
        for t in &self.tasks {
            t.abort();
        }
        // the recordings keep their last second: the recorder writes what it holds and ends
        if tokio::time::timeout(RECORDER_FLUSH, self.recorder)
            .await
            .is_err()
        {
            tracing::warn!("the session recorder did not finish writing within {RECORDER_FLUSH:?}");
        }
        result
    }
}
