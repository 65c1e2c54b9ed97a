//! The roles that exist so far, each wired from its crates. (The composition root of issue 9
//! replaces this with one Config → running system.)

use std::sync::Arc;

use anyhow::Context as _;
use sportz_bus::ContractBus;
use sportz_worker::{PassThroughFactory, SourcePolicy, WorkerSettings};
use tokio_util::sync::CancellationToken;

use crate::cli::WorkerArgs;

fn init_logs() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPORTZ_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .try_init();
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Cancels `token` on SIGINT or SIGTERM.
fn cancel_on_signals(token: CancellationToken) {
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

/// `sportz worker`.
pub fn worker(args: WorkerArgs) -> anyhow::Result<()> {
    init_logs();
    let redis = args.redis.context(
        "a standalone worker needs the API's bus: pass --redis redis://host:port (or run `sportz --headless` for everything in one process)",
    )?;
    runtime()?.block_on(async move {
        let bus = sportz_bus::connect(Some(&redis)).await?;
        let mut settings = WorkerSettings::new(Arc::new(PassThroughFactory));
        if let Some(id) = args.worker_id {
            settings.worker_id = id;
        }
        if let Some(c) = args.capacity {
            anyhow::ensure!(c > 0, "--capacity must be at least 1");
            settings.capacity = c;
        }
        settings.source_policy = SourcePolicy {
            allow_private_hosts: args.allow_private_sources,
        };
        let shutdown = CancellationToken::new();
        cancel_on_signals(shutdown.clone());
        sportz_worker::run(ContractBus::new(bus), settings, shutdown).await?;
        Ok(())
    })
}
