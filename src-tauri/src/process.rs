//! Process setup every role shares: logs on stderr, the one tokio runtime, and shutdown on
//! SIGINT/SIGTERM.

use anyhow::Context as _;
use tokio_util::sync::CancellationToken;

/// Logs to stderr (stdout carries results), filtered by `SPORTZ_LOG`, else `default` (`info`,
/// `warn`, …). A second call does nothing.
pub fn init_logs(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPORTZ_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .try_init();
}

/// The process's one async runtime: every role runs on it, and the desktop hands it to Tauri.
///
/// # Errors
/// When the OS refuses the runtime's threads.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Cancels `token` on SIGINT or SIGTERM. Call from inside the runtime.
pub fn cancel_on_signals(token: CancellationToken) {
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("SIGTERM handler");
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down");
        token.cancel();
    });
}
