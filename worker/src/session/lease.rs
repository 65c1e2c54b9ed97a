//! The lease keeper: refreshes `match:{id}:lease` every second while the session runs, and
//! reports when the lease was lost to another worker.

use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::{Lease, MatchId};

/// Refreshes the lease every second. Resolves with the reason when the lease is lost to
/// another worker; bus outages are waited out (the lease is re-taken when the key is gone).
pub(crate) async fn keep_lease(
    bus: ContractBus,
    m: MatchId,
    lease: Lease,
    every: Duration,
) -> String {
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
