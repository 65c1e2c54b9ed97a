//! Postgres down for 12 s under the API: the events that arrive meanwhile fail to be stored
//! (the pool gives up after 10 s), stay pending on the stream, and are stored as soon as it is
//! back — all of them, in order, within seconds, not only when the consumer claims idle entries
//! half a minute later.

mod common;

use std::time::{Duration, Instant};

use common::*;
use sportz_contract::{EventId, Payload};

async fn event_count(s: &Server, url: &str) -> Option<u64> {
    s.get(url).await.1["data"]["eventCount"].as_u64()
}

#[tokio::test]
async fn events_published_while_postgres_is_down_are_stored_when_it_is_back() {
    let redis = own_redis();
    let pg = sportz_testkit::PgServer::start();
    let store = sportz_store::open(&pg.url()).await.unwrap();
    let s = start(redis_bus(&redis.url()).await, store, test_config()).await;
    let (m, ses) = s.started_synthetic_match().await;
    let publish = |k: u64| {
        let mut ev = envelope("event.json", &m, &ses, 100 + k);
        if let Payload::Event(e) = &mut ev.payload {
            e.event_id = EventId::generate();
            e.frame_number = 1000 + k;
        }
        ev
    };
    let url = format!("/matches/{m}");
    for k in 0..5 {
        s.bus.publish(&publish(k)).await.unwrap();
    }
    let deadline = Instant::now() + Duration::from_secs(10);
    while event_count(&s, &url).await != Some(5) {
        assert!(
            Instant::now() < deadline,
            "the first events were not stored"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // Postgres goes down (immediate stop, like a crash) while 20 more events arrive
    pg.stop();
    for k in 5..25 {
        s.bus.publish(&publish(k)).await.unwrap();
    }
    // longer than the pool's 10 s acquire timeout, so the consumer's inserts do fail (a
    // shorter outage is simply waited out by the pool)
    tokio::time::sleep(Duration::from_secs(12)).await;
    pg.restart();
    let back = Instant::now();
    loop {
        if event_count(&s, &url).await == Some(25) {
            break;
        }
        assert!(
            back.elapsed() < Duration::from_secs(15),
            "not all events stored 15 s after Postgres came back: {:?}",
            event_count(&s, &url).await
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    println!(
        "all 25 events stored {:.1} s after Postgres came back",
        back.elapsed().as_secs_f64()
    );
    let (_, events) = s.get(&format!("/matches/{m}/events?limit=100")).await;
    let frames: Vec<u64> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"]["frame_number"].as_u64().unwrap())
        .collect();
    assert_eq!(frames, (1000..1025).collect::<Vec<_>>(), "each once");
}
