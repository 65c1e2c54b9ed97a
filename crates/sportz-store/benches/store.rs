//! Store throughput on both engines: event inserts per second (one per transaction, and in
//! batches of 500), and commentary page reads per second (pages of 50, following cursors).
//!
//! Reproduce: `cargo bench -p sportz-store --bench store`
//! Postgres runs on `DATABASE_URL`'s server when set, otherwise on a private server the testkit
//! starts (note: the testkit's server runs with `fsync=off`).

use std::sync::Arc;
use std::time::Instant;

use sportz_contract::{EventData, EventId, EventKind, MatchId};
use sportz_store::{
    NewCommentary, NewEvent, NewMatch, PageRequest, PgStore, SqliteOptions, SqliteStore, Store,
    Synchronous,
};

const SINGLE: u64 = 1_000;
const BATCHES: u64 = 40;
const BATCH: u64 = 500;
const COMMENTARY: u32 = 1_000;
const PAGE_READS: u32 = 2_000;

fn event(frame: u64) -> EventData {
    EventData {
        event_id: EventId::generate(),
        kind: EventKind::Pass,
        video_timestamp: frame as f64 / 25.0,
        timestamp: 1_780_000_000.0,
        frame_number: frame,
        pitch: None,
        team: None,
        player_track_id: Some(9),
        confidence: 0.8,
        details: serde_json::Map::new(),
    }
}

fn new_event(match_id: MatchId, frame: u64) -> NewEvent {
    NewEvent {
        match_id,
        session_id: None,
        data: event(frame),
    }
}

async fn bench(name: &str, store: Arc<dyn Store>) {
    let m = store
        .create_match(NewMatch::new("Bench", "Home", "Away"))
        .await
        .expect("create match");

    let t = Instant::now();
    for frame in 0..SINGLE {
        store
            .insert_event(new_event(m.id, frame))
            .await
            .expect("insert");
    }
    let single = SINGLE as f64 / t.elapsed().as_secs_f64();

    let t = Instant::now();
    for b in 0..BATCHES {
        let batch = (0..BATCH)
            .map(|i| new_event(m.id, SINGLE + b * BATCH + i))
            .collect();
        store.insert_events(batch).await.expect("insert batch");
    }
    let batched = (BATCHES * BATCH) as f64 / t.elapsed().as_secs_f64();

    for seq in 1..=COMMENTARY {
        store
            .add_commentary(NewCommentary::new(m.id, seq, "pass", "a pass"))
            .await
            .expect("commentary");
    }
    let t = Instant::now();
    let mut page = PageRequest::first(50);
    for _ in 0..PAGE_READS {
        let p = store
            .list_commentary(m.id, page.clone())
            .await
            .expect("page");
        page = match p.next_cursor {
            Some(c) => PageRequest::after(c, 50),
            None => PageRequest::first(50),
        };
    }
    let reads = f64::from(PAGE_READS) / t.elapsed().as_secs_f64();

    println!("| {name} | {single:.0} | {batched:.0} | {reads:.0} |");
}

#[tokio::main]
async fn main() {
    println!("store bench: cargo bench -p sportz-store --bench store");
    println!(
        "| engine | event inserts/s (1 per txn) | event inserts/s (batches of {BATCH}) | commentary pages/s (50 rows) |"
    );
    println!("|---|---|---|---|");
    let dir = tempfile::tempdir().expect("temp dir");
    for (name, sync) in [
        ("sqlite, synchronous=FULL (default)", Synchronous::Full),
        ("sqlite, synchronous=NORMAL", Synchronous::Normal),
    ] {
        let options = SqliteOptions {
            synchronous: sync,
            ..SqliteOptions::default()
        };
        let path = dir.path().join(format!("{sync:?}.db"));
        let store = SqliteStore::open_with(&path, options).await.expect("open");
        bench(name, Arc::new(store)).await;
    }
    let db = sportz_testkit::PgDatabase::create();
    let store = PgStore::connect(db.url()).await.expect("connect");
    let name = if std::env::var("DATABASE_URL").is_ok_and(|u| !u.is_empty()) {
        "postgres (DATABASE_URL)"
    } else {
        "postgres (testkit server, fsync=off)"
    };
    bench(name, Arc::new(store)).await;
}
