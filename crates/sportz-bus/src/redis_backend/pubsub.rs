//! Pub/sub: a subscription's own connection, the relay task that feeds its queue and reconnects
//! with backoff (resubscribing every topic), and [`RedisControl`], which adds and removes topics.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::StreamExt;
use redis::Client;
use redis::aio::PubSubSink;
use tokio::sync::oneshot;

use super::{CONNECT_TIMEOUT, map_err};
use crate::queue::SubQueue;
use crate::{BusError, Message, Result, SubEvent, SubscriptionControl, Topic};

async fn apply(sink: &mut PubSubSink, topics: &[Topic], add: bool) -> Result<()> {
    for t in topics {
        let r = match (t, add) {
            (Topic::Channel(c), true) => sink.subscribe(c).await,
            (Topic::Channel(c), false) => sink.unsubscribe(c).await,
            (Topic::Pattern(p), true) => sink.psubscribe(p).await,
            (Topic::Pattern(p), false) => sink.punsubscribe(p).await,
        };
        r.map_err(|e| map_err(&e))?;
    }
    Ok(())
}

pub(super) async fn connect_pubsub(
    client: &Client,
    topics: &[Topic],
) -> Result<(PubSubSink, redis::aio::PubSubStream)> {
    let pubsub = tokio::time::timeout(CONNECT_TIMEOUT, client.get_async_pubsub())
        .await
        .map_err(|_| BusError::Unavailable("redis: pub/sub connect timed out".to_owned()))?
        .map_err(|e| map_err(&e))?;
    let (mut sink, stream) = pubsub.split();
    apply(&mut sink, topics, true).await?;
    Ok((sink, stream))
}

fn to_message(msg: &redis::Msg) -> Message {
    Message {
        channel: msg.get_channel_name().to_owned(),
        pattern: if msg.from_pattern() {
            msg.get_pattern::<String>().ok()
        } else {
            None
        },
        payload: String::from_utf8_lossy(msg.get_payload_bytes()).into_owned(),
    }
}

/// Relays one subscription's messages into its queue, reconnecting as needed, until the
/// subscription is dropped.
pub(super) async fn relay(
    client: Client,
    mut stream: redis::aio::PubSubStream,
    sink: Arc<tokio::sync::Mutex<Option<PubSubSink>>>,
    topics: Arc<Mutex<HashSet<Topic>>>,
    queue: Arc<SubQueue>,
    mut closed: oneshot::Receiver<()>,
) {
    loop {
        loop {
            tokio::select! {
                _ = &mut closed => return,
                msg = stream.next() => match msg {
                    Some(m) => {
                        if !queue.push(SubEvent::Message(to_message(&m))) {
                            return;
                        }
                    }
                    None => break,
                },
            }
        }
        *sink.lock().await = None;
        tracing::warn!("redis pub/sub connection lost; reconnecting");
        if !queue.push(SubEvent::Disconnected(
            "redis pub/sub connection lost".to_owned(),
        )) {
            return;
        }
        let mut backoff = Duration::from_millis(100);
        loop {
            tokio::select! {
                _ = &mut closed => return,
                () = tokio::time::sleep(backoff) => {}
            }
            let wanted: Vec<Topic> = topics
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .iter()
                .cloned()
                .collect();
            match connect_pubsub(&client, &wanted).await {
                Ok((new_sink, new_stream)) => {
                    *sink.lock().await = Some(new_sink);
                    stream = new_stream;
                    tracing::info!("redis pub/sub reconnected and resubscribed");
                    if !queue.push(SubEvent::Reconnected) {
                        return;
                    }
                    break;
                }
                Err(e) => {
                    tracing::debug!("redis pub/sub reconnect failed: {e}");
                    backoff = (backoff * 2).min(Duration::from_secs(2));
                }
            }
        }
    }
}

#[derive(Debug)]
pub(super) struct RedisControl {
    pub(super) sink: Arc<tokio::sync::Mutex<Option<PubSubSink>>>,
    pub(super) topics: Arc<Mutex<HashSet<Topic>>>,
    /// Dropped with the subscription: ends the relay task.
    pub(super) _closed: oneshot::Sender<()>,
}

impl RedisControl {
    async fn change(&self, topics: &[Topic], add: bool) -> Result<()> {
        {
            let mut set = self.topics.lock().unwrap_or_else(PoisonError::into_inner);
            for t in topics {
                if add {
                    set.insert(t.clone());
                } else {
                    set.remove(t);
                }
            }
        }
        // While disconnected the topic set alone is updated; the relay applies it on reconnect.
        let mut guard = self.sink.lock().await;
        match guard.as_mut() {
            Some(sink) => apply(sink, topics, add).await,
            None => Err(BusError::Unavailable(
                "redis pub/sub is reconnecting; the change applies once it is back".to_owned(),
            )),
        }
    }
}

#[async_trait::async_trait]
impl SubscriptionControl for RedisControl {
    async fn add(&self, topics: &[Topic]) -> Result<()> {
        self.change(topics, true).await
    }

    async fn remove(&self, topics: &[Topic]) -> Result<()> {
        self.change(topics, false).await
    }
}
