//! The sportz tracking worker: takes start commands from `worker:commands` (group `workers`)
//! while it has spare capacity, holds a lease per match, decodes video with ffmpeg, runs the
//! vision stage and publishes frames, events, statuses and metrics per the contract. It runs
//! alone (`sportz worker`) or embedded in the headless and desktop modes.
//!
//! - [`run`]: the worker loop (intake, heartbeat, sessions) until shutdown.
//! - [`session`]: one session — lifecycle, control loop, lease, source with reconnect, pipeline.
//! - [`source`]: ffmpeg ingest; [`guard`]: which sources are allowed.
//! - [`analyzer`]: the vision stage's interface.

pub mod analyzer;
pub mod gpu;
/// The source guard lives in `sportz-guard` (the API's stills use it too).
pub use sportz_guard as guard;
pub mod metrics;
pub mod session;
pub mod source;
pub mod synthetic;
pub mod vision;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sportz_bus::{BusError, ContractBus};
use sportz_contract::{Heartbeat, Lease, MatchId, WorkerCommand};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

pub use analyzer::{
    Analysis, Analyzer, AnalyzerError, AnalyzerFactory, DetectStage, Detected, PassThrough,
    PassThroughFactory,
};
pub use guard::SourcePolicy;
pub use vision::{VisionAnalyzer, VisionAnalyzerFactory};

/// How a worker behaves. [`WorkerSettings::new`] gives the production defaults.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    pub worker_id: String,
    /// Maximum concurrent matches.
    pub capacity: u32,
    /// Makes the vision stage of each session.
    pub analyzers: Arc<dyn AnalyzerFactory>,
    pub source_policy: SourcePolicy,
    /// No frame for this long → `reconnecting`.
    pub stall_timeout: Duration,
    /// Reconnect back-off base: waits are base·2^n, capped at 30·base.
    pub reconnect_base: Duration,
    /// Reconnect attempts before the session fails.
    pub max_reconnects: u32,
    pub probe_timeout: Duration,
    pub heartbeat_every: Duration,
    pub control_poll: Duration,
    pub lease_refresh: Duration,
    /// How long to wait for a match's lease held by a previous session before giving up.
    pub lease_wait: Duration,
    /// GPU figures for heartbeats and metrics.
    pub gpu: gpu::GpuProbe,
    /// Frame size of the synthetic demo source.
    pub synthetic_size: (u32, u32),
    /// Where unpublished events wait on disk while the bus is down (`session::spool`), and
    /// what a previous run left there is published at start; `None`: in memory only. One
    /// worker per directory.
    pub spool_dir: Option<std::path::PathBuf>,
    /// Where the worker keeps its own count of each session's published events
    /// (`session::ledger`); `None`: not kept.
    pub ledger_dir: Option<std::path::PathBuf>,
    /// How long the end of a session retries events the bus refused.
    pub outbox_drain: Duration,
    /// The most unpublished events a session keeps while the bus is down (the oldest go first,
    /// said in an `events_dropped` error and `metrics.events_dropped`).
    pub outbox_cap: usize,
}

/// A default worker id: host name and process id.
#[must_use]
pub fn default_worker_id() -> String {
    let host = std::fs::read_to_string("/etc/hostname")
        .ok()
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "worker".to_owned());
    format!("{host}-{}", std::process::id())
}

impl WorkerSettings {
    /// Production defaults: capacity 1 on a CPU (detection saturates the cores), 4 on a GPU.
    #[must_use]
    pub fn new(analyzers: Arc<dyn AnalyzerFactory>) -> Self {
        let capacity = if analyzers.device().starts_with("cpu") {
            1
        } else {
            4
        };
        Self {
            worker_id: default_worker_id(),
            capacity,
            analyzers,
            source_policy: SourcePolicy::default(),
            stall_timeout: Duration::from_secs(10),
            reconnect_base: Duration::from_secs(1),
            max_reconnects: 10,
            probe_timeout: Duration::from_secs(15),
            heartbeat_every: Duration::from_secs(2),
            control_poll: Duration::from_millis(250),
            lease_refresh: sportz_contract::keys::LEASE_REFRESH,
            lease_wait: sportz_contract::keys::LEASE_TTL + Duration::from_secs(2),
            gpu: gpu::GpuProbe::default(),
            synthetic_size: (1280, 720),
            spool_dir: None,
            ledger_dir: None,
            outbox_drain: Duration::from_secs(30),
            outbox_cap: 10_000,
        }
    }
}

type Active = Arc<Mutex<HashMap<MatchId, JoinHandle<()>>>>;

fn active_matches(active: &Active) -> Vec<MatchId> {
    let mut a = active.lock().unwrap_or_else(PoisonError::into_inner);
    a.retain(|_, h| !h.is_finished());
    let mut ids: Vec<MatchId> = a.keys().copied().collect();
    ids.sort();
    ids
}

