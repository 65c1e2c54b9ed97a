//! The live snapshot's events (`recent_events`) after a restart: the current session's, not the
//! previous session's — on both engines.

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
    store.create_session(m.id, s1).await.unwrap();
    insert(s1, 1_000..1_010).await;
    // ... the restart starts again near the beginning
    let s2 = SessionId::generate();
    store.create_session(m.id, s2).await.unwrap();
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
