//! The lease keeper: a task of its own, spawned when the session starts, that refreshes
//! `match:{id}:lease` every [`WorkerSettings::lease_refresh`](crate::WorkerSettings) (1 s) for
//! as long as the session runs — whatever the session loop is doing at the time: probing the
//! source (ffprobe may take its whole timeout), loading the model, resolving the host or
//! waiting out a back-off. It ends when it reports the lease lost, or when its
//! [`LeaseKeeper`] is stopped or dropped at the end of the session.

use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::{Lease, MatchId};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// The running lease keeper of one session; dropping it stops the refreshes.
#[derive(Debug)]
pub(crate) struct LeaseKeeper {
    /// `Some(reason)` once the lease is lost to another worker.
    lost: watch::Receiver<Option<String>>,
    task: JoinHandle<()>,
}

impl LeaseKeeper {
    /// Starts refreshing `lease` every `every`, from now on.
    pub(crate) fn spawn(bus: ContractBus, m: MatchId, lease: Lease, every: Duration) -> Self {
        let (tx, lost) = watch::channel(None);
        let task = tokio::spawn(async move {
            let why = keep_lease(bus, m, lease, every).await;
            let _ = tx.send(Some(why));
        });
        Self { lost, task }
    }

    /// Resolves with the reason once the lease is lost to another worker; never resolves
    /// otherwise. Cancel-safe: it can be a branch of every `select!` of the session loop.
    pub(crate) async fn lost(&mut self) -> String {
        let lost = self.lost.wait_for(Option::is_some).await.ok();
        match lost.and_then(|why| why.clone()) {
            Some(why) => why,
            // the keeper is gone without a verdict (stopped): nothing to report
            None => std::future::pending().await,
        }
    }

    /// Stops the refreshes and waits until no refresh is in flight, so that nothing re-takes
    /// the lease after the session released it.
    pub(crate) async fn stop(mut self) {
        self.task.abort();
        let _ = (&mut self.task).await;
    }
}

impl Drop for LeaseKeeper {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Refreshes the lease every second. Resolves with the reason when the lease is lost to
/// another worker; bus outages are waited out (the lease is re-taken when the key is gone).
async fn keep_lease(bus: ContractBus, m: MatchId, lease: Lease, every: Duration) -> String {
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        match bus.refresh_lease(&m, &lease).await {
            Ok(true) | Err(_) => continue,
            Ok(false) => {}
        }
        // not ours: re-take it if nobody holds it (e.g. it expired during a bus outage)
        match bus.acquire_lease(&m, &lease).await {
            Ok(true) | Err(_) => {}
            Ok(false) => {
                let holder = bus.lease(&m).await.ok().flatten().map_or_else(
                    || "another worker".to_owned(),
                    |l| format!("worker {}", l.worker_id),
                );
                return format!("lease lost to {holder}");
            }
        }
    }
}
