//! Failover: when a running session's worker is lost (its lease expired) and another worker has
//! room, the watchdog gives the match to a new session instead of failing it — resuming the file
//! at the last frame the lost worker published, with a status message saying so.

mod common;

use std::time::Duration;

use common::*;
use serde_json::Value;
use sportz_contract::worker::{Heartbeat, WorkerCommand};
use sportz_contract::{MatchId, Payload, SessionId};

/// A live worker's heartbeat.
fn heartbeat(worker: &str, active: Vec<MatchId>) -> Heartbeat {
    Heartbeat {
        worker_id: worker.into(),
        device: "cpu".into(),
        gpu: None,
        models: Vec::new(),
        active_matches: active,
        capacity: 1,
        started_at: 1.0,
        ts: sportz_contract::unix_now(),
    }
}

async fn match_json(s: &Server, m: MatchId) -> Value {
    s.get(&format!("/matches/{m}")).await.1["data"].clone()
}

#[tokio::test]
async fn a_lost_worker_s_match_is_taken_over_where_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let clip = sportz_testkit::TestClip::new(30, 10).make(&dir.path().join("clip.mp4"));
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let created = s
        .create_match(serde_json::json!({"homeTeam": "A", "awayTeam": "B",
            "videoSource": {"type": "file", "value": clip.display().to_string()}}))
        .await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let (ses, lease) = run_as_worker(&s, m, "w-lost").await;
    let mut frame = envelope("frame.json", &m.to_string(), &ses.to_string(), 50);
    if let Payload::Frame(f) = &mut frame.payload {
        f.video_timestamp = 12.5;
    }
    s.bus.publish(&frame).await.unwrap();
    // worker B is alive with room
    let beat = heartbeat("w-spare", Vec::new());
    s.bus.write_heartbeat(&beat).await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while match_json(&s, m).await["status"] != "processing" {
        assert!(tokio::time::Instant::now() < deadline);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // worker A dies: its lease goes
    assert!(s.bus.release_lease(&m, &lease).await.unwrap());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let taken = loop {
        let v = match_json(&s, m).await;
        // the new session and its message are one write: the first read that sees the new
        // session sees why it is there
        if v["currentSessionId"] != ses.to_string() {
            break v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "never taken over: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(taken["status"], "starting", "{taken}");
    let msg = taken["statusMessage"].as_str().unwrap_or_default();
    assert!(
        msg.contains("taken over from w-lost") && msg.contains("w-spare") && msg.contains("12.5 s"),
        "{msg}"
    );
    let new: SessionId = taken["currentSessionId"].as_str().unwrap().parse().unwrap();
    // the old session is closed (superseded), the new one was sent to the workers from 12.5 s
    let (_, sessions) = s.get(&format!("/matches/{m}/sessions")).await;
    let old = sessions["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == ses.to_string())
        .cloned()
        .unwrap();
    assert_eq!(old["status"], "stopped", "{old}");
    let mut intake = s.bus.command_intake("w-spare").await.unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    let config = loop {
        assert!(
            tokio::time::Instant::now() < deadline,
            "no start command for {new}"
        );
        if let Some(item) = intake.next(Duration::from_millis(200)).await.unwrap()
            && let Ok(WorkerCommand::Start {
                session_id, config, ..
            }) = item.value
            && session_id == new
        {
            break config;
        }
    };
    assert_eq!(config.start_at, Some(12.5));
}

#[tokio::test]
async fn without_a_worker_with_room_the_match_fails_as_before() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let m: MatchId = s.synthetic_match().await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let (ses, lease) = run_as_worker(&s, m, "w-only").await;
    // the only other worker is full
    let full = heartbeat("w-full", vec![MatchId::generate()]);
    s.bus.write_heartbeat(&full).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(s.bus.release_lease(&m, &lease).await.unwrap());
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v = match_json(&s, m).await;
        if v["status"] == "failed" {
            assert_eq!(v["currentSessionId"], ses.to_string());
            assert!(
                v["statusMessage"]
                    .as_str()
                    .unwrap()
                    .contains("no other worker has room"),
                "{v}"
            );
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "not failed: {v}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
