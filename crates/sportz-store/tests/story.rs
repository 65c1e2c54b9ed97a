//! One story, two engines: everything the API and the consumers do with a store, in the order a
//! match lives it, run on SQLite (a file in a temp dir) and on Postgres (a fresh database from
//! the testkit: `DATABASE_URL`'s server, or a private one it starts). It stays one long file on
//! purpose: the chapters of the story build on each other's rows, and reading it top to bottom is
//! reading a match's life.

use std::collections::HashSet;
use std::sync::Arc;

use sportz_contract::match_centre::MatchPhase;
use sportz_contract::status::IgnoreReason;
use sportz_contract::worker::PointPair;
use sportz_contract::{
    DesiredState, EventData, EventId, EventKind, MatchId, MatchStatus, PitchPoint, PixelPoint,
    SessionId, SessionStatus, StatusDecision, VideoSource,
};
use sportz_store::{
    EventFilter, Match, MatchFilter, MatchUpdate, NewCommentary, NewEvent, NewMatch, PageRequest,
    PgStore, SessionStats, SessionStatusUpdate, SqliteStore, Store, StoreError, TokenRole,
};
use time::OffsetDateTime;
use time::macros::datetime;

fn is_not_found<T: std::fmt::Debug>(r: Result<T, StoreError>, what: &str) {
    match r {
        Err(StoreError::NotFound { what: w, .. }) if w == what => {}
        other => panic!("expected {what} not found, got {other:?}"),
    }
}

