//! The in-process bus: the contract's Redis semantics in one process, for the embedded default.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use tokio::sync::Notify;

use crate::queue::SubQueue;
use crate::{
    Bus, BusError, Message, PendingEntry, ReadFrom, Result, StreamEntry, SubEvent, Subscription,
    SubscriptionControl, Topic, glob,
};

/// A stream entry id: (milliseconds, sequence).
type Id = (u64, u64);

fn fmt_id(id: Id) -> String {
    format!("{}-{}", id.0, id.1)
}

fn parse_id(s: &str) -> Option<Id> {
    let (ms, seq) = s.split_once('-')?;
    Some((ms.parse().ok()?, seq.parse().ok()?))
}

#[derive(Debug)]
struct Pending {
    consumer: String,
    delivered_at: Instant,
    deliveries: u64,
}

#[derive(Debug, Default)]
struct Group {
    last_delivered: Id,
    pending: BTreeMap<Id, Pending>,
}

#[derive(Debug, Default)]
struct StreamState {
    entries: BTreeMap<Id, String>,
    last_id: Id,
    groups: HashMap<String, Group>,
}

#[derive(Debug)]
struct Value {
    value: String,
    expires_at: Option<Instant>,
}

impl Value {
    fn live(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|t| t > now)
    }
}

#[derive(Debug)]
struct Subscriber {
    topics: Mutex<HashSet<Topic>>,
    queue: Arc<SubQueue>,
}

#[derive(Debug, Default)]
struct Inner {
    streams: Mutex<HashMap<String, StreamState>>,
    /// Woken on every XADD, so blocked readers re-check.
    stream_added: Notify,
    strings: Mutex<HashMap<String, Value>>,
    subscribers: Mutex<Vec<Weak<Subscriber>>>,
}

/// The in-process bus. Cheap to clone; clones share state.
#[derive(Debug, Clone, Default)]
pub struct MemoryBus {
    inner: Arc<Inner>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn no_group(stream: &str, group: &str) -> BusError {
    BusError::NoGroup {
        stream: stream.to_owned(),
        group: group.to_owned(),
    }
}

impl MemoryBus {
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes entries for a consumer: marks them pending (or re-delivered) and returns them.
    fn deliver(
        state: &mut StreamState,
        group: &str,
        consumer: &str,
        ids: &[Id],
    ) -> Vec<StreamEntry> {
        let now = Instant::now();
        let Some(g) = state.groups.get_mut(group) else {
            return Vec::new();
        };
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(data) = state.entries.get(id) else {
                // trimmed away: nothing to deliver any more
                g.pending.remove(id);
                continue;
            };
            let p = g.pending.entry(*id).or_insert(Pending {
                consumer: consumer.to_owned(),
                delivered_at: now,
                deliveries: 0,
            });
            p.consumer = consumer.to_owned();
            p.delivered_at = now;
            p.deliveries += 1;
            out.push(StreamEntry {
                id: fmt_id(*id),
                data: data.clone(),
            });
        }
        out
    }

    fn try_read(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        count: usize,
        from: ReadFrom,
    ) -> Result<Vec<StreamEntry>> {
        let mut streams = lock(&self.inner.streams);
        let state = streams
            .get_mut(stream)
            .ok_or_else(|| no_group(stream, group))?;
        let g = state
            .groups
            .get_mut(group)
            .ok_or_else(|| no_group(stream, group))?;
        let ids: Vec<Id> = match from {
            ReadFrom::OwnPending => g
                .pending
                .iter()
                .filter(|(_, p)| p.consumer == consumer)
                .map(|(id, _)| *id)
                .take(count)
                .collect(),
            ReadFrom::New { .. } => {
                let start = (g.last_delivered.0, g.last_delivered.1.saturating_add(1));
                let ids: Vec<Id> = state
                    .entries
                    .range(start..)
                    .map(|(id, _)| *id)
                    .take(count)
                    .collect();
                if let Some(last) = ids.last() {
                    g.last_delivered = *last;
                }
                ids
            }
        };
        Ok(Self::deliver(state, group, consumer, &ids))
    }

    fn string_op<T>(&self, f: impl FnOnce(&mut HashMap<String, Value>, Instant) -> T) -> T {
        let mut strings = lock(&self.inner.strings);
        let now = Instant::now();
        strings.retain(|_, v| v.live(now));
        f(&mut strings, now)
    }
}

