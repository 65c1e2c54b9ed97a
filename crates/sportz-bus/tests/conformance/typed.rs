//! The typed layer on top: contract envelopes, leases, heartbeats, control and match feeds
//! through [`ContractBus`], and command intake handing out one command at a time.

use std::sync::Arc;
use std::time::Duration;

use sportz_bus::{Bus, ContractBus, MatchFeed};
use sportz_contract::keys;
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{
    Control, Envelope, Heartbeat, Lease, MatchId, MetricsData, Payload, SessionId, StatusData,
    WorkerCommand,
};

use super::within;

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

pub(super) async fn typed_layer(bus: Arc<dyn Bus>) {
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
            camera_missing: None,
            events_dropped: 0,
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

pub(super) async fn command_intake_one_at_a_time(bus: Arc<dyn Bus>) {
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