fn is_conflict<T: std::fmt::Debug>(r: Result<T, StoreError>, needle: &str) {
    match r {
        Err(e @ StoreError::Conflict { .. }) => {
            assert!(e.to_string().contains(needle), "`{e}` lacks `{needle}`");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
}

fn is_invalid<T: std::fmt::Debug>(r: Result<T, StoreError>, needle: &str) {
    match r {
        Err(e @ StoreError::Invalid(_)) => {
            assert!(e.to_string().contains(needle), "`{e}` lacks `{needle}`");
        }
        other => panic!("expected invalid input, got {other:?}"),
    }
}

fn event(kind: EventKind, frame: u64) -> EventData {
    let mut details = serde_json::Map::new();
    details.insert("frame".into(), serde_json::json!(frame));
    EventData {
        event_id: EventId::generate(),
        kind,
        video_timestamp: frame as f64 / 25.0,
        timestamp: 1_780_000_000.0 + frame as f64 / 25.0,
        frame_number: frame,
        pitch: Some(PitchPoint { x: 52.5, y: 34.0 }),
        team: None,
        player_track_id: Some(7),
        confidence: 0.875,
        details,
    }
}

fn pair(px: f64, py: f64, x: f64, y: f64) -> PointPair {
    PointPair {
        pixel: PixelPoint { x: px, y: py },
        pitch: PitchPoint { x, y },
    }
}

/// Every page of a listing, following cursors; checks pages are at most `limit` long.
async fn all_pages<T, F, Fut>(limit: u32, mut fetch: F) -> Vec<T>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<sportz_store::Page<T>, StoreError>>,
{
    let mut out = Vec::new();
    let mut page = PageRequest::first(limit);
    for _ in 0..100 {
        let p = fetch(page).await.unwrap();
        assert!(p.items.len() <= limit as usize);
        out.extend(p.items);
        match p.next_cursor {
            Some(c) => page = PageRequest::after(c, limit),
            None => return out,
        }
    }
    panic!("more than 100 pages: the cursor does not advance");
}

async fn story(store: Arc<dyn Store>) {
    store.ping().await.unwrap();

    // ---- matches ----
    is_invalid(
        store
            .create_match(NewMatch::new(" ", "Arsenal", "Chelsea"))
            .await,
        "name must not be empty",
    );
    let mut draft = NewMatch::new("Cup tie", "Leeds", "Hull");
    draft.competition = Some("FA Cup".into());
    draft.start_time = Some(datetime!(2030-01-01 15:00 UTC));
    let draft = store.create_match(draft).await.unwrap();
    assert_eq!(draft.status, MatchStatus::Draft);
    assert_eq!(
        (draft.home_score, draft.away_score, draft.event_count),
        (0, 0, 0)
    );

    let mut live = NewMatch::new("Derby", "Arsenal", "Tottenham");
    live.video_source = Some(VideoSource::File("/videos/derby.mp4".into()));
    live.start_time = Some(datetime!(2020-05-01 15:00:00.123456 UTC));
    live.settings.confidence_threshold = 0.4;
    live.settings.target_fps = Some(12.5);
    let m = store.create_match(live).await.unwrap();
    assert_eq!(m.status, MatchStatus::Ready, "a source makes it ready");
    let got = store.get_match(m.id).await.unwrap();
    assert_eq!(got, m, "a stored match reads back unchanged");
    assert_eq!(
        got.phase(OffsetDateTime::now_utc()),
        MatchPhase::Live,
        "kicked off in the past"
    );
    is_not_found(store.get_match(MatchId::generate()).await, "match");

    let finished = store
        .create_match(NewMatch {
            start_time: Some(datetime!(2020-01-01 15:00 UTC)),
            end_time: Some(datetime!(2020-01-01 17:00 UTC)),
            ..NewMatch::new("Old game", "Leeds", "Hull")
        })
        .await
        .unwrap();

    // updates: a source moves a draft to ready; bad values are refused
    let upd = store
        .update_match(
            draft.id,
            MatchUpdate {
                name: Some("Cup tie (replay)".into()),
                video_source: Some(Some(VideoSource::Rtsp("rtsp://cam/1".into()))),
                competition: Some(None),
                ..MatchUpdate::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(upd.status, MatchStatus::Ready);
    assert_eq!(upd.name, "Cup tie (replay)");
    assert_eq!(upd.competition, None);
    assert!(upd.updated_at >= draft.updated_at);
    assert_eq!(store.get_match(draft.id).await.unwrap(), upd);
    is_invalid(
        store
            .update_match(
                draft.id,
                MatchUpdate {
                    end_time: Some(Some(datetime!(2029-01-01 00:00 UTC))),
                    ..MatchUpdate::default()
                },
            )
            .await,
        "endTime",
    );
    is_not_found(
        store
            .update_match(MatchId::generate(), MatchUpdate::default())
            .await,
        "match",
    );

    // calibration
    let pairs = vec![
        pair(100.0, 200.0, 0.0, 0.0),
        pair(1180.5, 200.0, 105.0, 0.0),
        pair(1180.0, 700.0, 105.0, 68.0),
        pair(100.0, 700.0, 0.0, 68.0),
    ];
    let cal = store.set_calibration(m.id, pairs.clone()).await.unwrap();
    assert_eq!(cal.calibration, pairs);
    assert_eq!(store.get_calibration(m.id).await.unwrap(), pairs);
    is_not_found(store.get_calibration(MatchId::generate()).await, "match");

    // ---- commentary ----
    let mut posted = Vec::new();
    for seq in 1..=5u32 {
        let mut c = NewCommentary::new(m.id, seq, "pass", &format!("move {seq}"));
        c.minute = Some(seq * 10);
        c.tags = vec!["open-play".into(), format!("t{seq}")];
        if seq == 3 {
            c.event_type = "goal".into();
            c.actor = Some("Saka".into());
            c.team = Some("Arsenal".into());
            c.period = Some("1H".into());
            c.metadata = Some(serde_json::json!({"assist": "Ødegaard", "xg": 0.31}));
        }
        posted.push(store.add_commentary(c).await.unwrap());
    }
    let goal = &posted[2];
    assert_eq!(goal.actor.as_deref(), Some("Saka"));
    assert_eq!(
        goal.metadata,
        Some(serde_json::json!({"assist": "Ødegaard", "xg": 0.31}))
    );
    assert_eq!(goal.match_id, m.id);
    assert_eq!(goal.tags, vec!["open-play".to_owned(), "t3".to_owned()]);
    is_conflict(
        store
            .add_commentary(NewCommentary::new(m.id, 3, "pass", "again"))
            .await,
        "sequence 3",
    );
    is_invalid(
        store
            .add_commentary(NewCommentary::new(m.id, 0, "pass", "zero"))
            .await,
        "sequence must be greater than 0",
    );
    is_not_found(
        store
            .add_commentary(NewCommentary::new(MatchId::generate(), 1, "pass", "x"))
            .await,
        "match",
    );
    let newest_first = all_pages(2, |p| store.list_commentary(m.id, p)).await;
    let seqs: Vec<u32> = newest_first.iter().map(|c| c.sequence).collect();
    assert_eq!(seqs, vec![5, 4, 3, 2, 1], "newest first, across pages");
    assert_eq!(
        newest_first[2], *goal,
        "a listed row equals the inserted one"
    );
    let first = store
        .list_commentary(m.id, PageRequest::first(5))
        .await
        .unwrap();
    assert_eq!(
        (first.items.len(), first.next_cursor),
        (5, None),
        "an exact page is the last"
    );
    assert!(
        store
            .list_commentary(draft.id, PageRequest::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
    is_not_found(
        store
            .list_commentary(MatchId::generate(), PageRequest::default())
            .await,
        "match",
    );
    is_invalid(
        store
            .list_commentary(m.id, PageRequest::after("not-a-cursor!".into(), 2))
            .await,
        "malformed cursor",
    );

    // ---- score ----
    let scored = store.update_score(m.id, 2, 1).await.unwrap();
    assert_eq!((scored.home_score, scored.away_score), (2, 1));
    assert_eq!(
        store.get_match(m.id).await.unwrap(),
        scored,
        "the returned row is the stored one"
    );
    is_not_found(store.update_score(MatchId::generate(), 1, 0).await, "match");

    // ---- sessions and statuses ----
    let no_source = store
        .create_match(NewMatch::new("No video", "A", "B"))
        .await
        .unwrap();
    is_conflict(
        store
            .create_session(no_source.id, SessionId::generate(), None)
            .await,
        "no video source",
    );
    is_not_found(
        store
            .create_session(MatchId::generate(), SessionId::generate(), None)
            .await,
        "match",
    );
    let s1 = SessionId::generate();
    let ses1 = store.create_session(m.id, s1, None).await.unwrap();
    assert_eq!(ses1.status, SessionStatus::Starting);
    assert_eq!(ses1.config.confidence_threshold, 0.4);
    assert_eq!(ses1.config.target_fps, Some(12.5));
    assert_eq!(
        ses1.config.calibration, pairs,
        "the session snapshots the calibration"
    );
    let now_m = store.get_match(m.id).await.unwrap();
    assert_eq!(
        (now_m.status, now_m.current_session_id),
        (MatchStatus::Starting, Some(s1))
    );
    is_conflict(store.delete_match(m.id).await, "stop it before deleting");
    is_conflict(
        store
            .update_match(
                m.id,
                MatchUpdate {
                    video_source: Some(None),
                    ..MatchUpdate::default()
                },
            )
            .await,
        "stop it before changing",
    );

    let mut up = SessionStatusUpdate::new(s1, SessionStatus::Processing);
    up.worker_id = Some("worker-a".into());
    up.device = Some("cuda:0".into());
    up.message = Some("tracking".into());
    let out = store
        .apply_session_status(up, Some(DesiredState::Running))
        .await
        .unwrap();
    assert_eq!(out.decision, StatusDecision::Apply(MatchStatus::Processing));
    assert!(out.applied());
    assert_eq!(out.match_row.status, MatchStatus::Processing);
    assert_eq!(out.match_row.status_message.as_deref(), Some("tracking"));
    assert_eq!(store.get_match(m.id).await.unwrap(), out.match_row);
    let stale_pause = store
        .apply_session_status(
            SessionStatusUpdate::new(s1, SessionStatus::Paused),
            Some(DesiredState::Running),
        )
        .await
        .unwrap();
    assert_eq!(
        stale_pause.decision,
        StatusDecision::Ignore(IgnoreReason::ContradictsDesired(DesiredState::Running))
    );
    assert_eq!(stale_pause.match_row.status, MatchStatus::Processing);

    // ordered by the worker's seq: paused (seq 7), then a replayed processing (seq 6) arriving
    // late changes nothing; the next newer one (seq 8) applies again
    let with_seq = |status, seq| SessionStatusUpdate {
        seq: Some(seq),
        ..SessionStatusUpdate::new(s1, status)
    };
    let paused = store
        .apply_session_status(
            with_seq(SessionStatus::Paused, 7),
            Some(DesiredState::Paused),
        )
        .await
        .unwrap();
    assert_eq!(paused.decision, StatusDecision::Apply(MatchStatus::Paused));
    let late = store
        .apply_session_status(with_seq(SessionStatus::Processing, 6), None)
        .await
        .unwrap();
    assert_eq!(
        late.decision,
        StatusDecision::Ignore(IgnoreReason::OutOfOrder { seq: 6, last: 7 })
    );
    assert_eq!(late.match_row.status, MatchStatus::Paused);
    assert_eq!(
        store.get_session(s1).await.unwrap().status,
        SessionStatus::Paused
    );
    assert_eq!(store.get_session(s1).await.unwrap().last_status_seq, 7);
    let resumed = store
        .apply_session_status(
            with_seq(SessionStatus::Processing, 8),
            Some(DesiredState::Running),
        )
        .await
        .unwrap();
    assert_eq!(
        resumed.decision,
        StatusDecision::Apply(MatchStatus::Processing)
    );

    // a restart supersedes session 1: its updates no longer touch the match; the new session's
    // message (a takeover says who took it over) is on the match from the same write
    let s2 = SessionId::generate();
    store
        .create_session(m.id, s2, Some("taken over from w1".into()))
        .await
        .unwrap();
    let taken = store.get_match(m.id).await.unwrap();
    assert_eq!(
        (taken.status, taken.status_message.as_deref()),
        (MatchStatus::Starting, Some("taken over from w1"))
    );
    is_conflict(
        store.create_session(m.id, s2, None).await,
        "session already exists",
    );
    assert_eq!(
        store.get_session(s2).await.unwrap().status,
        SessionStatus::Starting,
        "rolled back"
    );
    let old = store.get_session(s1).await.unwrap();
    assert_eq!(
        old.status,
        SessionStatus::Stopped,
        "the superseded session is closed"
    );
    assert!(old.stopped_at.is_some());
    assert_eq!(old.worker_id.as_deref(), Some("worker-a"));
    let ignored = store
        .apply_session_status(
            SessionStatusUpdate::new(s1, SessionStatus::Processing),
            Some(DesiredState::Running),
        )
        .await
        .unwrap();
    assert_eq!(
        ignored.decision,
        StatusDecision::Ignore(IgnoreReason::Superseded)
    );
    assert_eq!(ignored.match_row.status, MatchStatus::Starting);
    assert_eq!(
        store.get_match(m.id).await.unwrap().status,
        MatchStatus::Starting
    );
    let mut up = SessionStatusUpdate::new(s2, SessionStatus::Reconnecting);
    up.device = Some("cpu".into());
    let out = store.apply_session_status(up, None).await.unwrap();
    assert_eq!(out.decision, StatusDecision::Apply(MatchStatus::Processing));
    is_not_found(
        store
            .apply_session_status(
                SessionStatusUpdate::new(SessionId::generate(), SessionStatus::Processing),
                None,
            )
            .await,
        "session",
    );
    let stats = SessionStats {
        frames_processed: 1_500,
        avg_fps: Some(24.5),
        avg_latency_ms: Some(38.25),
    };
    let ses2 = store.update_session_stats(s2, stats).await.unwrap();
    assert_eq!(ses2.frames_processed, 1_500);
    assert_eq!(store.get_session(s2).await.unwrap(), ses2);
    assert_eq!(ses2.device.as_deref(), Some("cpu"));
    let sessions = store.list_sessions(m.id).await.unwrap();
    let ids: Vec<SessionId> = sessions.iter().map(|s| s.id).collect();
    assert_eq!(ids, vec![s2, s1], "newest first");
    is_not_found(store.list_sessions(MatchId::generate()).await, "match");

    // ---- events (one duplicate, one batch with a duplicate) ----
    let frames = [250u64, 10, 90, 90, 400];
    let kinds = [
        EventKind::Pass,
        EventKind::Possession,
        EventKind::Shot,
        EventKind::Pass,
        EventKind::Goal,
    ];
    let mut datas = Vec::new();
    for (f, k) in frames.iter().zip(kinds) {
        let d = event(k, *f);
        let new = NewEvent {
            match_id: m.id,
            session_id: Some(s2),
            data: d.clone(),
        };
        assert!(
            store.insert_event(new).await.unwrap(),
            "a new event is inserted"
        );
        datas.push(d);
    }
    let dup = NewEvent {
        match_id: m.id,
        session_id: Some(s2),
        data: datas[2].clone(),
    };
    assert!(
        !store.insert_event(dup.clone()).await.unwrap(),
        "the same event_id twice is one row"
    );
    let batch = vec![
        event(EventKind::BallOut, 90),
        dup.data,
        event(EventKind::Pass, 1_000),
    ];
    let batch = [batch.clone(), vec![batch[2].clone()]].concat(); // a duplicate within the batch too
    datas.extend([batch[0].clone(), batch[2].clone()]);
    let n = store
        .insert_events(
            batch
                .into_iter()
                .map(|data| NewEvent {
                    match_id: m.id,
                    session_id: None,
                    data,
                })
                .collect(),
        )
        .await
        .unwrap();
    assert_eq!(n, 2, "the duplicates in the batch are skipped");
    assert_eq!(
        store.get_match(m.id).await.unwrap().event_count,
        7,
        "duplicates are not counted"
    );
    is_not_found(
        store
            .insert_event(NewEvent {
                match_id: m.id,
                session_id: Some(SessionId::generate()),
                data: event(EventKind::Pass, 1),
            })
            .await,
        "session",
    );
    is_not_found(
        store
            .insert_event(NewEvent {
                match_id: MatchId::generate(),
                session_id: None,
                data: event(EventKind::Pass, 1),
            })
            .await,
        "match",
    );
    is_invalid(
        store
            .insert_event(NewEvent {
                match_id: draft.id,
                session_id: Some(s2),
                data: event(EventKind::Pass, 1),
            })
            .await,
        "belongs to match",
    );
    let listed = all_pages(3, |p| {
        store.list_events(EventFilter {
            page: p,
            ..EventFilter::of_match(m.id, 3)
        })
    })
    .await;
    assert_eq!(listed.len(), 7);
    let order: Vec<(u64, i64)> = listed.iter().map(|e| (e.data.frame_number, e.id)).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted, "frame order, then row id");
    // the most recent N, oldest first (the live snapshot)
    let recent = store.recent_events(m.id, 3).await.unwrap();
    assert_eq!(
        recent.iter().map(|e| e.id).collect::<Vec<_>>(),
        listed[listed.len() - 3..]
            .iter()
            .map(|e| e.id)
            .collect::<Vec<_>>()
    );
    assert_eq!(store.recent_events(m.id, 500).await.unwrap().len(), 7);
    assert!(store.recent_events(draft.id, 5).await.unwrap().is_empty());
    assert!(matches!(
        store.recent_events(MatchId::generate(), 5).await,
        Err(StoreError::NotFound { .. })
    ));
    let ids: HashSet<EventId> = listed.iter().map(|e| e.event_id()).collect();
    assert_eq!(
        ids,
        datas.iter().map(|d| d.event_id).collect(),
        "every event once"
    );
    let stored_shot = listed
        .iter()
        .find(|e| e.event_id() == datas[2].event_id)
        .unwrap();
    assert_eq!(stored_shot.data, datas[2], "the payload reads back as sent");
    assert_eq!(stored_shot.session_id, Some(s2));
    let passes = store
        .list_events(EventFilter {
            kind: Some(EventKind::Pass),
            ..EventFilter::of_match(m.id, 50)
        })
        .await
        .unwrap();
    assert_eq!(passes.items.len(), 3);
    assert!(passes.items.iter().all(|e| e.data.kind == EventKind::Pass));
    let of_s2 = store
        .list_events(EventFilter {
            session_id: Some(s2),
            ..EventFilter::of_match(m.id, 50)
        })
        .await
        .unwrap();
    assert_eq!(of_s2.items.len(), 5);
    is_invalid(
        store
            .list_events(EventFilter {
                page: PageRequest::after(first_commentary_cursor(&*store, m.id).await, 2),
                ..EventFilter::of_match(m.id, 2)
            })
            .await,
        "belongs to commentary",
    );

    // ---- match listing ----
    let all = all_pages(2, |p| {
        store.list_matches(MatchFilter {
            page: p,
            ..MatchFilter::default()
        })
    })
    .await;
    let mut expect: Vec<&Match> = all.iter().collect();
    expect.sort_by_key(|m| std::cmp::Reverse((m.created_at, m.id)));
    assert_eq!(all.iter().collect::<Vec<_>>(), expect, "newest first");
    let listed_ids: HashSet<MatchId> = all.iter().map(|m| m.id).collect();
    let created: HashSet<MatchId> = [draft.id, m.id, finished.id, no_source.id].into();
    assert_eq!(listed_ids, created);
    let drafts = store
        .list_matches(MatchFilter {
            status: Some(MatchStatus::Draft),
            ..MatchFilter::default()
        })
        .await
        .unwrap();
    let ids: HashSet<MatchId> = drafts.items.iter().map(|m| m.id).collect();
    assert_eq!(ids, [finished.id, no_source.id].into());
    let at = OffsetDateTime::now_utc();
    for phase in [
        MatchPhase::Scheduled,
        MatchPhase::Live,
        MatchPhase::Finished,
    ] {
        let got = store
            .list_matches(MatchFilter {
                phase: Some((phase, at)),
                ..MatchFilter::default()
            })
            .await
            .unwrap();
        let got: HashSet<MatchId> = got.items.iter().map(|m| m.id).collect();
        let want: HashSet<MatchId> = all
            .iter()
            .filter(|m| m.phase(at) == phase)
            .map(|m| m.id)
            .collect();
        assert_eq!(got, want, "{phase:?}: SQL and MatchPhase::of agree");
    }
    is_invalid(
        store
            .list_matches(MatchFilter {
                page: PageRequest::first(0),
                ..MatchFilter::default()
            })
            .await,
        "limit must be at least 1",
    );

    // ---- tokens and settings ----
    let op = store
        .create_token(TokenRole::Operator, Some("desk".into()))
        .await
        .unwrap();
    let viewer = store.create_token(TokenRole::Viewer, None).await.unwrap();
    assert_ne!(op.secret, viewer.secret);
    let seen = store.verify_token(&op.secret).await.unwrap().unwrap();
    assert_eq!((seen.id, seen.role), (op.token.id, TokenRole::Operator));
    assert!(seen.last_used_at.is_some());
    assert_eq!(store.verify_token("sportz_wrong").await.unwrap(), None);
    assert_eq!(store.list_tokens().await.unwrap().len(), 2);
    store.revoke_token(viewer.token.id).await.unwrap();
    assert_eq!(store.verify_token(&viewer.secret).await.unwrap(), None);
    is_not_found(store.revoke_token(viewer.token.id).await, "token");
    assert_eq!(store.get_setting("ui.theme").await.unwrap(), None);
    store
        .set_setting("ui.theme", serde_json::json!("dark"))
        .await
        .unwrap();
    store
        .set_setting("ui.theme", serde_json::json!({"mode": "light"}))
        .await
        .unwrap();
    store
        .set_setting("bus", serde_json::json!(null))
        .await
        .unwrap();
    assert_eq!(
        store.get_setting("ui.theme").await.unwrap(),
        Some(serde_json::json!({"mode": "light"}))
    );
    let keys: Vec<String> = store
        .list_settings()
        .await
        .unwrap()
        .into_iter()
        .map(|(k, _)| k)
        .collect();
    assert_eq!(keys, vec!["bus".to_owned(), "ui.theme".to_owned()]);

    // ---- the end: the session stops, the match is deleted with everything it owns ----
    let done = store
        .apply_session_status(
            SessionStatusUpdate::new(s2, SessionStatus::Stopped),
            Some(DesiredState::Stopped),
        )
        .await
        .unwrap();
    assert_eq!(done.match_row.status, MatchStatus::Completed);
    assert!(store.get_session(s2).await.unwrap().stopped_at.is_some());
    store.delete_match(m.id).await.unwrap();
    is_not_found(store.get_match(m.id).await, "match");
    is_not_found(store.delete_match(m.id).await, "match");
    is_not_found(
        store.list_commentary(m.id, PageRequest::default()).await,
        "match",
    );
    is_not_found(
        store.list_events(EventFilter::of_match(m.id, 10)).await,
        "match",
    );
    is_not_found(store.list_sessions(m.id).await, "match");
    is_not_found(store.get_session(s1).await, "session");
    is_not_found(store.get_session(s2).await, "session");
    // a new match with the same event ids starts from nothing (the events went with the match)
    let again = store
        .create_match(NewMatch::new("After", "A", "B"))
        .await
        .unwrap();
    assert!(
        store
            .insert_event(NewEvent {
                match_id: again.id,
                session_id: None,
                data: datas[0].clone(),
            })
            .await
            .unwrap(),
        "event ids are unique per match, and the old ones were deleted"
    );
    // the other matches are untouched
    assert_eq!(store.get_match(draft.id).await.unwrap(), upd);
}

/// Consumers on several API instances may store the same events at once: each is stored once and
/// counted once, and concurrent score updates each return a complete row.
async fn concurrent_writers(store: Arc<dyn Store>) {
    let m = store
        .create_match(NewMatch::new("Busy", "A", "B"))
        .await
        .unwrap();
    let datas: Vec<EventData> = (0..50).map(|f| event(EventKind::Pass, f)).collect();
    let mut tasks = Vec::new();
    for i in 0..8u32 {
        let store = Arc::clone(&store);
        let batch: Vec<NewEvent> = datas
            .iter()
            .map(|d| NewEvent {
                match_id: m.id,
                session_id: None,
                data: d.clone(),
            })
            .collect();
        tasks.push(tokio::spawn(async move {
            let n = if i % 2 == 0 {
                store.insert_events(batch).await.unwrap()
            } else {
                let mut n = 0;
                for e in batch {
                    n += usize::from(store.insert_event(e).await.unwrap());
                }
                n
            };
            let row = store.update_score(m.id, i, i + 1).await.unwrap();
            assert_eq!(row.away_score, row.home_score + 1, "a whole row");
            n
        }));
    }
    let mut inserted = 0;
    for t in tasks {
        inserted += t.await.unwrap();
    }
    assert_eq!(inserted, 50, "each event inserted by exactly one writer");
    let after = store.get_match(m.id).await.unwrap();
    assert_eq!(after.event_count, 50);
    let page = store
        .list_events(EventFilter::of_match(m.id, 100))
        .await
        .unwrap();
    assert_eq!(page.items.len(), 50);
}

async fn first_commentary_cursor(store: &dyn Store, id: MatchId) -> String {
    store
        .list_commentary(id, PageRequest::first(1))
        .await
        .unwrap()
        .next_cursor
        .expect("more than one commentary entry")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn story_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sportz.db");
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&path).await.unwrap());
    story(Arc::clone(&store)).await;
    concurrent_writers(store).await;
    // reopening applies no migration twice and keeps the data
    let again = SqliteStore::open(&path).await.unwrap();
    assert_eq!(again.list_tokens().await.unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn story_on_postgres() {
    let db = sportz_testkit::PgDatabase::create();
    let store: Arc<dyn Store> = Arc::new(PgStore::connect(db.url()).await.unwrap());
    story(Arc::clone(&store)).await;
    concurrent_writers(store).await;
    let again = PgStore::connect(db.url()).await.unwrap();
    assert_eq!(again.list_tokens().await.unwrap().len(), 1);
}
