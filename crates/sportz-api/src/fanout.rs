//! Match-centre broadcasts across API instances. Every broadcast is published on the bus —
//! global messages on `sportz:broadcast`, commentary on `match:{id}:commentary` — and every
//! instance relays what it receives to its own `/ws` clients. One instance or ten, a client on
//! instance A receives what was created on instance B. When the subscription is lost, every
//! `/ws` client gets an `error` and is closed with 1011, and when it is back every client (also
//! those that connected meanwhile) is closed with 1012: each reconnects and re-reads what it may
//! have missed (the web UI re-fetches scores and commentary on reconnect).

use std::sync::Arc;
use std::time::Duration;

use sportz_bus::{SubEvent, Topic};
use sportz_contract::keys::{self, Channel};
use sportz_contract::match_centre::ServerMessage;

use crate::error::ApiResult;
use crate::state::AppState;

/// Close code for the clients of an outage that is over: reconnect (at once) and re-sync.
pub use crate::queue::CLOSE_SERVICE_RESTART;

/// Publishes a match-centre message for every instance.
///
/// # Errors
/// [`crate::ApiError::Unavailable`] when the bus is down.
pub async fn broadcast(state: &AppState, msg: &ServerMessage) -> ApiResult<()> {
    let json = msg.to_json();
    let channel = match msg.room() {
        Some(m) => Channel::Commentary.name(m),
        None => keys::MATCH_CENTRE_BROADCAST.to_owned(),
    };
    state.bus.raw().publish(&channel, &json).await?;
    Ok(())
}

/// Broadcasts, logging (not failing the request) when the bus is down: the change itself is
/// already stored, and clients re-read it when they reconnect.
pub async fn broadcast_or_log(state: &AppState, msg: &ServerMessage, what: &str) {
    if let Err(e) = broadcast(state, msg).await {
        tracing::warn!("{what} not broadcast: {e}");
    }
}

/// Relays bus broadcasts to this instance's `/ws` clients until shutdown.
pub async fn run(state: Arc<AppState>) {
    let topics = [
        Topic::Channel(keys::MATCH_CENTRE_BROADCAST.to_owned()),
        Topic::Pattern(Channel::Commentary.pattern()),
    ];
    loop {
        let sub = tokio::select! {
            () = state.shutdown.cancelled() => return,
            s = state.bus.raw().subscribe(&topics, 100_000) => s,
        };
        let mut sub = match sub {
            Ok(s) => {
                state
                    .fanout_ready
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                s
            }
            Err(e) => {
                tracing::warn!("match-centre fan-out cannot subscribe yet: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        loop {
            let ev = tokio::select! {
                () = state.shutdown.cancelled() => return,
                ev = sub.next() => ev,
            };
            match ev {
                None => break,
                Some(SubEvent::Message(m)) => relay(&state, &m.payload),
                Some(SubEvent::Lagged(n)) => {
                    tracing::warn!("match-centre fan-out lagged by {n} messages")
                }
                Some(SubEvent::Disconnected(why)) => {
                    // not ready until broadcasts can reach this instance's clients again
                    state
                        .fanout_ready
                        .store(false, std::sync::atomic::Ordering::SeqCst);
                    tracing::warn!("match-centre fan-out: {why}");
                    // what is broadcast meanwhile would be lost on them: they are told and
                    // closed, reconnect with back-off and re-read scores and commentary
                    let msg = ServerMessage::Error {
                        message: format!(
                            "match-centre broadcasts interrupted ({why}); reconnect and re-sync"
                        ),
                    };
                    state.centre.close_all(
                        &crate::queue::Text::from(msg.to_json()),
                        crate::relay::CLOSE_BUS_UNAVAILABLE,
                        "bus unavailable",
                    );
                }
                Some(SubEvent::Reconnected) => {
                    tracing::info!("match-centre fan-out resubscribed");
                    // clients that connected during the outage missed its broadcasts too; then
                    // ready (a client that connects once it is ready misses nothing)
                    let msg = ServerMessage::Error {
                        message: "match-centre broadcasts resumed; reconnect and re-sync".into(),
                    };
                    state.centre.close_all(
                        &crate::queue::Text::from(msg.to_json()),
                        CLOSE_SERVICE_RESTART,
                        "broadcasts resumed: re-sync",
                    );
                    state
                        .fanout_ready
                        .store(true, std::sync::atomic::Ordering::SeqCst);
                }
            }
        }
    }
}

fn relay(state: &AppState, payload: &str) {
    let msg: ServerMessage = match serde_json::from_str(payload) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!("ignoring a malformed match-centre broadcast: {e}");
            return;
        }
    };
    let text = crate::queue::Text::from(payload);
    if msg.is_global() {
        state.centre.broadcast_all(&text, &state.metrics);
    } else if let Some(m) = msg.room() {
        state.centre.broadcast_room(m, &text, &state.metrics);
    }
}
