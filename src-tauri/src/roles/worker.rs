//! `sportz worker`: a tracking worker alone, on the Redis bus it shares with the API.

use anyhow::Context as _;
use sportz_bus::ContractBus;
use sportz_worker::{SourcePolicy, WorkerSettings};
use tokio_util::sync::CancellationToken;

use crate::cli::WorkerArgs;

/// Runs the worker until SIGINT/SIGTERM.
///
/// # Errors
/// Without `--redis`, with a bad `--capacity`, a model that cannot be loaded or a bus that
/// fails.
pub async fn run(args: WorkerArgs) -> anyhow::Result<()> {
    let redis = args.redis.context(
        "a standalone worker needs the API's bus: pass --redis redis://host:port (or run `sportz --headless` for everything in one process)",
    )?;
    let bus = sportz_bus::connect(Some(&redis)).await?;
    let mut settings = WorkerSettings::new(crate::detector::select(
        args.model.as_deref(),
        sportz_worker::vision::load_line_model(
            sportz_worker::vision::line_model_threads_beside_detector(),
        ),
    )?);
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
    let _lock = crate::system::worker_dirs(&mut settings, args.data_dir.as_deref())?;
    let shutdown = CancellationToken::new();
    crate::process::cancel_on_signals(shutdown.clone());
    sportz_worker::run(ContractBus::new(bus), settings, shutdown).await?;
    Ok(())
}
