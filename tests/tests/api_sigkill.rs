//! `sportz api` SIGKILLed while it holds unacknowledged events: Postgres is stopped so the API
//! has read 20 events from `events:stream` but cannot store them, the API is killed, Postgres
//! comes back and a new API process claims the dead one's pending entries — all 20 are stored,
//! each once. Prints how long after the restart they were all in (RELIABILITY.md).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sportz_bus::ContractBus;
use sportz_contract::{Envelope, EventData, EventId, EventKind, MatchId, Payload, SessionId};
use sportz_e2e::{Api, sportz_bin};

const TOKEN: &str = "api-sigkill-operator-token";

struct Proc(Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn api(port: u16, redis: &str, db: &str) -> Proc {
    Proc(
        Command::new(sportz_bin())
            .args([
                "api",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--redis",
                redis,
            ])
            .args(["--database", db])
            .env("SPORTZ_OPERATOR_TOKEN", TOKEN)
            .env("SPORTZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sportz api starts"),
    )
}

#[tokio::test]
async fn events_pending_on_a_killed_api_are_stored_by_the_next_one() {
    let redis = sportz_testkit::RedisServer::start();
    let pg = sportz_testkit::PgServer::start();
    let port = sportz_testkit::free_port();
    let rest = Api::new(port, TOKEN);
    let mut first = api(port, &redis.url(), &pg.url());
    rest.wait_healthy(60).await;
    let (_, created) = rest
        .post(
            "/matches",
            Some(&json!({"homeTeam": "A", "awayTeam": "B", "videoSource": {"type": "synthetic", "value": 1}})),
        )
        .await;
    let m: MatchId = created["data"]["id"].as_str().unwrap().parse().unwrap();
    let (_, started) = rest.post(&format!("/matches/{m}/start"), None).await;
    let s: SessionId = started["data"]["currentSessionId"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let bus = ContractBus::new(Arc::new(
        sportz_bus::RedisBus::connect(&redis.url()).await.unwrap(),
    ));

    // the store goes away; 20 events arrive and are read, but cannot be stored
    pg.stop();
    for k in 0..20u64 {
        let env = Envelope {
            match_id: m,
            session_id: Some(s),
            ts: sportz_contract::unix_now(),
            seq: k,
            payload: Payload::Event(EventData {
                event_id: EventId::generate(),
                kind: EventKind::Pass,
                video_timestamp: k as f64,
                timestamp: sportz_contract::unix_now(),
                frame_number: 100 + k,
                pitch: None,
                team: None,
                player_track_id: None,
                confidence: 0.9,
                details: serde_json::Map::new(),
            }),
        };
        bus.publish(&env).await.unwrap();
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    // the API dies holding them (delivered, not acknowledged)
    first.0.kill().unwrap();
    first.0.wait().unwrap();
    pg.restart();
    let restarted = Instant::now();
    let _second = api(port, &redis.url(), &pg.url());
    rest.wait_healthy(60).await;
    loop {
        let v = rest.get(&format!("/matches/{m}")).await;
        if v["data"]["eventCount"] == 20 {
            break;
        }
        assert!(
            restarted.elapsed() < Duration::from_secs(90),
            "events of the killed API not stored: {v}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    println!(
        "api sigkill: all 20 pending events stored {:.1} s after the restart",
        restarted.elapsed().as_secs_f64()
    );
    let events = rest.get(&format!("/matches/{m}/events?limit=100")).await;
    let frames: Vec<u64> = events["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"]["frame_number"].as_u64().unwrap())
        .collect();
    assert_eq!(frames, (100..120).collect::<Vec<_>>(), "each once");
}
