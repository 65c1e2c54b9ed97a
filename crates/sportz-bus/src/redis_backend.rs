//! The Redis backend.
//!
//! - Commands go through one [`ConnectionManager`] (a multiplexed connection that reconnects in
//!   the background); while Redis is down they fail fast with [`BusError::Unavailable`].
//! - Blocking stream reads (`XREADGROUP … BLOCK`) would hold up every other command queued on a
//!   multiplexed connection, so they run on their own connections from a small pool.
//! - Each subscription owns a pub/sub connection and a task that relays its messages into the
//!   subscription's bounded buffer; when the connection drops the task reports
//!   [`SubEvent::Disconnected`](crate::SubEvent::Disconnected), reconnects with backoff,
//!   resubscribes every topic and reports [`SubEvent::Reconnected`](crate::SubEvent::Reconnected).
//!
//! This file holds the connection and the [`Bus`] commands; `replies` reads RESP replies and
//! `pubsub` holds the subscription relay and its control.

mod pubsub;
mod replies;

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Client, RedisError, Value};
use tokio::sync::oneshot;

use crate::queue::SubQueue;
use crate::{Bus, BusError, PendingEntry, ReadFrom, Result, StreamEntry, Subscription, Topic};

use pubsub::{RedisControl, connect_pubsub, relay};
use replies::{int, items, parse_entries, parse_read, protocol, text};

/// Redis through the `redis` crate.
#[derive(Clone)]
pub struct RedisBus {
    client: Client,
    conn: ConnectionManager,
    blocking: Arc<Mutex<Vec<MultiplexedConnection>>>,
    addr: String,
}

impl std::fmt::Debug for RedisBus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisBus")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(5);

fn map_err(e: &RedisError) -> BusError {
    if e.code() == Some("NOGROUP") {
        return BusError::NoGroup {
            stream: String::new(),
            group: e.detail().unwrap_or_default().to_owned(),
        };
    }
    if e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || e.is_unrecoverable_error()
    {
        BusError::Unavailable(format!("redis: {e}"))
    } else {
        BusError::Protocol(format!("redis: {e}"))
    }
}

/// Hides credentials in a URL before it is logged.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => format!("{}://***@{}", &url[..s], &url[at + 1..]),
        _ => url.to_owned(),
    }
}

impl RedisBus {
    /// Connects (failing fast when Redis cannot be reached).
    ///
    /// # Errors
    /// [`BusError::Unavailable`] naming the address when it cannot connect or the URL is invalid.
    pub async fn connect(url: &str) -> Result<Self> {
        let addr = redact(url);
        let client = Client::open(url)
            .map_err(|e| BusError::Unavailable(format!("invalid redis url `{addr}`: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(2));
        let conn = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|e| BusError::Unavailable(format!("cannot reach redis at {addr}: {e}")))?;
        let bus = Self {
            client,
            conn,
            blocking: Arc::new(Mutex::new(Vec::new())),
            addr,
        };
        bus.check_persistence().await;
        Ok(bus)
    }

    /// Warns when the server keeps no append-only file: a Redis crash would then lose stream
    /// entries (events, statuses) the API has not read yet. A server that refuses `CONFIG`
    /// (some managed services) is not second-guessed.
    async fn check_persistence(&self) {
        let got: Result<Vec<String>> = self
            .query(redis::cmd("CONFIG").arg("GET").arg("appendonly"))
            .await;
        match got.as_deref() {
            Ok([_, v]) if v == "no" => tracing::warn!(
                redis = %self.addr,
                "Redis runs without an append-only file (appendonly no): if redis-server crashes, events and statuses the API has not read yet are lost; run it with `--appendonly yes` (RELIABILITY.md)"
            ),
            Ok(_) => {}
            Err(e) => {
                tracing::debug!(redis = %self.addr, "cannot read Redis's persistence setting: {e}")
            }
        }
    }

    async fn query<T: redis::FromRedisValue>(&self, cmd: &redis::Cmd) -> Result<T> {
        let mut conn = self.conn.clone();
        cmd.query_async(&mut conn).await.map_err(|e| map_err(&e))
    }

    async fn blocking_conn(&self) -> Result<MultiplexedConnection> {
        let pooled = self
            .blocking
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        if let Some(c) = pooled {
            return Ok(c);
        }
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(CONNECT_TIMEOUT))
            .set_response_timeout(None);
        self.client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|e| map_err(&e))
    }

    fn return_conn(&self, c: MultiplexedConnection) {
        let mut pool = self.blocking.lock().unwrap_or_else(PoisonError::into_inner);
        if pool.len() < 8 {
            pool.push(c);
        }
    }
}

fn no_group(stream: &str, group: &str, e: BusError) -> BusError {
    match e {
        BusError::NoGroup { .. } => BusError::NoGroup {
            stream: stream.to_owned(),
            group: group.to_owned(),
        },
        other => other,
    }
}

