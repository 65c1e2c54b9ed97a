//! The live snapshot's events (`recent_events`) after a restart: the current session's, not the
//! previous session's — and what a reconnecting client missed (`events_after`) — on both engines.

use std::sync::Arc;

use sportz_contract::worker::VideoSource;
use sportz_contract::{EventData, EventId, EventKind, SessionId};
use sportz_store::{NewEvent, NewMatch, PgStore, SqliteStore, Store};

fn event(frame: u64) -> EventData {
    EventData {
        event_id: EventId::generate(),
        kind: EventKind::Pass,
        video_timestamp: frame as f64 / 25.0,
        timestamp: 1_780_000_000.0 + frame as f64 / 25.0,
        frame_number: frame,
        pitch: None,
        team: None,
        player_track_id: None,
        confidence: 0.5,
        details: serde_json::Map::new(),
    }
}

async fn restart_shows_the_new_sessions_events(store: Arc<dyn Store>) {
    let mut new = NewMatch::new("Restarted", "A", "B");
    new.video_source = Some(VideoSource::Synthetic(1));
    let m = store.create_match(new).await.unwrap();
    let insert = |s: SessionId, frames: std::ops::Range<u64>| {
        let store = store.clone();
        async move {
            for f in frames {
                let e = NewEvent {
                    match_id: m.id,
                    session_id: Some(s),
                    data: event(f),
                };
                assert!(store.insert_event(e).await.unwrap());
            }
        }
    };
    // the first session ran far into the video ...
    let s1 = SessionId::generate();
    store.create_session(m.id, s1, None).await.unwrap();
    insert(s1, 1_000..1_010).await;
    // ... the restart starts again near the beginning
    let s2 = SessionId::generate();
    store.create_session(m.id, s2, None).await.unwrap();
    insert(s2, 5..8).await;

    let recent = store.recent_events(m.id, 5).await.unwrap();
    let got: Vec<(Option<SessionId>, u64)> = recent
        .iter()
        .map(|e| (e.session_id, e.data.frame_number))
        .collect();
    assert_eq!(
        got,
        [(Some(s2), 5), (Some(s2), 6), (Some(s2), 7)],
        "the snapshot shows the current session's events, oldest first"
    );
}

#[tokio::test]
async fn recent_events_are_the_current_sessions_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("s.db")).await.unwrap();
    restart_shows_the_new_sessions_events(Arc::new(store)).await;
}

#[tokio::test]
async fn recent_events_are_the_current_sessions_on_postgres() {
    let db = sportz_testkit::PgDatabase::create();
    let store = PgStore::connect(db.url()).await.unwrap();
    restart_shows_the_new_sessions_events(Arc::new(store)).await;
}

/// What a client that saw event `k` last missed: every event stored after it, in the order
/// stored (even when frames arrive out of order), capped; an unknown id is `None`, an unknown
/// match an error.
async fn events_after_an_id(store: Arc<dyn Store>) {
    let mut new = NewMatch::new("Recovered", "A", "B");
    new.video_source = Some(VideoSource::Synthetic(1));
    let m = store.create_match(new).await.unwrap();
    let s = SessionId::generate();
    store.create_session(m.id, s, None).await.unwrap();
    let mut ids = Vec::new();
    for f in [10, 20, 15, 30, 40] {
        let data = event(f);
        ids.push(data.event_id);
        store
            .insert_event(NewEvent {
                match_id: m.id,
                session_id: Some(s),
                data,
            })
            .await
            .unwrap();
    }
    let frames = |v: Vec<sportz_store::StoredEvent>| -> Vec<u64> {
        v.iter().map(|e| e.data.frame_number).collect()
    };
    let missed = store
        .events_after(m.id, ids[1], 100)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(frames(missed), [15, 30, 40], "in the order stored");
    let capped = store.events_after(m.id, ids[0], 2).await.unwrap().unwrap();
    assert_eq!(frames(capped), [20, 15]);
    let none = store
        .events_after(m.id, ids[4], 100)
        .await
        .unwrap()
        .unwrap();
    assert!(none.is_empty(), "nothing after the newest");
    assert!(
        store
            .events_after(m.id, EventId::generate(), 100)
            .await
            .unwrap()
            .is_none(),
        "an id this match never had"
    );
    let other = store
        .create_match(NewMatch::new("Other", "C", "D"))
        .await
        .unwrap();
    assert!(
        store
            .events_after(other.id, ids[0], 100)
            .await
            .unwrap()
            .is_none(),
        "another match's event id"
    );
    assert!(
        store
            .events_after(sportz_contract::MatchId::generate(), ids[0], 100)
            .await
            .is_err(),
        "unknown match"
    );
}

#[tokio::test]
async fn events_after_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("s.db")).await.unwrap();
    events_after_an_id(Arc::new(store)).await;
}

#[tokio::test]
async fn events_after_on_postgres() {
    let db = sportz_testkit::PgDatabase::create();
    let store = PgStore::connect(db.url()).await.unwrap();
    events_after_an_id(Arc::new(store)).await;
}
