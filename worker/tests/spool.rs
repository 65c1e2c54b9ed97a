//! Events survive the worker stopping while Redis is down: a real `redis-server` is killed
//! mid-session, the worker keeps the refused events (and then its final status) in its spool
//! directory and is shut down before Redis returns; a new worker on the same directory
//! publishes them once Redis is back, each exactly once, removes the file and records them in
//! the session's ledger.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::events::{EventEveryFifth, collect_events};
use common::*;
use sportz_bus::Bus;
use sportz_contract::status::SessionStatus;
use sportz_contract::{Envelope, EventId, MatchId, Payload};
use sportz_worker::session::ledger;

/// The envelopes in the spool files of `dir`.
fn spool_lines(dir: &Path) -> Vec<Envelope> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "jsonl"))
        .flat_map(|e| {
            std::fs::read_to_string(e.path())
                .unwrap()
                .lines()
                .filter_map(|l| Envelope::from_json(l).ok())
                .collect::<Vec<_>>()
        })
        .collect()
}

/// The statuses in the spool files of `dir`.
fn spooled_statuses(dir: &Path) -> Vec<SessionStatus> {
    spool_lines(dir)
        .into_iter()
        .filter_map(|e| match e.payload {
            Payload::Status(st) => st.status,
            _ => None,
        })
        .collect()
}

/// The event frame numbers in the spool files of `dir`.
fn spooled(dir: &Path) -> Vec<u64> {
    spool_lines(dir)
        .into_iter()
        .filter_map(|e| match e.payload {
            Payload::Event(ev) => Some(ev.frame_number),
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_spooled_while_redis_is_down_are_published_by_the_next_worker() {
    let dir = tempfile::tempdir().unwrap();
    let spool_dir = dir.path().join("spool");
    let ledger_dir = dir.path().join("ledger");
    // 8 s at 10 fps in real time: an event every 5 frames
    let clip = make_clip(dir.path(), "clip.mp4", 8, 10);
    let (bus, mut server) = redis_bus().await;

    let mut settings = fast_settings("spool-a");
    settings.analyzers = Arc::new(EventEveryFifth);
    settings.spool_dir = Some(spool_dir.clone());
    settings.ledger_dir = Some(ledger_dir.clone());
    settings.outbox_drain = Duration::from_secs(1);
    let worker_a = spawn_worker(&bus, settings);
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    start(&bus, m, file_config(&clip, true)).await;
    watch.status(20, SessionStatus::Processing).await;
    tokio::time::sleep(Duration::from_secs(1)).await;

    // Redis goes away; the events of the next seconds can only go to the spool
    server.kill();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while spooled(&spool_dir).len() < 4 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "nothing spooled in {}",
            spool_dir.display()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // the worker stops while Redis is still down: its outbox cannot drain, and the session's
    // last status (failed: the worker shut down) waits in the spool behind the events
    drop(worker_a);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !spooled_statuses(&spool_dir).iter().any(|s| s.is_terminal()) {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no final status spooled: {:?}",
            spooled_statuses(&spool_dir)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let kept: BTreeSet<u64> = spooled(&spool_dir).into_iter().collect();
    assert!(kept.len() >= 4, "spooled: {kept:?}");
    let kept_ids: BTreeSet<EventId> = spool_lines(&spool_dir)
        .into_iter()
        .filter_map(|e| match e.payload {
            Payload::Event(ev) => Some(ev.event_id),
            _ => None,
        })
        .collect();
    let ledger_ids = || -> Vec<EventId> {
        ledger::entries(&ledger_dir)
            .unwrap()
            .into_iter()
            .filter(|e| e.match_id == m)
            .flat_map(|e| e.published)
            .collect()
    };
    let before = ledger_ids();
    assert!(
        before.iter().all(|id| !kept_ids.contains(id)),
        "the ledger lists only what the bus took, not what waits in the spool"
    );

    // Redis is back (empty); a new worker on the same spool directory publishes the events
    server.restart();
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let raw: Arc<dyn Bus> = Arc::new(sportz_bus::RedisBus::connect(&server.url()).await.unwrap());
    // the reader's group exists before anything is published (it reads only new entries)
    raw.ensure_group(sportz_contract::keys::EVENTS_STREAM, "test")
        .await
        .unwrap();
    let reader = tokio::spawn(collect_events(raw, stop_rx));
    let mut settings = fast_settings("spool-b");
    settings.spool_dir = Some(spool_dir.clone());
    settings.ledger_dir = Some(ledger_dir.clone());
    let _worker_b = spawn_worker(&bus, settings);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while !spooled(&spool_dir).is_empty() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the spool was not replayed: {:?}",
            spooled(&spool_dir)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    stop_tx.send(true).unwrap();
    let seen = reader.await.unwrap();
    let distinct: BTreeSet<u64> = seen.iter().copied().collect();
    assert_eq!(
        distinct, kept,
        "every spooled event reached events:stream: {seen:?}"
    );
    assert_eq!(seen.len(), distinct.len(), "none twice: {seen:?}");
    // the replay is recorded in the session's ledger: before + the spooled ones, each once
    let after = ledger_ids();
    assert_eq!(after.len(), before.len() + kept_ids.len(), "{after:?}");
    assert!(kept_ids.iter().all(|id| after.contains(id)), "{after:?}");
}
