//! Live relays for `/ws/matches/{id}`: one bus subscription per watched match per instance,
//! shared by all of this instance's clients of that match and dropped with the last of them.
//! Frames go to each client latest-wins; status, events, metrics and errors are reliable.
//! When the bus connection is lost, every client gets an `error` message and is closed with 1011;
//! when it is back, the clients that joined meanwhile are closed with 1012 (as the match centre's
//! are), so that they re-sync from the store once the relay is subscribed again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use sportz_bus::{ContractBus, MatchFeed};
use sportz_contract::{Envelope, ErrorData, MatchId, MessageType, Payload};
use tokio::task::JoinHandle;

use crate::centre::ClientId;
use crate::error::ApiResult;
use crate::metrics::Metrics;
use crate::queue::{ClientQueue, Text};

/// Close code when the bus is unavailable.
pub const CLOSE_BUS_UNAVAILABLE: u16 = 1011;

type Clients = Arc<Mutex<HashMap<ClientId, Arc<ClientQueue>>>>;

#[derive(Debug)]
struct Relay {
    clients: Clients,
    task: JoinHandle<()>,
}

#[derive(Debug, Default)]
pub struct MatchRelays {
    relays: Mutex<HashMap<MatchId, Relay>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// The error message sent before a 1011 close.
#[must_use]
pub fn bus_error_message(m: MatchId, why: &str) -> String {
    Envelope {
        match_id: m,
        session_id: None,
        ts: sportz_contract::unix_now(),
        seq: 0,
        payload: Payload::Error(ErrorData {
            code: ErrorData::BUS_UNAVAILABLE.to_owned(),
            message: format!("the bus is unavailable ({why}); reconnect with backoff"),
        }),
    }
    .to_json()
}

impl MatchRelays {
    /// Adds a client to a match's relay, subscribing on the bus when it is the first one.
    ///
    /// # Errors
    /// When the bus cannot be subscribed to.
    pub async fn join(
        self: &Arc<Self>,
        bus: &ContractBus,
        metrics: &Arc<Metrics>,
        m: MatchId,
        id: ClientId,
        q: Arc<ClientQueue>,
    ) -> ApiResult<()> {
        if let Some(r) = lock(&self.relays).get(&m) {
            lock(&r.clients).insert(id, q);
            return Ok(());
        }
        let mut feed = bus.subscribe_match(&m, 100_000).await?;
        let mut relays = lock(&self.relays);
        if let Some(r) = relays.get(&m) {
            // another client subscribed meanwhile; ours is dropped
            lock(&r.clients).insert(id, q);
            return Ok(());
        }
        let clients: Clients = Arc::default();
        lock(&clients).insert(id, q);
        let (c, metrics) = (clients.clone(), metrics.clone());
        let task = tokio::spawn(async move {
            while let Some(item) = feed.next().await {
                let targets: Vec<Arc<ClientQueue>> = lock(&c).values().cloned().collect();
                match item {
                    MatchFeed::Message(env) => {
                        let frame = env.message_type() == MessageType::Frame;
                        let event = match &env.payload {
                            Payload::Event(e) => Some(e.event_id),
                            _ => None,
                        };
                        let text = Text::from(env.to_json());
                        for q in targets {
                            let pushed = match event {
                                _ if frame => q.push_frame(text.clone()),
                                Some(id) => q.push_event(id, text.clone()),
                                None => q.push(text.clone()),
                            };
                            metrics.record_push("ws_match", pushed);
                        }
                    }
                    MatchFeed::Malformed { channel, reason } => {
                        tracing::warn!(%channel, "not relaying a malformed message: {reason}");
                    }
                    MatchFeed::Lagged(n) => {
                        tracing::warn!(match_id = %m, "relay lagged by {n}; clients re-sync");
                        for q in targets {
                            q.close(
                                crate::queue::CLOSE_TOO_SLOW,
                                "relay lagged: re-sync from the snapshot",
                            );
                        }
                    }
                    MatchFeed::Disconnected(why) => {
                        let msg = Text::from(bus_error_message(m, &why));
                        for q in targets {
                            q.push(msg.clone());
                            q.close(CLOSE_BUS_UNAVAILABLE, "bus unavailable");
                        }
                    }
                    MatchFeed::Reconnected => {
                        // clients that joined while the bus was away read their snapshot before
                        // this relay was subscribed again: what was published in between reached
                        // the store but not them, so they reconnect and re-sync from it
                        for q in targets {
                            q.close(
                                crate::queue::CLOSE_SERVICE_RESTART,
                                "the bus is back: reconnect to re-sync from the store",
                            );
                        }
                    }
                }
            }
        });
        relays.insert(m, Relay { clients, task });
        Ok(())
    }

    /// Removes a client; the last one out drops the bus subscription.
    pub fn leave(&self, m: MatchId, id: ClientId) {
        let mut relays = lock(&self.relays);
        let empty = relays.get(&m).is_some_and(|r| {
            let mut c = lock(&r.clients);
            c.remove(&id);
            c.is_empty()
        });
        if empty && let Some(r) = relays.remove(&m) {
            r.task.abort();
        }
    }

    /// Matches with a live relay on this instance.
    pub fn watched(&self) -> usize {
        lock(&self.relays).len()
    }
}
