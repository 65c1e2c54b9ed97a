//! The typed layer: the contract's operations over either backend, used by the worker and the
//! API alike. Every key comes from `sportz_contract::keys`; every value is a contract type.

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use serde::de::DeserializeOwned;
use sportz_contract::keys::{self, Channel};
use sportz_contract::{Control, Envelope, Heartbeat, Lease, MatchId, MessageType, WorkerCommand};

use crate::{Bus, BusError, ReadFrom, Result, SubEvent, Subscription, Topic};

/// Stream lengths kept (approximately) before old entries are trimmed.
pub const COMMANDS_MAX_LEN: usize = 10_000;
pub const STATUS_MAX_LEN: usize = 100_000;
pub const EVENTS_MAX_LEN: usize = 100_000;

/// How long an entry must sit unacked on a consumer before another consumer claims it.
pub const CLAIM_IDLE: Duration = Duration::from_secs(30);

fn to_json<T: Serialize>(v: &T) -> String {
    serde_json::to_string(v).expect("contract types always serialise")
}

fn parse<T: DeserializeOwned>(key: &str, text: &str) -> Result<T> {
    serde_json::from_str(text).map_err(|e| BusError::Malformed {
        key: key.to_owned(),
        reason: e.to_string(),
    })
}

/// One stream entry read by a consumer: its id (to ack) and its value, or why the value is
/// malformed (the caller logs and acks it: it can never be processed).
#[derive(Debug, Clone)]
pub struct StreamItem<T> {
    pub id: String,
    pub value: std::result::Result<T, String>,
}

/// A consumer of one stream in one group: on start it first re-reads its own pending entries,
/// then claims entries left idle by dead consumers, then reads new ones.
#[derive(Debug)]
pub struct StreamConsumer {
    bus: Arc<dyn Bus>,
    stream: &'static str,
    group: &'static str,
    consumer: String,
    pending_done: bool,
    claim_idle: Duration,
    last_claim: Option<std::time::Instant>,
}

impl StreamConsumer {
    /// Makes the next read start again from this consumer's own pending entries (delivered,
    /// not acked), oldest first: after a transient failure the entry that failed and the rest
    /// of its batch come back at once and in order, not only when claimed as idle much later.
    pub fn reread_pending(&mut self) {
        self.pending_done = false;
    }

    /// Next entries (up to `count`), waiting up to `block` for new ones.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down (retry later).
    pub async fn next_batch<T: DeserializeOwned>(
        &mut self,
        count: usize,
        block: Duration,
    ) -> Result<Vec<StreamItem<T>>> {
        let raw = self.next_raw(count, block).await?;
        Ok(raw
            .into_iter()
            .map(|e| StreamItem {
                value: serde_json::from_str(&e.data)
                    .map_err(|err| format!("malformed entry {} on `{}`: {err}", e.id, self.stream)),
                id: e.id,
            })
            .collect())
    }

    async fn next_raw(&mut self, count: usize, block: Duration) -> Result<Vec<crate::StreamEntry>> {
        if !self.pending_done {
            let own = self.read(count, ReadFrom::OwnPending).await?;
            if !own.is_empty() {
                return Ok(own);
            }
            self.pending_done = true;
        }
        let claim_due = self
            .last_claim
            .is_none_or(|t| t.elapsed() >= self.claim_idle / 2);
        if claim_due {
            self.last_claim = Some(std::time::Instant::now());
            let claimed = self
                .bus
                .autoclaim(
                    self.stream,
                    self.group,
                    &self.consumer,
                    self.claim_idle,
                    count,
                )
                .await?;
            if !claimed.is_empty() {
                tracing::info!(
                    stream = self.stream,
                    consumer = %self.consumer,
                    n = claimed.len(),
                    "claimed entries left idle by another consumer"
                );
                return Ok(claimed);
            }
        }
        self.read(count, ReadFrom::New { block }).await
    }

