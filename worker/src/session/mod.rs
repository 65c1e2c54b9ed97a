//! One processing session: status lifecycle, source with stall detection and reconnects,
//! the control loop, the lease, and the decode → analyse → publish pipeline.
//!
//! ```text
//! ffmpeg reader thread ──mpsc──▶ session loop ──latest-wins slot──▶ analyser thread
//!                                (stall, reconnect,                       │
//!                                 pause, stop)                            ▼
//!                                 ▲          ▲             publisher task (frames, events, metrics)
//!     control watcher task ─watch─┘          └─lost─ lease keeper task (refreshes every 1 s)
//! ```
//! In live mode a frame that arrives while the analyser is busy replaces the waiting one and is
//! counted in `dropped_frames`: frames are dropped before inference, never queued without bound.
//! Offline (a file read as fast as possible) nothing is dropped: the reader waits.
//!
//! The lease keeper runs from the start of the session to its end on its own, so the lease stays
//! fresh while the session loop waits on something slow (the source guard's DNS lookup, the
//! model load — run on a blocking thread —, ffprobe, a back-off); the loop only hears from it
//! when the lease is lost.
//!
//! - `publisher`: the one sequence of the session's messages, and the publisher task.
//! - `analyser`: the latest-wins frame slot and the analyser thread.
//! - `control`: the control-key watcher (run, pause, stop, superseded).
//! - `lease`: the lease keeper task.
//! - `ledger`: the worker's own count of each session's published events, on disk.
//! - `pipeline`: the pipeline's start and drain, and the reader loop (open, read, back off).

mod analyser;
mod control;
mod lease;
pub mod ledger;
mod pipeline;
mod publisher;
pub(crate) mod spool;

use std::sync::Arc;
use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::status::SessionStatus;
use sportz_contract::worker::SessionConfig;
use sportz_contract::{ErrorData, Lease, MatchId, SessionId};
use tokio_util::sync::CancellationToken;

use crate::WorkerSettings;
use crate::analyzer::{Analyzer, AnalyzerError};
use lease::LeaseKeeper;
use publisher::Publisher;

/// Everything a session needs.
#[derive(Debug, Clone)]
pub(crate) struct SessionCtx {
    pub bus: ContractBus,
    pub match_id: MatchId,
    pub session_id: SessionId,
    pub config: SessionConfig,
    pub worker_id: String,
    pub settings: Arc<WorkerSettings>,
    pub shutdown: CancellationToken,
}

/// How the source loop ended.
enum Ended {
    Completed,
    Stopped(String),
    Failed { code: &'static str, message: String },
}

/// Runs a session to its end. `started` fires once `starting` is published.
pub(crate) async fn run(ctx: SessionCtx, started: tokio::sync::oneshot::Sender<()>) {
    let lease = Lease {
        worker_id: ctx.worker_id.clone(),
        session_id: ctx.session_id,
    };
    // taken by the intake just before: kept from now on, by a task of its own
    let mut keeper = LeaseKeeper::spawn(
        ctx.bus.clone(),
        ctx.match_id,
        lease.clone(),
        ctx.settings.lease_refresh,
    );
    let publisher = Arc::new(Publisher::new(
        ctx.bus.clone(),
        (ctx.match_id, ctx.session_id),
        ctx.worker_id.clone(),
        (
            ctx.settings.spool_dir.as_deref(),
            ctx.settings.ledger_dir.as_deref(),
        ),
        (ctx.settings.outbox_cap, ctx.settings.outbox_drain),
    ));
    publisher.status(SessionStatus::Starting, None).await;
    let _ = started.send(());

    let cancel = ctx.shutdown.child_token();
    let ended = pipeline::run_pipeline(&ctx, &publisher, &cancel, &mut keeper).await;
    cancel.cancel();
    keeper.stop().await;
    match ended {
        Ended::Completed => publisher.status(SessionStatus::Completed, None).await,
        Ended::Stopped(why) => publisher.status(SessionStatus::Stopped, Some(why)).await,
        Ended::Failed { code, message } => {
            publisher.error(code, &message).await;
            publisher.status(SessionStatus::Failed, Some(message)).await;
        }
    }
    if let Err(e) = ctx.bus.release_lease(&ctx.match_id, &lease).await {
        tracing::warn!(match_id = %ctx.match_id, "cannot release the lease (it expires in 8 s): {e}");
    }
}

/// Makes the session's analyser off the async runtime: loading a model blocks for seconds.
async fn create_analyzer(ctx: &SessionCtx) -> Result<Box<dyn Analyzer>, AnalyzerError> {
    let (settings, match_id, config) = (ctx.settings.clone(), ctx.match_id, ctx.config.clone());
    match tokio::task::spawn_blocking(move || settings.analyzers.create(&match_id, &config)).await {
        Ok(created) => created,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(AnalyzerError::Other(format!(
            "the model load was cancelled: {e}"
        ))),
    }
}

fn shutdown_end(ctx: &SessionCtx) -> Ended {
    Ended::Failed {
        code: ErrorData::INTERNAL,
        message: format!(
            "worker {} shut down while processing; start the session again to resume",
            ctx.worker_id
        ),
    }
}

/// `base · 2^(attempt-1)`, capped at 30 × base (1 s, 2 s, 4 s … 30 s with the default base).
#[must_use]
pub fn reconnect_delay(base: Duration, attempt: u32) -> Duration {
    let factor = 2u32.saturating_pow(attempt.saturating_sub(1)).min(30);
    base.saturating_mul(factor).min(base.saturating_mul(30))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_caps_at_30_s() {
        let b = Duration::from_secs(1);
        let got: Vec<u64> = (1..=7).map(|a| reconnect_delay(b, a).as_secs()).collect();
        assert_eq!(got, [1, 2, 4, 8, 16, 30, 30]);
    }
}