const ACK_IF_EQ_EXPIRE: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0";

const DEL_IF_EQ: &str = r"
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0";

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}

#[async_trait::async_trait]
impl Bus for RedisBus {
    async fn xadd(&self, stream: &str, data: &str, max_len: usize) -> Result<String> {
        let mut cmd = redis::cmd("XADD");
        cmd.arg(stream)
            .arg("MAXLEN")
            .arg("~")
            .arg(max_len)
            .arg("*")
            .arg("data")
            .arg(data);
        self.query(&cmd).await
    }

    async fn ensure_group(&self, stream: &str, group: &str) -> Result<()> {
        let mut cmd = redis::cmd("XGROUP");
        cmd.arg("CREATE")
            .arg(stream)
            .arg(group)
            .arg("0")
            .arg("MKSTREAM");
        let mut conn = self.conn.clone();
        match cmd.query_async::<()>(&mut conn).await {
            Ok(()) => Ok(()),
            Err(e) if e.code() == Some("BUSYGROUP") => Ok(()),
            Err(e) => Err(map_err(&e)),
        }
    }

    async fn read_group(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        count: usize,
        from: ReadFrom,
    ) -> Result<Vec<StreamEntry>> {
        let mut cmd = redis::cmd("XREADGROUP");
        cmd.arg("GROUP")
            .arg(group)
            .arg(consumer)
            .arg("COUNT")
            .arg(count.max(1));
        let reply: Value = match from {
            ReadFrom::New { block } if !block.is_zero() => {
                cmd.arg("BLOCK")
                    .arg(millis(block))
                    .arg("STREAMS")
                    .arg(stream)
                    .arg(">");
                let mut conn = self.blocking_conn().await?;
                let reply = cmd.query_async(&mut conn).await;
                match reply {
                    Ok(v) => {
                        self.return_conn(conn);
                        v
                    }
                    Err(e) => return Err(no_group(stream, group, map_err(&e))),
                }
            }
            ReadFrom::New { .. } => {
                cmd.arg("STREAMS").arg(stream).arg(">");
                self.query(&cmd)
                    .await
                    .map_err(|e| no_group(stream, group, e))?
            }
            ReadFrom::OwnPending => {
                cmd.arg("STREAMS").arg(stream).arg("0");
                self.query(&cmd)
                    .await
                    .map_err(|e| no_group(stream, group, e))?
            }
        };
        let (entries, gone) = parse_read(&reply)?;
        if !gone.is_empty() {
            // trimmed while pending: nothing left to process
            self.ack(stream, group, &gone).await?;
        }
        Ok(entries)
    }

    async fn ack(&self, stream: &str, group: &str, ids: &[String]) -> Result<u64> {
        if ids.is_empty() {
            return Ok(0);
        }
        let mut cmd = redis::cmd("XACK");
        cmd.arg(stream).arg(group).arg(ids);
        self.query(&cmd)
            .await
            .map_err(|e| no_group(stream, group, e))
    }