#[async_trait::async_trait]
impl Bus for MemoryBus {
    async fn xadd(&self, stream: &str, data: &str, max_len: usize) -> Result<String> {
        let id = {
            let mut streams = lock(&self.inner.streams);
            let state = streams.entry(stream.to_owned()).or_default();
            let ms = now_ms().max(state.last_id.0);
            let id = if ms == state.last_id.0 {
                (ms, state.last_id.1 + 1)
            } else {
                (ms, 0)
            };
            state.last_id = id;
            state.entries.insert(id, data.to_owned());
            while state.entries.len() > max_len.max(1) {
                if let Some((old, _)) = state.entries.pop_first() {
                    for g in state.groups.values_mut() {
                        g.pending.remove(&old);
                    }
                }
            }
            id
        };
        self.inner.stream_added.notify_waiters();
        Ok(fmt_id(id))
    }

    async fn ensure_group(&self, stream: &str, group: &str) -> Result<()> {
        let mut streams = lock(&self.inner.streams);
        streams
            .entry(stream.to_owned())
            .or_default()
            .groups
            .entry(group.to_owned())
            .or_default();
        Ok(())
    }

    async fn read_group(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        count: usize,
        from: ReadFrom,
    ) -> Result<Vec<StreamEntry>> {
        let block = match from {
            ReadFrom::New { block } => block,
            ReadFrom::OwnPending => Duration::ZERO,
        };
        let deadline = Instant::now() + block;
        loop {
            let added = self.inner.stream_added.notified();
            let got = self.try_read(stream, group, consumer, count, from)?;
            let now = Instant::now();
            if !got.is_empty() || now >= deadline {
                return Ok(got);
            }
            let _ = tokio::time::timeout(deadline - now, added).await;
        }
    }

    async fn ack(&self, stream: &str, group: &str, ids: &[String]) -> Result<u64> {
        let mut streams = lock(&self.inner.streams);
        let state = streams
            .get_mut(stream)
            .ok_or_else(|| no_group(stream, group))?;
        let g = state
            .groups
            .get_mut(group)
            .ok_or_else(|| no_group(stream, group))?;
        Ok(ids
            .iter()
            .filter_map(|s| parse_id(s))
            .filter(|id| g.pending.remove(id).is_some())
            .count() as u64)
    }