    async fn read(&self, count: usize, from: ReadFrom) -> Result<Vec<crate::StreamEntry>> {
        match self
            .bus
            .read_group(self.stream, self.group, &self.consumer, count, from)
            .await
        {
            // the group vanished (Redis restarted empty): recreate it and read again
            Err(BusError::NoGroup { .. }) => {
                self.bus.ensure_group(self.stream, self.group).await?;
                self.bus
                    .read_group(self.stream, self.group, &self.consumer, count, from)
                    .await
            }
            other => other,
        }
    }

    /// Acknowledges one processed entry.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down: the entry stays pending and is re-read.
    pub async fn ack(&self, id: &str) -> Result<()> {
        self.bus
            .ack(self.stream, self.group, &[id.to_owned()])
            .await
            .map(|_| ())
    }

    /// Changes how long entries must be idle before this consumer claims them.
    #[must_use]
    pub const fn with_claim_idle(mut self, idle: Duration) -> Self {
        self.claim_idle = idle;
        self
    }
}

/// A worker's reader of `worker:commands` (group `workers`). Call [`CommandIntake::next`] only
/// while the worker has spare capacity: an entry read is owned by this worker until acked.
#[derive(Debug)]
pub struct CommandIntake {
    consumer: StreamConsumer,
}

impl CommandIntake {
    /// The next start command (at most one), waiting up to `block`.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn next(&mut self, block: Duration) -> Result<Option<StreamItem<WorkerCommand>>> {
        Ok(self.consumer.next_batch(1, block).await?.into_iter().next())
    }

    /// Acknowledges a command once its session has started or has failed with a status.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn ack(&self, id: &str) -> Result<()> {
        self.consumer.ack(id).await
    }
}

/// What a match subscription yields.
#[derive(Debug, Clone, PartialEq)]
pub enum MatchFeed {
    Message(Box<Envelope>),
    /// A message on the match's channels that is not a valid envelope.
    Malformed {
        channel: String,
        reason: String,
    },
    /// Older messages were dropped: the reader was too slow.
    Lagged(u64),
    /// The bus connection was lost; messages meanwhile are lost.
    Disconnected(String),
    Reconnected,
}

/// The contract over a bus.
#[derive(Debug, Clone)]
pub struct ContractBus {
    bus: Arc<dyn Bus>,
}

impl ContractBus {
    #[must_use]
    pub fn new(bus: Arc<dyn Bus>) -> Self {
        Self { bus }
    }

    /// The untyped bus underneath.
    #[must_use]
    pub const fn raw(&self) -> &Arc<dyn Bus> {
        &self.bus
    }

    // ---- commands ----

