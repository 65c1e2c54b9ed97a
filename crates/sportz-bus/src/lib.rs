//! The bus: what the contract needs from Redis, behind one interface with two backends.
//!
//! - [`RedisBus`]: Redis through the `redis` crate — multiplexed connections that reconnect,
//!   blocking stream reads on their own connections, pub/sub that resubscribes after a reconnect.
//! - [`MemoryBus`]: the in-process backend of the embedded default, with the same semantics
//!   (TTL expiry, consumer groups with pending lists and delivery counts, claiming idle entries,
//!   pattern subscriptions, bounded per-subscriber buffers).
//! - [`ContractBus`]: the typed layer over either, used by the worker and the API alike.
//!
//! Both backends pass one conformance suite (`tests/conformance.rs`).
//!
//! Pub/sub delivery is at-most-once, as with Redis: a subscriber that reads slowly loses its
//! oldest messages (reported as [`SubEvent::Lagged`]) and never blocks a publisher. Streams are
//! at-least-once: an entry stays pending until acked, is re-read by its consumer after a restart
//! and can be claimed by another consumer once idle.

mod glob;
mod memory;
mod queue;
mod redis_backend;
mod typed;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use memory::MemoryBus;
pub use redis_backend::RedisBus;
pub use typed::{
    CLAIM_IDLE, COMMANDS_MAX_LEN, CommandIntake, ContractBus, EVENTS_MAX_LEN, MatchFeed,
    MatchSubscription, STATUS_MAX_LEN, StreamConsumer, StreamItem,
};

/// What can go wrong on the bus.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum BusError {
    /// The backend cannot be reached (Redis down, connection dropped, timed out). Callers treat
    /// this as "retry later"; the API closes WebSockets with 1011 on it.
    #[error("bus unavailable: {0}")]
    Unavailable(String),
    /// A stream read or ack named a consumer group that does not exist.
    #[error("no consumer group `{group}` on stream `{stream}`")]
    NoGroup { stream: String, group: String },
    /// A stored value or message was not what the contract says it should be.
    #[error("malformed value in `{key}`: {reason}")]
    Malformed { key: String, reason: String },
    /// The backend answered something this code does not understand.
    #[error("unexpected reply from the bus: {0}")]
    Protocol(String),
}

impl BusError {
    /// Whether this is the "backend unavailable" kind.
    #[must_use]
    pub const fn is_unavailable(&self) -> bool {
        matches!(self, Self::Unavailable(_))
    }
}

pub type Result<T, E = BusError> = std::result::Result<T, E>;

/// One stream entry. Every entry carries one field, `data`, holding a JSON document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEntry {
    /// `<ms>-<seq>`, as Redis writes it.
    pub id: String,
    pub data: String,
}

/// An entry of a group's pending list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingEntry {
    pub id: String,
    pub consumer: String,
    /// Time since it was last delivered.
    pub idle: Duration,
    /// How many times it was delivered (reads of `>`, re-reads of own pending entries, claims).
    pub deliveries: u64,
}

/// Which entries a group read returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadFrom {
    /// New entries (`>`), waiting up to `block` for one to arrive.
    New { block: Duration },
    /// This consumer's own pending entries (`0`): what it read before a restart and never acked.
    OwnPending,
}

/// A pub/sub subscription target.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Topic {
    /// One channel by name.
    Channel(String),
    /// A Redis glob pattern (`*`, `?`, `[abc]`, `\` escapes) over channel names.
    Pattern(String),
}

/// One pub/sub message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub channel: String,
    /// The pattern it matched, for pattern subscriptions.
    pub pattern: Option<String>,
    pub payload: String,
}

/// What a subscription yields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SubEvent {
    Message(Message),
    /// This many older messages were dropped because the subscriber read too slowly.
    Lagged(u64),
    /// The connection to the backend was lost; messages published meanwhile are lost. The
    /// subscription keeps trying to reconnect and yields [`SubEvent::Reconnected`] when it has
    /// resubscribed.
    Disconnected(String),
    Reconnected,
}

/// The default number of undelivered messages a subscription buffers before dropping the oldest.
pub const DEFAULT_SUBSCRIPTION_CAPACITY: usize = 1024;

/// The operations the contract uses. Implemented by [`RedisBus`] and [`MemoryBus`].
#[async_trait::async_trait]
pub trait Bus: Send + Sync + fmt::Debug {
    // ---- streams ----

