//! Pub/sub: pattern subscriptions, order kept per channel, and a slow subscriber that loses its
//! own oldest messages without holding up anyone else.

use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{Bus, SubEvent, Topic};

use super::{next_message, unique, within};

pub(super) async fn pattern_subscribe(bus: Arc<dyn Bus>) {
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

pub(super) async fn per_channel_order(bus: Arc<dyn Bus>) {
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

pub(super) async fn slow_subscriber_isolation(bus: Arc<dyn Bus>) {
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
