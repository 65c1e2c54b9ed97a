//! Streams with consumer groups: at-least-once delivery with acks, blocking reads that wake on a
//! new entry, redelivery after a consumer restarts, claiming from a dead consumer, malformed
//! entries reported rather than lost, and trimming to about `max_len`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{Bus, BusError, ContractBus, ReadFrom};

use super::{NO_BLOCK, unique, within};

pub(super) async fn at_least_once_with_ack(bus: Arc<dyn Bus>) {
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

pub(super) async fn blocking_read_wakes_on_new_entry(bus: Arc<dyn Bus>) {
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

pub(super) async fn redelivery_after_consumer_restart(bus: Arc<dyn Bus>) {
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

pub(super) async fn claim_from_dead_consumer(bus: Arc<dyn Bus>) {
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

pub(super) async fn malformed_entries_are_reported_not_lost(bus: Arc<dyn Bus>) {
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

pub(super) async fn trimming_keeps_about_max_len(bus: Arc<dyn Bus>) {
    let s = unique("trim");
    for i in 0..1000 {
        bus.xadd(&s, &i.to_string(), 100).await.unwrap();
    }
    let len = bus.stream_len(&s).await.unwrap();
    assert!((100..=300).contains(&len), "len {len}");
}