    async fn autoclaim(
        &self,
        stream: &str,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Result<Vec<StreamEntry>> {
        let mut cmd = redis::cmd("XAUTOCLAIM");
        cmd.arg(stream)
            .arg(group)
            .arg(consumer)
            .arg(u64::try_from(min_idle.as_millis()).unwrap_or(u64::MAX))
            .arg("0-0")
            .arg("COUNT")
            .arg(count.max(1));
        let reply: Value = self
            .query(&cmd)
            .await
            .map_err(|e| no_group(stream, group, e))?;
        let parts = items(&reply).ok_or_else(|| protocol("XAUTOCLAIM", &reply))?;
        let entries = parts.get(1).ok_or_else(|| protocol("XAUTOCLAIM", &reply))?;
        let (entries, gone) = parse_entries(entries)?;
        if !gone.is_empty() {
            self.ack(stream, group, &gone).await?;
        }
        Ok(entries)
    }

    async fn pending(&self, stream: &str, group: &str, count: usize) -> Result<Vec<PendingEntry>> {
        let mut cmd = redis::cmd("XPENDING");
        cmd.arg(stream)
            .arg(group)
            .arg("-")
            .arg("+")
            .arg(count.max(1));
        let reply: Value = self
            .query(&cmd)
            .await
            .map_err(|e| no_group(stream, group, e))?;
        items(&reply)
            .ok_or_else(|| protocol("XPENDING", &reply))?
            .iter()
            .map(|row| {
                let f = items(row).ok_or_else(|| protocol("XPENDING row", row))?;
                let bad = || protocol("XPENDING row", row);
                Ok(PendingEntry {
                    id: f.first().and_then(text).ok_or_else(bad)?,
                    consumer: f.get(1).and_then(text).ok_or_else(bad)?,
                    idle: Duration::from_millis(
                        f.get(2)
                            .and_then(int)
                            .and_then(|i| u64::try_from(i).ok())
                            .ok_or_else(bad)?,
                    ),
                    deliveries: f
                        .get(3)
                        .and_then(int)
                        .and_then(|i| u64::try_from(i).ok())
                        .ok_or_else(bad)?,
                })
            })
            .collect()
    }

    async fn stream_len(&self, stream: &str) -> Result<u64> {
        self.query(redis::cmd("XLEN").arg(stream)).await
    }

    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<()> {
        let mut cmd = redis::cmd("SET");
        cmd.arg(key).arg(value);
        if let Some(t) = ttl {
            cmd.arg("PX").arg(millis(t));
        }
        self.query(&cmd).await
    }

    async fn set_nx(&self, key: &str, value: &str, ttl: Duration) -> Result<bool> {
        let mut cmd = redis::cmd("SET");
        cmd.arg(key).arg(value).arg("NX").arg("PX").arg(millis(ttl));
        let reply: Value = self.query(&cmd).await?;
        Ok(!matches!(reply, Value::Nil))
    }

    async fn get(&self, key: &str) -> Result<Option<String>> {
        self.query(redis::cmd("GET").arg(key)).await
    }

    async fn expire(&self, key: &str, ttl: Duration) -> Result<bool> {
        self.query(redis::cmd("PEXPIRE").arg(key).arg(millis(ttl)))
            .await
    }

    async fn expire_if_eq(&self, key: &str, expected: &str, ttl: Duration) -> Result<bool> {
        let mut conn = self.conn.clone();
        redis::Script::new(ACK_IF_EQ_EXPIRE)
            .key(key)
            .arg(expected)
            .arg(millis(ttl))
            .invoke_async(&mut conn)
            .await
            .map_err(|e| map_err(&e))
    }

    async fn del(&self, key: &str) -> Result<bool> {
        let n: u64 = self.query(redis::cmd("DEL").arg(key)).await?;
        Ok(n > 0)
    }

    async fn del_if_eq(&self, key: &str, expected: &str) -> Result<bool> {
        let mut conn = self.conn.clone();
        redis::Script::new(DEL_IF_EQ)
            .key(key)
            .arg(expected)
            .invoke_async(&mut conn)
            .await
            .map_err(|e| map_err(&e))
    }

    async fn keys(&self, pattern: &str) -> Result<Vec<String>> {
        let mut cursor = 0u64;
        let mut keys = Vec::new();
        loop {
            let (next, batch): (u64, Vec<String>) = self
                .query(
                    redis::cmd("SCAN")
                        .arg(cursor)
                        .arg("MATCH")
                        .arg(pattern)
                        .arg("COUNT")
                        .arg(500),
                )
                .await?;
            keys.extend(batch);
            if next == 0 {
                break;
            }
            cursor = next;
        }
        keys.sort();
        keys.dedup();
        Ok(keys)
    }

    async fn ttl(&self, key: &str) -> Result<Option<Duration>> {
        let ms: i64 = self.query(redis::cmd("PTTL").arg(key)).await?;
        Ok(u64::try_from(ms).ok().map(Duration::from_millis))
    }

    async fn publish(&self, channel: &str, payload: &str) -> Result<u64> {
        self.query(redis::cmd("PUBLISH").arg(channel).arg(payload))
            .await
    }

    async fn subscribe(&self, topics: &[Topic], capacity: usize) -> Result<Subscription> {
        let queue = Arc::new(SubQueue::new(capacity));
        let topic_set: Arc<Mutex<HashSet<Topic>>> =
            Arc::new(Mutex::new(topics.iter().cloned().collect()));
        let (sink, stream) = connect_pubsub(&self.client, topics).await?;
        let sink = Arc::new(tokio::sync::Mutex::new(Some(sink)));
        let (closed_tx, closed_rx) = oneshot::channel();
        tokio::spawn(relay(
            self.client.clone(),
            stream,
            sink.clone(),
            topic_set.clone(),
            queue.clone(),
            closed_rx,
        ));
        Ok(Subscription {
            queue,
            control: Box::new(RedisControl {
                sink,
                topics: topic_set,
                _closed: closed_tx,
            }),
        })
    }

    async fn ping(&self) -> Result<()> {
        let pong: String = self.query(&redis::cmd("PING")).await?;
        if pong == "PONG" {
            Ok(())
        } else {
            Err(BusError::Protocol(format!("PING answered `{pong}`")))
        }
    }

    fn backend(&self) -> &'static str {
        "redis"
    }
}

#[cfg(test)]
mod tests {
    use super::redact;

    #[test]
    fn credentials_are_not_logged() {
        assert_eq!(redact("redis://:secret@h:6379/0"), "redis://***@h:6379/0");
        assert_eq!(redact("redis://127.0.0.1:6379"), "redis://127.0.0.1:6379");
    }
}