/// Runs the worker until `shutdown` is cancelled: heartbeats, command intake within capacity,
/// one task per session. On shutdown, running sessions end with a `failed` status that says so.
///
/// # Errors
/// Only when the bus cannot be used at start; later outages are waited out.
pub async fn run(
    bus: ContractBus,
    settings: WorkerSettings,
    shutdown: CancellationToken,
) -> Result<(), BusError> {
    let settings = Arc::new(settings);
    let active: Active = Arc::default();
    let started_at = sportz_contract::unix_now();
    tracing::info!(
        worker_id = %settings.worker_id,
        capacity = settings.capacity,
        device = %settings.analyzers.device(),
        "worker started"
    );

    // events an earlier run could not publish (the bus was down when it ended or died)
    if let Some(dir) = &settings.spool_dir {
        tokio::spawn(session::spool::replay(
            bus.clone(),
            (dir.clone(), settings.ledger_dir.clone()),
            shutdown.clone(),
        ));
    }

    // heartbeat
    let hb = {
        let (bus, settings, active, shutdown) = (
            bus.clone(),
            settings.clone(),
            active.clone(),
            shutdown.clone(),
        );
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(settings.heartbeat_every);
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    _ = tick.tick() => {}
                }
                let gpu = if settings.analyzers.device().starts_with("cpu") {
                    None
                } else {
                    settings.gpu.refresh().await
                };
                let beat = Heartbeat {
                    worker_id: settings.worker_id.clone(),
                    device: settings.analyzers.device(),
                    gpu,
                    models: settings.analyzers.models(),
                    active_matches: active_matches(&active),
                    capacity: settings.capacity,
                    started_at,
                    ts: sportz_contract::unix_now(),
                };
                if let Err(e) = bus.write_heartbeat(&beat).await {
                    tracing::debug!("heartbeat not written: {e}");
                }
            }
        })
    };

    let mut intake = loop {
        match bus.command_intake(&settings.worker_id).await {
            Ok(i) => break i,
            Err(e) if e.is_unavailable() => {
                tracing::warn!("waiting for the bus: {e}");
                tokio::select! {
                    () = shutdown.cancelled() => return Ok(()),
                    () = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
            Err(e) => return Err(e),
        }
    };

    let mut warned_full = false;
    while !shutdown.is_cancelled() {
        let running = u32::try_from(active_matches(&active).len()).unwrap_or(u32::MAX);
        if running >= settings.capacity {
            if !warned_full {
                tracing::info!(running, "at capacity; not reading commands");
                warned_full = true;
            }
            tokio::select! {
                () = shutdown.cancelled() => break,
                () = tokio::time::sleep(Duration::from_millis(200)) => {}
            }
            continue;
        }
        warned_full = false;
        let item = tokio::select! {
            () = shutdown.cancelled() => break,
            r = intake.next(Duration::from_secs(1)) => r,
        };
        let item = match item {
            Ok(Some(item)) => item,
            Ok(None) => continue,
            Err(e) => {
                tracing::warn!("cannot read commands: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let cmd = match item.value {
            Ok(cmd) => cmd,
            Err(why) => {
                tracing::error!("dropping an unreadable command: {why}");
                let _ = intake.ack(&item.id).await;
                continue;
            }
        };
        if let Some(handle) = start_session(&bus, &settings, &active, cmd, &shutdown).await {
            let _ = handle.await;
        }
        if let Err(e) = intake.ack(&item.id).await {
            tracing::warn!("cannot ack command {}: {e} (it will be re-read)", item.id);
        }
    }

    // shutdown: sessions see the cancelled token and end with a status
    let handles: Vec<JoinHandle<()>> = active
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .drain()
        .map(|(_, h)| h)
        .collect();
    for h in handles {
        let _ = tokio::time::timeout(Duration::from_secs(10), h).await;
    }
    hb.abort();
    tracing::info!(worker_id = %settings.worker_id, "worker stopped");
    Ok(())
}

/// Checks a command, takes the lease and spawns the session. Returns a handle that resolves
/// once the session has published `starting` (the command can then be acked), or `None` when
/// the command is not for this worker to run.
async fn start_session(
    bus: &ContractBus,
    settings: &Arc<WorkerSettings>,
    active: &Active,
    cmd: WorkerCommand,
    shutdown: &CancellationToken,
) -> Option<tokio::sync::oneshot::Receiver<()>> {
    let WorkerCommand::Start {
        match_id,
        session_id,
        config,
    } = cmd;
    // stale: the API no longer wants this session
    match bus.control(&match_id).await {
        Ok(Some(c)) if !c.wants(&session_id) => {
            tracing::info!(%match_id, %session_id, "ignoring a stale start command");
            return None;
        }
        _ => {}
    }
    let lease = Lease {
        worker_id: settings.worker_id.clone(),
        session_id,
    };
    // a previous session of the match may still hold the lease while it notices it was
    // superseded: wait for it
    let deadline = tokio::time::Instant::now() + settings.lease_wait;
    loop {
        match bus.acquire_lease(&match_id, &lease).await {
            Ok(true) => break,
            Ok(false) => {
                if let Ok(Some(held)) = bus.lease(&match_id).await
                    && held.session_id == session_id
                {
                    tracing::info!(%match_id, holder = %held.worker_id, "session already running elsewhere");
                    return None;
                }
            }
            Err(e) => tracing::warn!(%match_id, "cannot take the lease yet: {e}"),
        }
        if tokio::time::Instant::now() >= deadline || shutdown.is_cancelled() {
            tracing::warn!(%match_id, "the match's lease stayed held by another session; giving up");
            return None;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let (tx, rx) = tokio::sync::oneshot::channel();
    let ctx = session::SessionCtx {
        bus: bus.clone(),
        match_id,
        session_id,
        config,
        worker_id: settings.worker_id.clone(),
        settings: settings.clone(),
        shutdown: shutdown.clone(),
    };
    let handle = tokio::spawn(session::run(ctx, tx));
    active
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert(match_id, handle);
    Some(rx)
}
