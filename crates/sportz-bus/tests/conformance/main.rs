//! One conformance suite, run against both backends: the in-process bus and a real redis-server
//! (`REDIS_URL`, or a private server started by the harness). Tests that stop Redis start their
//! own server.
//!
//! The cases live by area (`keys_ttl`, `streams`, `pubsub`, `typed`) and run on both backends
//! through `conformance!` below; the Redis outage tests follow it.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sportz_bus::{Bus, ContractBus, MemoryBus, ReadFrom, RedisBus, SubEvent, Topic};
use sportz_testkit::{RedisServer, redis_url};

mod keys_ttl;
mod pubsub;
mod streams;
mod typed;

use keys_ttl::{keys_by_pattern, ttl_expiry};
use pubsub::{pattern_subscribe, per_channel_order, slow_subscriber_isolation};
use streams::{
    at_least_once_with_ack, blocking_read_wakes_on_new_entry, claim_from_dead_consumer,
    malformed_entries_are_reported_not_lost, redelivery_after_consumer_restart,
    trimming_keeps_about_max_len,
};
use typed::{command_intake_one_at_a_time, typed_layer};

/// Unique names per test, so tests can share one Redis.
fn unique(prefix: &str) -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "t{}-{}:{prefix}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// Fails the test instead of hanging.
async fn within<T>(secs: u64, what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(secs), f)
        .await
        .unwrap_or_else(|_| panic!("{what}: nothing after {secs} s"))
}

async fn next_message(sub: &mut sportz_bus::Subscription) -> sportz_bus::Message {
    match within(5, "subscription", sub.next()).await {
        Some(SubEvent::Message(m)) => m,
        Some(other) => panic!("expected a message, got {other:?}"),
        None => panic!("subscription closed"),
    }
}

const NO_BLOCK: ReadFrom = ReadFrom::New {
    block: Duration::ZERO,
};

macro_rules! conformance {
    ($($name:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $name() {
                    super::$name(std::sync::Arc::new(sportz_bus::MemoryBus::new())).await;
                }
            )*
        }
        mod redis {
            $(
                #[tokio::test]
                async fn $name() {
                    let (url, _guard) = sportz_testkit::redis_url();
                    let bus = sportz_bus::RedisBus::connect(&url).await.expect("connect to redis");
                    super::$name(std::sync::Arc::new(bus)).await;
                }
            )*
        }
    };
}

conformance!(
    ttl_expiry,
    keys_by_pattern,
    at_least_once_with_ack,
    blocking_read_wakes_on_new_entry,
    redelivery_after_consumer_restart,
    claim_from_dead_consumer,
    malformed_entries_are_reported_not_lost,
    trimming_keeps_about_max_len,
    pattern_subscribe,
    per_channel_order,
    slow_subscriber_isolation,
    typed_layer,
    command_intake_one_at_a_time,
);

// ---- Redis going away -------------------------------------------------------------------------