    /// Appends a start command to `worker:commands`.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn send_command(&self, cmd: &WorkerCommand) -> Result<String> {
        self.bus
            .xadd(keys::WORKER_COMMANDS, &to_json(cmd), COMMANDS_MAX_LEN)
            .await
    }

    /// A reader of `worker:commands` in group `workers` for this worker.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn command_intake(&self, worker_id: &str) -> Result<CommandIntake> {
        Ok(CommandIntake {
            consumer: self
                .consumer(keys::WORKER_COMMANDS, keys::WORKERS_GROUP, worker_id)
                .await?,
        })
    }

    /// A consumer of `stream` in `group` (the group is created if missing).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn consumer(
        &self,
        stream: &'static str,
        group: &'static str,
        consumer: &str,
    ) -> Result<StreamConsumer> {
        self.bus.ensure_group(stream, group).await?;
        Ok(StreamConsumer {
            bus: self.bus.clone(),
            stream,
            group,
            consumer: consumer.to_owned(),
            pending_done: false,
            claim_idle: CLAIM_IDLE,
            last_claim: None,
        })
    }

    // ---- control ----

    /// Writes the desired state of a match (no expiry).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn set_control(&self, m: &MatchId, control: &Control) -> Result<()> {
        self.bus
            .set(&keys::control(m), &to_json(control), None)
            .await
    }

    /// The desired state of a match, if any.
    ///
    /// # Errors
    /// [`BusError::Unavailable`]; [`BusError::Malformed`] when the key holds something else.
    pub async fn control(&self, m: &MatchId) -> Result<Option<Control>> {
        self.get_json(&keys::control(m)).await
    }

    // ---- lease ----

    /// Takes the lease of a match if nobody holds it (TTL 8 s); returns whether it was taken.
    /// A worker that already holds it (same value) keeps it.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn acquire_lease(&self, m: &MatchId, lease: &Lease) -> Result<bool> {
        let key = keys::lease(m);
        let value = to_json(lease);
        if self.bus.set_nx(&key, &value, keys::LEASE_TTL).await? {
            return Ok(true);
        }
        self.bus.expire_if_eq(&key, &value, keys::LEASE_TTL).await
    }

    /// Extends the lease if this worker still holds it; false means it was lost.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn refresh_lease(&self, m: &MatchId, lease: &Lease) -> Result<bool> {
        self.bus
            .expire_if_eq(&keys::lease(m), &to_json(lease), keys::LEASE_TTL)
            .await
    }

    /// Gives the lease up if this worker holds it.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn release_lease(&self, m: &MatchId, lease: &Lease) -> Result<bool> {
        self.bus.del_if_eq(&keys::lease(m), &to_json(lease)).await
    }

    /// Who holds a match.
    ///
    /// # Errors
    /// [`BusError::Unavailable`]; [`BusError::Malformed`].
    pub async fn lease(&self, m: &MatchId) -> Result<Option<Lease>> {
        self.get_json(&keys::lease(m)).await
    }

    // ---- heartbeats ----

    /// Writes a worker's heartbeat (TTL 10 s).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn write_heartbeat(&self, hb: &Heartbeat) -> Result<()> {
        self.bus
            .set(
                &keys::heartbeat(&hb.worker_id),
                &to_json(hb),
                Some(keys::HEARTBEAT_TTL),
            )
            .await
    }

    /// Every live worker's heartbeat, by worker id; malformed ones are skipped with a warning.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn heartbeats(&self) -> Result<Vec<Heartbeat>> {
        let mut out = Vec::new();
        for key in self.bus.keys(keys::HEARTBEAT_PATTERN).await? {
            match self.get_json::<Heartbeat>(&key).await {
                Ok(Some(hb)) => out.push(hb),
                Ok(None) => {} // expired meanwhile
                Err(BusError::Malformed { key, reason }) => {
                    tracing::warn!(%key, %reason, "skipping malformed heartbeat");
                }
                Err(e) => return Err(e),
            }
        }
        out.sort_by(|a, b| a.worker_id.cmp(&b.worker_id));
        Ok(out)
    }

    // ---- publishing ----

    /// Publishes a contract message where the contract says it goes:
    /// - `status`: `status:updates` (stream) and `match:{id}:status`;
    /// - `error`: `match:{id}:status`;
    /// - `event`: `events:stream` (stream) and `match:{id}:events`;
    /// - `frame`: `match:{id}:detections` and `match:{id}:frame:last` (TTL 30 s);
    /// - `ball`, `players`: `match:{id}:detections`;
    /// - `metrics`: `match:{id}:metrics` and `match:{id}:metrics:last` (TTL 30 s).
    ///
    /// Streams are written before the pub/sub message, so a persisted copy exists for everything
    /// a client saw.
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn publish(&self, env: &Envelope) -> Result<()> {
        let m = &env.match_id;
        let json = env.to_json();
        match env.message_type() {
            MessageType::Status => {
                self.bus
                    .xadd(keys::STATUS_UPDATES, &json, STATUS_MAX_LEN)
                    .await?;
                self.bus.publish(&Channel::Status.name(m), &json).await?;
            }
            MessageType::Error => {
                self.bus.publish(&Channel::Status.name(m), &json).await?;
            }
            MessageType::Event => {
                self.bus
                    .xadd(keys::EVENTS_STREAM, &json, EVENTS_MAX_LEN)
                    .await?;
                self.bus.publish(&Channel::Events.name(m), &json).await?;
            }
            MessageType::Frame => {
                self.bus
                    .set(&keys::frame_last(m), &json, Some(keys::SNAPSHOT_TTL))
                    .await?;
                self.bus
                    .publish(&Channel::Detections.name(m), &json)
                    .await?;
            }
            MessageType::Ball | MessageType::Players => {
                self.bus
                    .publish(&Channel::Detections.name(m), &json)
                    .await?;
            }
            MessageType::Metrics => {
                self.bus
                    .set(&keys::metrics_last(m), &json, Some(keys::SNAPSHOT_TTL))
                    .await?;
                self.bus.publish(&Channel::Metrics.name(m), &json).await?;
            }
        }
        Ok(())
    }

    /// Publishes a message on `match:{id}:status` only (the API's own status and error
    /// messages, which must not re-enter `status:updates`).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn publish_status_only(&self, env: &Envelope) -> Result<()> {
        self.bus
            .publish(&Channel::Status.name(&env.match_id), &env.to_json())
            .await
            .map(|_| ())
    }

    // ---- snapshots ----

    /// The last frame of a match (`match:{id}:frame:last`), while it is fresh.
    ///
    /// # Errors
    /// [`BusError::Unavailable`]; [`BusError::Malformed`].
    pub async fn last_frame(&self, m: &MatchId) -> Result<Option<Envelope>> {
        self.get_envelope(&keys::frame_last(m)).await
    }

    /// The last metrics of a match (`match:{id}:metrics:last`), while they are fresh.
    ///
    /// # Errors
    /// [`BusError::Unavailable`]; [`BusError::Malformed`].
    pub async fn last_metrics(&self, m: &MatchId) -> Result<Option<Envelope>> {
        self.get_envelope(&keys::metrics_last(m)).await
    }

    // ---- subscriptions ----

    /// Subscribes to one match's four contract channels (status, events, detections, metrics).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] when the bus is down.
    pub async fn subscribe_match(&self, m: &MatchId, capacity: usize) -> Result<MatchSubscription> {
        let topics: Vec<Topic> = Channel::RELAYED
            .iter()
            .map(|c| Topic::Channel(c.name(m)))
            .collect();
        Ok(MatchSubscription {
            inner: self.bus.subscribe(&topics, capacity).await?,
        })
    }

    async fn get_json<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>> {
        match self.bus.get(key).await? {
            Some(text) => parse(key, &text).map(Some),
            None => Ok(None),
        }
    }

    async fn get_envelope(&self, key: &str) -> Result<Option<Envelope>> {
        match self.bus.get(key).await? {
            Some(text) => Envelope::from_json(&text)
                .map(Some)
                .map_err(|e| BusError::Malformed {
                    key: key.to_owned(),
                    reason: e.to_string(),
                }),
            None => Ok(None),
        }
    }
}

/// One match's contract channels as a stream of envelopes.
#[derive(Debug)]
pub struct MatchSubscription {
    inner: Subscription,
}

impl MatchSubscription {
    /// The next item; `None` when the bus has shut down.
    pub async fn next(&mut self) -> Option<MatchFeed> {
        Some(match self.inner.next().await? {
            SubEvent::Message(m) => match Envelope::from_json(&m.payload) {
                Ok(env) => MatchFeed::Message(Box::new(env)),
                Err(e) => MatchFeed::Malformed {
                    channel: m.channel,
                    reason: e.to_string(),
                },
            },
            SubEvent::Lagged(n) => MatchFeed::Lagged(n),
            SubEvent::Disconnected(why) => MatchFeed::Disconnected(why),
            SubEvent::Reconnected => MatchFeed::Reconnected,
        })
    }
}
