//! Late events for a new live client of `/ws/matches/{id}`.
//!
//! The worker publishes each event twice (contract): on `events:stream`, which this API persists,
//! and on `match:{id}:events`, which the relay forwards. A client that joins reads its snapshot's
//! events from the store, so an event published just before it joined (missed by the relay) but
//! persisted just after its snapshot was read (missed by the snapshot) would never reach it. This
//! happens most after the bus comes back: the worker's outbox publishes what it held while the
//! persister is still retrying, and the clients reconnect at the same moment.
//!
//! So after the snapshot the store is read again a few times ([`crate::state::ApiConfig::catch_up`],
//! delays from the join) for events stored after the snapshot's newest one; each goes through the
//! client's queue, which sends an event id once (`ClientQueue::push_event`), so what the relay or
//! the snapshot already delivered is not sent twice.

use std::sync::Arc;
use std::time::Duration;

use sportz_contract::{EventId, MatchId, Payload};
use sportz_store::StoredEvent;

use crate::queue::{ClientQueue, Pushed};
use crate::state::AppState;

/// Events one read may return (the recovery limit of `?since=`).
pub const MAX_EVENTS: u32 = 1000;

/// A stored event as the live socket sends it.
#[must_use]
pub fn event_message(m: MatchId, e: &StoredEvent) -> String {
    sportz_contract::Envelope {
        match_id: m,
        session_id: e.session_id,
        ts: e.created_at.unix_timestamp_nanos() as f64 / 1e9,
        seq: 0,
        payload: Payload::Event(e.data.clone()),
    }
    .to_json()
}

/// Reads the store at each of `delays` after the join (the first is counted from now) and queues
/// the events stored after `after` (the snapshot's newest; `None`: the snapshot had none, so the
/// last 50). Ends when the client's queue closes.
pub async fn run(
    st: Arc<AppState>,
    m: MatchId,
    after: Option<EventId>,
    queue: Arc<ClientQueue>,
    delays: Vec<Duration>,
) {
    let start = tokio::time::Instant::now();
    for delay in delays {
        tokio::time::sleep_until(start + delay).await;
        let found = match after {
            Some(a) => st.store.events_after(m, a, MAX_EVENTS).await,
            None => Ok(None),
        };
        let events = match found {
            Ok(Some(v)) => Ok(v),
            Ok(None) => st.store.recent_events(m, 50).await,
            Err(e) => Err(e),
        };
        let events = match events {
            Ok(v) => v,
            Err(e) => {
                tracing::debug!(match_id = %m, "late events not read this time: {e}");
                continue;
            }
        };
        let mut late = 0;
        for e in &events {
            match queue.push_event(e.data.event_id, event_message(m, e).into()) {
                Pushed::Closing => return,
                Pushed::Queued => late += 1,
                _ => {}
            }
        }
        if late > 0 {
            tracing::debug!(match_id = %m, "{late} event(s) stored after a client's snapshot queued for it");
        }
    }
}