    /// Appends an entry (field `data`), trimming the stream to about `max_len` entries.
    async fn xadd(&self, stream: &str, data: &str, max_len: usize) -> Result<String>;
    /// Creates a consumer group reading from the start of the stream (creating the stream if
    /// needed). Creating an existing group is not an error.
    async fn ensure_group(&self, stream: &str, group: &str) -> Result<()>;
    /// Reads up to `count` entries for `consumer` of `group`.
    async fn read_group(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        count: usize,
        from: ReadFrom,
    ) -> Result<Vec<StreamEntry>>;
    /// Acknowledges entries; returns how many were pending.
    async fn ack(&self, stream: &str, group: &str, ids: &[String]) -> Result<u64>;
    /// Moves up to `count` entries idle for at least `min_idle` (from any consumer) to
    /// `consumer` and returns them (XAUTOCLAIM).
    async fn autoclaim(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Result<Vec<StreamEntry>>;
    /// The group's pending list, oldest first, up to `count`.
    async fn pending(&self, stream: &str, group: &str, count: usize) -> Result<Vec<PendingEntry>>;
    /// Number of entries in the stream.
    async fn stream_len(&self, stream: &str) -> Result<u64>;

    // ---- strings with TTL ----

    /// Sets a value, with an expiry or without one.
    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<()>;
    /// Sets a value only if the key does not exist; returns whether it was set.
    async fn set_nx(&self, key: &str, value: &str, ttl: Duration) -> Result<bool>;
    async fn get(&self, key: &str) -> Result<Option<String>>;
    /// Resets a key's expiry; returns false when the key does not exist.
    async fn expire(&self, key: &str, ttl: Duration) -> Result<bool>;
    /// Resets a key's expiry only if it holds `expected`; returns whether it did.
    async fn expire_if_eq(&self, key: &str, expected: &str, ttl: Duration) -> Result<bool>;
    /// Deletes a key; returns whether it existed.
    async fn del(&self, key: &str) -> Result<bool>;
    /// Deletes a key only if it holds `expected`; returns whether it did.
    async fn del_if_eq(&self, key: &str, expected: &str) -> Result<bool>;
    /// Keys matching a glob pattern (SCAN, not KEYS).
    async fn keys(&self, pattern: &str) -> Result<Vec<String>>;
    /// Remaining time to live; `None` when the key is missing or has no expiry.
    async fn ttl(&self, key: &str) -> Result<Option<Duration>>;

    // ---- pub/sub ----

    /// Publishes to a channel; returns how many subscriptions received it.
    async fn publish(&self, channel: &str, payload: &str) -> Result<u64>;
    /// Subscribes to topics with a buffer of `capacity` messages.
    async fn subscribe(&self, topics: &[Topic], capacity: usize) -> Result<Subscription>;

    /// Round-trip to the backend (readiness checks).
    async fn ping(&self) -> Result<()>;
    /// `redis` or `memory`.
    fn backend(&self) -> &'static str;
}

/// Changes a live subscription's topics (backend-specific).
#[async_trait::async_trait]
pub(crate) trait SubscriptionControl: Send + Sync + fmt::Debug {
    async fn add(&self, topics: &[Topic]) -> Result<()>;
    async fn remove(&self, topics: &[Topic]) -> Result<()>;
}

/// A live subscription. Dropping it unsubscribes.
#[derive(Debug)]
pub struct Subscription {
    queue: Arc<queue::SubQueue>,
    control: Box<dyn SubscriptionControl>,
}

impl Subscription {
    /// The next event; `None` once the bus has shut down.
    pub async fn next(&mut self) -> Option<SubEvent> {
        self.queue.pop().await
    }

    /// Adds topics.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the backend cannot be reached.
    pub async fn subscribe(&self, topics: &[Topic]) -> Result<()> {
        self.control.add(topics).await
    }

    /// Removes topics.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the backend cannot be reached.
    pub async fn unsubscribe(&self, topics: &[Topic]) -> Result<()> {
        self.control.remove(topics).await
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.queue.close();
    }
}

/// Connects to the bus a URL names: `redis://…` / `rediss://…` for Redis; `None` or `memory`
/// for a new in-process bus.
///
/// # Errors
/// An unsupported URL, or [`BusError::Unavailable`] when Redis cannot be reached.
pub async fn connect(url: Option<&str>) -> Result<Arc<dyn Bus>> {
    match url {
        None | Some("" | "memory" | "memory://") => Ok(Arc::new(MemoryBus::new())),
        Some(u) if u.starts_with("redis://") || u.starts_with("rediss://") => {
            Ok(Arc::new(RedisBus::connect(u).await?))
        }
        Some(u) => Err(BusError::Unavailable(format!(
            "unsupported bus url `{u}`: expected redis://host:port or memory"
        ))),
    }
}
