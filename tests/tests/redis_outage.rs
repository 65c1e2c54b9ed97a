//! Redis stopped and restarted (empty) under a running `sportz api` and `sportz worker`, as an
//! operator would do by hand: live clients get an error and 1011, health reports the outage, and
//! afterwards everything recovers by itself — the worker keeps its session and re-takes its
//! lease, the API serves the live relay and match-centre broadcasts again.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sportz_e2e::sportz_bin;
use tokio_tungstenite::tungstenite::Message;

struct Child(std::process::Child);
impl Drop for Child {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Reads until a message of `kind` (returned) or a close (its code, as Err).
async fn until(ws: &mut Ws, kind: &str, secs: u64) -> Result<Value, u16> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => {
                let v: Value = serde_json::from_str(t.as_str()).unwrap();
                if v["type"] == kind {
                    return Ok(v);
                }
            }
            Ok(Some(Ok(Message::Close(f)))) => return Err(f.map_or(1005, |f| u16::from(f.code))),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(_)) | None) => return Err(1006),
            Err(_) => panic!("no `{kind}` within {secs} s"),
        }
    }
}

async fn wait_for(what: &str, secs: u64, mut f: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !f().await {
        assert!(Instant::now() < deadline, "{what}: not within {secs} s");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn api_and_worker_recover_from_a_redis_restart() {
    let mut redis = sportz_testkit::RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let port = sportz_testkit::free_port();
    let base = format!("http://127.0.0.1:{port}");
    let _api = Child(
        Command::new(sportz_bin())
            .args([
                "api",
                "--bind",
                &format!("127.0.0.1:{port}"),
                "--redis",
                &redis.url(),
            ])
            .arg("--database")
            .arg(dir.path().join("db.sqlite3"))
            .env("SPORTZ_OPERATOR_TOKEN", "tok")
            .env("SPORTZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let _worker = Child(
        Command::new(sportz_bin())
            .args(["worker", "--redis", &redis.url(), "--worker-id", "w-outage"])
            .arg("--data-dir")
            .arg(dir.path().join("worker"))
            .env("SPORTZ_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let http = reqwest::Client::new();
    let health = || {
        let (http, base) = (http.clone(), base.clone());
        async move {
            http.get(format!("{base}/health"))
                .send()
                .await
                .is_ok_and(|r| r.status() == 200)
        }
    };
    wait_for("the API ready", 30, async || health().await).await;
    let created: Value = http
        .post(format!("{base}/matches"))
        .bearer_auth("tok")
        .json(&json!({"homeTeam": "A", "awayTeam": "B", "videoSource": {"type": "synthetic", "value": 4}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    let started = http
        .post(format!("{base}/matches/{id}/start"))
        .bearer_auth("tok")
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), 200);
    let live_url = format!("ws://127.0.0.1:{port}/ws/matches/{id}");
    let (mut live, _) = tokio_tungstenite::connect_async(&live_url).await.unwrap();
    until(&mut live, "frame", 60)
        .await
        .expect("frames before the outage");

    // Redis goes away
    redis.kill();
    let code = until(&mut live, "error", 15)
        .await
        .map(|e| e["data"]["code"].clone());
    match code {
        Ok(c) => {
            assert_eq!(c, "bus_unavailable");
            assert_eq!(until(&mut live, "never", 10).await.unwrap_err(), 1011);
        }
        Err(c) => panic!("closed with {c} before the error message"),
    }
    let down = http.get(format!("{base}/health")).send().await.unwrap();
    assert_eq!(down.status(), 503);
    tokio::time::sleep(Duration::from_secs(2)).await;

    // … and comes back empty; readiness includes the match-centre fan-out being resubscribed
    redis.restart();
    wait_for("the API ready again", 30, async || health().await).await;
    let bus = sportz_bus::ContractBus::new(Arc::new(
        sportz_bus::RedisBus::connect(&redis.url()).await.unwrap(),
    ));
    let m: sportz_contract::MatchId = id.parse().unwrap();
    wait_for("the worker re-taking its lease", 20, async || {
        bus.lease(&m)
            .await
            .ok()
            .flatten()
            .is_some_and(|l| l.worker_id == "w-outage")
    })
    .await;
    let (mut again, _) = tokio_tungstenite::connect_async(&live_url).await.unwrap();
    until(&mut again, "status", 10).await.expect("a snapshot");
    until(&mut again, "frame", 30)
        .await
        .expect("frames after the restart");
    // the match centre's fan-out resubscribed too
    let (mut centre, _) = tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{port}/ws"))
        .await
        .unwrap();
    until(&mut centre, "welcome", 5).await.unwrap();
    centre
        .send(Message::Text(
            json!({"type": "subscribe", "matchId": id})
                .to_string()
                .into(),
        ))
        .await
        .unwrap();
    until(&mut centre, "subscribed", 5).await.unwrap();
    let posted = http
        .post(format!("{base}/matches/{id}/commentary"))
        .bearer_auth("tok")
        .json(&json!({"sequence": 1, "eventType": "note", "message": "after the outage"}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 201);
    let c = until(&mut centre, "commentary", 10).await.unwrap();
    assert_eq!(c["data"]["message"], "after the outage");
}