    async fn autoclaim(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Result<Vec<StreamEntry>> {
        let mut streams = lock(&self.inner.streams);
        let state = streams
            .get_mut(stream)
            .ok_or_else(|| no_group(stream, group))?;
        let g = state
            .groups
            .get(group)
            .ok_or_else(|| no_group(stream, group))?;
        let now = Instant::now();
        let ids: Vec<Id> = g
            .pending
            .iter()
            .filter(|(_, p)| now.duration_since(p.delivered_at) >= min_idle)
            .map(|(id, _)| *id)
            .take(count)
            .collect();
        Ok(Self::deliver(state, group, consumer, &ids))
    }

    async fn pending(&self, stream: &str, group: &str, count: usize) -> Result<Vec<PendingEntry>> {
        let streams = lock(&self.inner.streams);
        let state = streams.get(stream).ok_or_else(|| no_group(stream, group))?;
        let g = state
            .groups
            .get(group)
            .ok_or_else(|| no_group(stream, group))?;
        let now = Instant::now();
        Ok(g.pending
            .iter()
            .take(count)
            .map(|(id, p)| PendingEntry {
                id: fmt_id(*id),
                consumer: p.consumer.clone(),
                idle: now.duration_since(p.delivered_at),
                deliveries: p.deliveries,
            })
            .collect())
    }

    async fn stream_len(&self, stream: &str) -> Result<u64> {
        let streams = lock(&self.inner.streams);
        Ok(streams.get(stream).map_or(0, |s| s.entries.len() as u64))
    }

    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<()> {
        self.string_op(|m, now| {
            m.insert(
                key.to_owned(),
                Value {
                    value: value.to_owned(),
                    expires_at: ttl.map(|t| now + t),
                },
            );
        });
        Ok(())
    }

    async fn set_nx(&self, key: &str, value: &str, ttl: Duration) -> Result<bool> {
        Ok(self.string_op(|m, now| {
            if m.contains_key(key) {
                return false;
            }
            m.insert(
                key.to_owned(),
                Value {
                    value: value.to_owned(),
                    expires_at: Some(now + ttl),
                },
            );
            true
        }))
    }

    async fn get(&self, key: &str) -> Result<Option<String>> {
        Ok(self.string_op(|m, _| m.get(key).map(|v| v.value.clone())))
    }

    async fn expire(&self, key: &str, ttl: Duration) -> Result<bool> {
        Ok(self.string_op(|m, now| {
            m.get_mut(key)
                .map(|v| v.expires_at = Some(now + ttl))
                .is_some()
        }))
    }

    async fn expire_if_eq(&self, key: &str, expected: &str, ttl: Duration) -> Result<bool> {
        Ok(self.string_op(|m, now| match m.get_mut(key) {
            Some(v) if v.value == expected => {
                v.expires_at = Some(now + ttl);
                true
            }
            _ => false,
        }))
    }

    async fn del(&self, key: &str) -> Result<bool> {
        Ok(self.string_op(|m, _| m.remove(key).is_some()))
    }

    async fn del_if_eq(&self, key: &str, expected: &str) -> Result<bool> {
        Ok(self.string_op(|m, _| {
            if m.get(key).is_some_and(|v| v.value == expected) {
                m.remove(key);
                true
            } else {
                false
            }
        }))
    }

    async fn keys(&self, pattern: &str) -> Result<Vec<String>> {
        let mut keys: Vec<String> = self.string_op(|m, _| {
            m.keys()
                .filter(|k| glob::matches(pattern, k))
                .cloned()
                .collect()
        });
        let streams = lock(&self.inner.streams);
        keys.extend(
            streams
                .keys()
                .filter(|k| glob::matches(pattern, k))
                .cloned(),
        );
        keys.sort();
        Ok(keys)
    }

    async fn ttl(&self, key: &str) -> Result<Option<Duration>> {
        Ok(self.string_op(|m, now| {
            m.get(key)
                .and_then(|v| v.expires_at)
                .map(|t| t.saturating_duration_since(now))
        }))
    }

    async fn publish(&self, channel: &str, payload: &str) -> Result<u64> {
        let subs: Vec<Arc<Subscriber>> = {
            let mut list = lock(&self.inner.subscribers);
            list.retain(|w| w.strong_count() > 0);
            list.iter().filter_map(Weak::upgrade).collect()
        };
        let mut delivered = 0;
        for sub in subs {
            let topics: Vec<Topic> = lock(&sub.topics).iter().cloned().collect();
            for t in topics {
                let pattern = match &t {
                    Topic::Channel(c) if c == channel => None,
                    Topic::Pattern(p) if glob::matches(p, channel) => Some(p.clone()),
                    _ => continue,
                };
                let msg = Message {
                    channel: channel.to_owned(),
                    pattern,
                    payload: payload.to_owned(),
                };
                if sub.queue.push(SubEvent::Message(msg)) {
                    delivered += 1;
                }
            }
        }
        Ok(delivered)
    }

    async fn subscribe(&self, topics: &[Topic], capacity: usize) -> Result<Subscription> {
        let queue = Arc::new(SubQueue::new(capacity));
        let sub = Arc::new(Subscriber {
            topics: Mutex::new(topics.iter().cloned().collect()),
            queue: queue.clone(),
        });
        lock(&self.inner.subscribers).push(Arc::downgrade(&sub));
        Ok(Subscription {
            queue,
            control: Box::new(MemoryControl { sub }),
        })
    }

    async fn ping(&self) -> Result<()> {
        Ok(())
    }

    fn backend(&self) -> &'static str {
        "memory"
    }
}

/// Holds the subscriber alive; the bus keeps only a weak reference, so dropping the
/// subscription unsubscribes.
#[derive(Debug)]
struct MemoryControl {
    sub: Arc<Subscriber>,
}

#[async_trait::async_trait]
impl SubscriptionControl for MemoryControl {
    async fn add(&self, topics: &[Topic]) -> Result<()> {
        lock(&self.sub.topics).extend(topics.iter().cloned());
        Ok(())
    }

    async fn remove(&self, topics: &[Topic]) -> Result<()> {
        let mut set = lock(&self.sub.topics);
        for t in topics {
            set.remove(t);
        }
        Ok(())
    }
}
