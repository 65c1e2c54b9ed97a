//! Keys: TTL strings expire, and `keys` finds them by glob pattern.

use std::sync::Arc;
use std::time::Duration;

use sportz_bus::Bus;

use super::unique;

pub(super) async fn ttl_expiry(bus: Arc<dyn Bus>) {
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

pub(super) async fn keys_by_pattern(bus: Arc<dyn Bus>) {
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
