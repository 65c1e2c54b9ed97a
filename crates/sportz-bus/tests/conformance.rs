//! One conformance suite, run against both backends: the in-process bus and a real redis-server
//! (`REDIS_URL`, or a private server started by the harness). Tests that stop Redis start their
//! own server.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use sportz_bus::{
    Bus, BusError, ContractBus, MatchFeed, MemoryBus, ReadFrom, RedisBus, SubEvent, Topic,
};
use sportz_contract::keys;
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{
    Control, Envelope, Heartbeat, Lease, MatchId, MetricsData, Payload, SessionId, StatusData,
    WorkerCommand,
};
use sportz_testkit::{RedisServer, redis_url};

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

async fn ttl_expiry(bus: Arc<dyn Bus>) {
    let k = unique("ttl");
    bus.set(&k, "v", Some(Duration::from_millis(300)))
        .await
        .unwrap();
    assert_eq!(bus.get(&k).await.unwrap().as_deref(), Some("v"));
    let ttl = bus.ttl(&k).await.unwrap().expect("has a ttl");
    assert!(
        ttl <= Duration::from_millis(300) && ttl > Duration::ZERO,
        "{ttl:?}"
    );
    // refresh keeps it alive past its first deadline
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(bus.expire(&k, Duration::from_millis(400)).await.unwrap());
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(
        bus.get(&k).await.unwrap().as_deref(),
        Some("v"),
        "refreshed"
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(bus.get(&k).await.unwrap(), None, "expired");
    assert!(
        !bus.expire(&k, Duration::from_secs(1)).await.unwrap(),
        "gone"
    );

    // no ttl
    bus.set(&k, "forever", None).await.unwrap();
    assert_eq!(bus.ttl(&k).await.unwrap(), None);
    assert!(bus.del(&k).await.unwrap());
    assert!(!bus.del(&k).await.unwrap());

    // set-if-absent and compare-and-{expire,delete}
    let ttl = Duration::from_secs(5);
    assert!(bus.set_nx(&k, "a", ttl).await.unwrap());
    assert!(!bus.set_nx(&k, "b", ttl).await.unwrap());
    assert_eq!(bus.get(&k).await.unwrap().as_deref(), Some("a"));
    assert!(!bus.expire_if_eq(&k, "b", ttl).await.unwrap());
    assert!(bus.expire_if_eq(&k, "a", ttl).await.unwrap());
    assert!(!bus.del_if_eq(&k, "b").await.unwrap());
    assert!(bus.del_if_eq(&k, "a").await.unwrap());
    assert_eq!(bus.get(&k).await.unwrap(), None);
}

async fn keys_by_pattern(bus: Arc<dyn Bus>) {
    let base = unique("keys");
    for w in ["w1", "w2"] {
        bus.set(
            &format!("{base}:{w}:heartbeat"),
            "x",
            Some(Duration::from_secs(5)),
        )
        .await
        .unwrap();
    }
    bus.set(&format!("{base}:w3:other"), "x", None)
        .await
        .unwrap();
    let found = bus.keys(&format!("{base}:*:heartbeat")).await.unwrap();
    assert_eq!(
        found,
        vec![
            format!("{base}:w1:heartbeat"),
            format!("{base}:w2:heartbeat")
        ]
    );
}

async fn at_least_once_with_ack(bus: Arc<dyn Bus>) {
    let s = unique("stream");
    bus.ensure_group(&s, "g").await.unwrap();
    bus.ensure_group(&s, "g").await.unwrap(); // idempotent
    for i in 0..3 {
        bus.xadd(&s, &format!("{{\"n\":{i}}}"), 1000).await.unwrap();
    }
    let got = bus.read_group(&s, "g", "c1", 10, NO_BLOCK).await.unwrap();
    assert_eq!(
        got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
        [r#"{"n":0}"#, r#"{"n":1}"#, r#"{"n":2}"#]
    );
    // nothing new for anyone in the group
    assert!(
        bus.read_group(&s, "g", "c2", 10, NO_BLOCK)
            .await
            .unwrap()
            .is_empty()
    );
    let acked = bus
        .ack(&s, "g", &[got[0].id.clone(), got[1].id.clone()])
        .await
        .unwrap();
    assert_eq!(acked, 2);
    assert_eq!(
        bus.ack(&s, "g", &[got[0].id.clone()]).await.unwrap(),
        0,
        "already acked"
    );
    let pending = bus.pending(&s, "g", 10).await.unwrap();
    assert_eq!(pending.len(), 1);
    assert_eq!(pending[0].id, got[2].id);
    assert_eq!(pending[0].consumer, "c1");
    assert_eq!(pending[0].deliveries, 1);
    // a second group sees everything again
    bus.ensure_group(&s, "other").await.unwrap();
    assert_eq!(
        bus.read_group(&s, "other", "x", 10, NO_BLOCK)
            .await
            .unwrap()
            .len(),
        3
    );
    // a missing group is its own error
    let err = bus
        .read_group(&s, "nope", "c", 1, NO_BLOCK)
        .await
        .unwrap_err();
    assert!(matches!(err, BusError::NoGroup { .. }), "{err:?}");
    assert!(err.to_string().contains("nope"), "{err}");
}

async fn blocking_read_wakes_on_new_entry(bus: Arc<dyn Bus>) {
    let s = unique("block");
    bus.ensure_group(&s, "g").await.unwrap();
    let reader = {
        let bus = bus.clone();
        let s = s.clone();
        tokio::spawn(async move {
            bus.read_group(
                &s,
                "g",
                "c",
                1,
                ReadFrom::New {
                    block: Duration::from_secs(5),
                },
            )
            .await
        })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    bus.xadd(&s, "late", 100).await.unwrap();
    let got = within(5, "blocked read", reader).await.unwrap().unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].data, "late");
    // and a blocked read with nothing to read returns empty after its block time
    let started = Instant::now();
    let none = bus
        .read_group(
            &s,
            "g",
            "c",
            1,
            ReadFrom::New {
                block: Duration::from_millis(200),
            },
        )
        .await
        .unwrap();
    assert!(none.is_empty());
    assert!(started.elapsed() >= Duration::from_millis(150));
}

async fn redelivery_after_consumer_restart(bus: Arc<dyn Bus>) {
    let cb = ContractBus::new(bus.clone());
    let stream: &'static str = Box::leak(unique("restart").into_boxed_str());
    let mut c1 = cb.consumer(stream, "g", "worker-1").await.unwrap();
    for i in 0..3 {
        bus.xadd(stream, &i.to_string(), 100).await.unwrap();
    }
    let first: Vec<_> = c1.next_batch::<u32>(2, Duration::ZERO).await.unwrap();
    assert_eq!(
        first
            .iter()
            .map(|i| i.value.clone().unwrap())
            .collect::<Vec<_>>(),
        [0, 1]
    );
    c1.ack(&first[0].id).await.unwrap();
    drop(c1); // "crash" with entry 1 unacked

    // the same consumer restarts: its own pending entry comes first, then new ones
    let mut again = cb.consumer(stream, "g", "worker-1").await.unwrap();
    let replay = again.next_batch::<u32>(10, Duration::ZERO).await.unwrap();
    assert_eq!(replay.len(), 1);
    assert_eq!(replay[0].id, first[1].id);
    assert_eq!(replay[0].value, Ok(1));
    let pending = bus.pending(stream, "g", 10).await.unwrap();
    assert_eq!(
        pending[0].deliveries, 2,
        "re-reading own pending counts as a delivery"
    );
    again.ack(&replay[0].id).await.unwrap();
    let rest = again.next_batch::<u32>(10, Duration::ZERO).await.unwrap();
    assert_eq!(
        rest.iter()
            .map(|i| i.value.clone().unwrap())
            .collect::<Vec<_>>(),
        [2]
    );
    again.ack(&rest[0].id).await.unwrap();
    assert!(bus.pending(stream, "g", 10).await.unwrap().is_empty());
}

async fn claim_from_dead_consumer(bus: Arc<dyn Bus>) {
    let cb = ContractBus::new(bus.clone());
    let stream: &'static str = Box::leak(unique("claim").into_boxed_str());
    let mut dead = cb.consumer(stream, "g", "dead").await.unwrap();
    bus.xadd(stream, "\"job\"", 100).await.unwrap();
    let taken = dead.next_batch::<String>(1, Duration::ZERO).await.unwrap();
    assert_eq!(taken.len(), 1);
    drop(dead); // never acks

    let mut alive = cb
        .consumer(stream, "g", "alive")
        .await
        .unwrap()
        .with_claim_idle(Duration::from_millis(300));
    // too fresh to claim yet
    assert!(
        alive
            .next_batch::<String>(1, Duration::ZERO)
            .await
            .unwrap()
            .is_empty()
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let claimed = alive.next_batch::<String>(1, Duration::ZERO).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, taken[0].id);
    assert_eq!(claimed[0].value.as_deref(), Ok("job"));
    let p = bus.pending(stream, "g", 10).await.unwrap();
    assert_eq!((p[0].consumer.as_str(), p[0].deliveries), ("alive", 2));
    alive.ack(&claimed[0].id).await.unwrap();
    assert!(bus.pending(stream, "g", 10).await.unwrap().is_empty());
}

async fn malformed_entries_are_reported_not_lost(bus: Arc<dyn Bus>) {
    let cb = ContractBus::new(bus.clone());
    let stream: &'static str = Box::leak(unique("poison").into_boxed_str());
    let mut c = cb.consumer(stream, "g", "c").await.unwrap();
    bus.xadd(stream, "{not json", 100).await.unwrap();
    bus.xadd(stream, "7", 100).await.unwrap();
    let got = c.next_batch::<u32>(10, Duration::ZERO).await.unwrap();
    assert_eq!(got.len(), 2);
    let err = got[0].value.as_ref().unwrap_err();
    assert!(err.contains(&got[0].id) && err.contains(stream), "{err}");
    assert_eq!(got[1].value, Ok(7));
}

async fn trimming_keeps_about_max_len(bus: Arc<dyn Bus>) {
    let s = unique("trim");
    for i in 0..1000 {
        bus.xadd(&s, &i.to_string(), 100).await.unwrap();
    }
    let len = bus.stream_len(&s).await.unwrap();
    assert!((100..=300).contains(&len), "len {len}");
}

async fn pattern_subscribe(bus: Arc<dyn Bus>) {
    let base = unique("ps");
    let pattern = format!("{base}:*:status");
    let mut sub = bus
        .subscribe(&[Topic::Pattern(pattern.clone())], 100)
        .await
        .unwrap();
    bus.publish(&format!("{base}:m1:events"), "no")
        .await
        .unwrap();
    let n = bus
        .publish(&format!("{base}:m1:status"), "yes")
        .await
        .unwrap();
    assert_eq!(n, 1);
    let m = next_message(&mut sub).await;
    assert_eq!(m.channel, format!("{base}:m1:status"));
    assert_eq!(m.pattern.as_deref(), Some(pattern.as_str()));
    assert_eq!(m.payload, "yes");

    // add an exact channel, then remove the pattern
    let exact = format!("{base}:m2:events");
    sub.subscribe(&[Topic::Channel(exact.clone())])
        .await
        .unwrap();
    sub.unsubscribe(&[Topic::Pattern(pattern)]).await.unwrap();
    bus.publish(&format!("{base}:m2:status"), "dropped")
        .await
        .unwrap();
    bus.publish(&exact, "kept").await.unwrap();
    let m = next_message(&mut sub).await;
    assert_eq!(
        (m.channel.as_str(), m.pattern, m.payload.as_str()),
        (exact.as_str(), None, "kept")
    );

    // dropping the subscription unsubscribes
    drop(sub);
    let deadline = Instant::now() + Duration::from_secs(5);
    while bus.publish(&exact, "x").await.unwrap() != 0 {
        assert!(Instant::now() < deadline, "still subscribed after drop");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn per_channel_order(bus: Arc<dyn Bus>) {
    let ch = unique("order");
    let mut sub = bus
        .subscribe(&[Topic::Channel(ch.clone())], 10_000)
        .await
        .unwrap();
    for i in 0..500 {
        bus.publish(&ch, &i.to_string()).await.unwrap();
    }
    for i in 0..500 {
        assert_eq!(next_message(&mut sub).await.payload, i.to_string());
    }
}

async fn slow_subscriber_isolation(bus: Arc<dyn Bus>) {
    let ch = unique("slow");
    let mut slow = bus
        .subscribe(&[Topic::Channel(ch.clone())], 10)
        .await
        .unwrap();
    let mut fast = bus
        .subscribe(&[Topic::Channel(ch.clone())], 1000)
        .await
        .unwrap();
    // the publisher never waits for the slow reader
    within(10, "publishing past a stalled subscriber", async {
        for i in 0..200 {
            bus.publish(&ch, &i.to_string()).await.unwrap();
        }
    })
    .await;
    for i in 0..200 {
        assert_eq!(next_message(&mut fast).await.payload, i.to_string());
    }
    // the slow one lost its oldest messages, is told so, and has the newest ones
    let mut lagged = 0;
    let mut kept = Vec::new();
    while kept.last().map(String::as_str) != Some("199") {
        match within(5, "slow subscriber", slow.next()).await.unwrap() {
            SubEvent::Lagged(n) => lagged += n,
            SubEvent::Message(m) => kept.push(m.payload),
            other => panic!("{other:?}"),
        }
    }
    // every message is delivered or counted as lost; the queue (10) may hold one more that the
    // Redis reader had in hand when the queue filled
    assert_eq!(
        usize::try_from(lagged).unwrap() + kept.len(),
        200,
        "lagged {lagged}, kept {kept:?}"
    );
    assert!(kept.len() <= 11, "lagged {lagged}, kept {kept:?}");
    let nums: Vec<u32> = kept.iter().map(|s| s.parse().unwrap()).collect();
    assert!(nums.windows(2).all(|w| w[0] < w[1]), "order kept: {nums:?}");
}

fn ids() -> (MatchId, SessionId) {
    (MatchId::generate(), SessionId::generate())
}

fn status(m: MatchId, s: SessionId, seq: u64, st: SessionStatus) -> Envelope {
    Envelope {
        match_id: m,
        session_id: Some(s),
        ts: 1.0,
        seq,
        payload: Payload::Status(StatusData {
            status: Some(st),
            match_status: None,
            message: None,
            worker_id: Some("w1".into()),
        }),
    }
}

async fn typed_layer(bus: Arc<dyn Bus>) {
    let cb = ContractBus::new(bus.clone());
    let (m, s) = ids();

    // control
    assert_eq!(cb.control(&m).await.unwrap(), None);
    let control = Control {
        session_id: s,
        state: DesiredState::Running,
    };
    cb.set_control(&m, &control).await.unwrap();
    assert_eq!(cb.control(&m).await.unwrap(), Some(control));

    // lease: one holder at a time, refresh only by the holder, TTL 8 s
    let mine = Lease {
        worker_id: "w1".into(),
        session_id: s,
    };
    let theirs = Lease {
        worker_id: "w2".into(),
        session_id: s,
    };
    assert!(cb.acquire_lease(&m, &mine).await.unwrap());
    assert!(
        cb.acquire_lease(&m, &mine).await.unwrap(),
        "re-acquire by the holder"
    );
    assert!(!cb.acquire_lease(&m, &theirs).await.unwrap());
    assert!(!cb.refresh_lease(&m, &theirs).await.unwrap());
    assert!(cb.refresh_lease(&m, &mine).await.unwrap());
    let ttl = bus.ttl(&keys::lease(&m)).await.unwrap().unwrap();
    assert!(
        ttl > Duration::from_secs(7) && ttl <= Duration::from_secs(8),
        "{ttl:?}"
    );
    assert_eq!(cb.lease(&m).await.unwrap(), Some(mine.clone()));
    assert!(!cb.release_lease(&m, &theirs).await.unwrap());
    assert!(cb.release_lease(&m, &mine).await.unwrap());
    assert_eq!(cb.lease(&m).await.unwrap(), None);

    // heartbeat: TTL 10 s, listed
    let hb = Heartbeat {
        worker_id: format!("w-{m}"),
        device: "cpu".into(),
        gpu: None,
        models: vec!["default".into()],
        active_matches: vec![m],
        capacity: 2,
        started_at: 1.0,
        ts: 2.0,
    };
    cb.write_heartbeat(&hb).await.unwrap();
    let ttl = bus
        .ttl(&keys::heartbeat(&hb.worker_id))
        .await
        .unwrap()
        .unwrap();
    assert!(
        ttl > Duration::from_secs(9) && ttl <= Duration::from_secs(10),
        "{ttl:?}"
    );
    assert!(cb.heartbeats().await.unwrap().contains(&hb));

    // publishing: subscribers of the match see status, frame and metrics; streams and snapshot
    // keys hold them
    let mut feed = cb.subscribe_match(&m, 100).await.unwrap();
    let st = status(m, s, 1, SessionStatus::Processing);
    let frame_text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../sportz-contract/tests/fixtures/frame.json"
    ))
    .unwrap();
    let mut frame = Envelope::from_json(&frame_text).unwrap();
    frame.match_id = m;
    frame.session_id = Some(s);
    let metrics = Envelope {
        match_id: m,
        session_id: Some(s),
        ts: 3.0,
        seq: 3,
        payload: Payload::Metrics(MetricsData {
            source_fps: 25.0,
            inference_fps: 24.0,
            detect_ms: 30.0,
            detect_ms_p95: None,
            latency_ms: 100.0,
            frames_processed: 10,
            dropped_frames: 0,
            events_emitted: 0,
            device: "cpu".into(),
            gpu: None,
        }),
    };
    let before = bus.stream_len(keys::STATUS_UPDATES).await.unwrap();
    for env in [&st, &frame, &metrics] {
        cb.publish(env).await.unwrap();
    }
    for want in [&st, &frame, &metrics] {
        match within(5, "match feed", feed.next()).await.unwrap() {
            MatchFeed::Message(got) => assert_eq!(&*got, want),
            other => panic!("{other:?}"),
        }
    }
    assert!(bus.stream_len(keys::STATUS_UPDATES).await.unwrap() > before);
    assert_eq!(cb.last_frame(&m).await.unwrap(), Some(frame));
    assert_eq!(cb.last_metrics(&m).await.unwrap(), Some(metrics));
    let ttl = bus.ttl(&keys::frame_last(&m)).await.unwrap().unwrap();
    assert!(
        ttl > Duration::from_secs(29) && ttl <= Duration::from_secs(30),
        "{ttl:?}"
    );

    // a malformed message on a match channel is reported, not dropped silently
    bus.publish(&keys::Channel::Events.name(&m), "{\"type\":\"event\"}")
        .await
        .unwrap();
    match within(5, "match feed", feed.next()).await.unwrap() {
        MatchFeed::Malformed { channel, reason } => {
            assert!(channel.ends_with(":events"), "{channel}");
            assert!(reason.contains("match_id"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
}

async fn command_intake_one_at_a_time(bus: Arc<dyn Bus>) {
    // commands are a shared stream: use a private bus for memory, a fresh server key space is
    // not available on a shared Redis, so skip entries that are not ours
    let cb = ContractBus::new(bus.clone());
    let (m, s) = ids();
    let worker = format!("w-{m}");
    let mut intake = cb.command_intake(&worker).await.unwrap();
    let cmd = WorkerCommand::Start {
        match_id: m,
        session_id: s,
        config: SessionConfig::new(VideoSource::Synthetic(1)),
    };
    cb.send_command(&cmd).await.unwrap();
    let mut found = None;
    while found.is_none() {
        let item = within(5, "intake", intake.next(Duration::from_secs(1)))
            .await
            .unwrap()
            .expect("a command");
        match &item.value {
            Ok(c) if c == &cmd => found = Some(item),
            _ => intake.ack(&item.id).await.unwrap(), // another test's command
        }
    }
    let item = found.unwrap();
    intake.ack(&item.id).await.unwrap();
}

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