#[tokio::test]
async fn redis_killed_and_restarted_mid_test() {
    let mut server = RedisServer::start();
    let bus: Arc<dyn Bus> = Arc::new(RedisBus::connect(&server.url()).await.unwrap());
    let ch = unique("outage");
    let mut sub = bus
        .subscribe(&[Topic::Channel(ch.clone())], 100)
        .await
        .unwrap();
    bus.publish(&ch, "before").await.unwrap();
    assert_eq!(next_message(&mut sub).await.payload, "before");
    bus.ensure_group("s", "g").await.unwrap();

    // a blocked stream read in flight when Redis dies
    let blocked = {
        let bus = bus.clone();
        tokio::spawn(async move {
            bus.read_group(
                "s",
                "g",
                "c",
                1,
                ReadFrom::New {
                    block: Duration::from_secs(30),
                },
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    server.kill();

    // every operation reports unavailability instead of hanging
    let err = within(10, "blocked read after kill", blocked)
        .await
        .unwrap()
        .unwrap_err();
    assert!(err.is_unavailable(), "{err:?}");
    let err = within(10, "get while down", bus.get("k"))
        .await
        .unwrap_err();
    assert!(err.is_unavailable(), "{err:?}");
    assert!(err.to_string().starts_with("bus unavailable"), "{err}");
    let err = within(10, "publish while down", bus.publish(&ch, "lost"))
        .await
        .unwrap_err();
    assert!(err.is_unavailable(), "{err:?}");
    match within(10, "subscription after kill", sub.next()).await {
        Some(SubEvent::Disconnected(why)) => assert!(why.contains("lost"), "{why}"),
        other => panic!("expected Disconnected, got {other:?}"),
    }

    server.restart();
    // commands recover
    within(20, "recovery", async {
        loop {
            if bus.set("k", "v", None).await.is_ok() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    assert_eq!(bus.get("k").await.unwrap().as_deref(), Some("v"));
    // the subscription resubscribed by itself
    match within(20, "resubscribe", sub.next()).await {
        Some(SubEvent::Reconnected) => {}
        other => panic!("expected Reconnected, got {other:?}"),
    }
    bus.publish(&ch, "after").await.unwrap();
    assert_eq!(next_message(&mut sub).await.payload, "after");
    // a consumer whose group vanished with the restart recreates it
    let cb = ContractBus::new(bus.clone());
    let mut c = cb.consumer("s2", "g", "c").await.unwrap();
    server.restart();
    within(20, "recovery", async {
        while bus.ping().await.is_err() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    bus.xadd("s2", "1", 100).await.unwrap(); // creates the stream without the group
    let got = c
        .next_batch::<u32>(1, Duration::from_millis(100))
        .await
        .unwrap();
    // the group is recreated from the start of the stream: nothing written since is lost
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].value, Ok(1));
}

#[tokio::test]
async fn unreachable_redis_fails_fast_with_its_address() {
    let port = sportz_testkit::free_port();
    let url = format!("redis://127.0.0.1:{port}");
    let err = within(10, "connect", RedisBus::connect(&url))
        .await
        .unwrap_err();
    assert!(err.is_unavailable(), "{err:?}");
    assert!(
        err.to_string().contains(&format!("127.0.0.1:{port}")),
        "{err}"
    );
    let err = sportz_bus::connect(Some("http://x")).await.unwrap_err();
    assert!(err.to_string().contains("expected redis://"), "{err}");
}

#[tokio::test]
async fn memory_bus_needs_no_services() {
    let bus = sportz_bus::connect(None).await.unwrap();
    assert_eq!(bus.backend(), "memory");
    bus.ping().await.unwrap();
    let _ = MemoryBus::new();
    let (url, _guard) = redis_url();
    let bus = sportz_bus::connect(Some(&url)).await.unwrap();
    assert_eq!(bus.backend(), "redis");
}

#[tokio::test]
async fn pattern_subscriptions_resume_after_a_redis_restart() {
    let mut server = RedisServer::start();
    let bus: Arc<dyn Bus> = Arc::new(RedisBus::connect(&server.url()).await.unwrap());
    let mut sub = bus
        .subscribe(
            &[Topic::Channel("g".into()), Topic::Pattern("m:*:c".into())],
            100,
        )
        .await
        .unwrap();
    server.kill();
    assert!(matches!(
        within(10, "disconnect", sub.next()).await,
        Some(SubEvent::Disconnected(_))
    ));
    server.restart();
    assert_eq!(
        within(20, "reconnect", sub.next()).await,
        Some(SubEvent::Reconnected)
    );
    within(20, "publish after restart", async {
        while bus.publish("m:1:c", "x").await.is_err() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    })
    .await;
    let m = next_message(&mut sub).await;
    assert_eq!(
        (m.channel.as_str(), m.pattern.as_deref()),
        ("m:1:c", Some("m:*:c"))
    );
    bus.publish("g", "y").await.unwrap();
    assert_eq!(next_message(&mut sub).await.payload, "y");
}
