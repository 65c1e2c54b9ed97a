//! Failover with real processes: `sportz api` and two `sportz worker`s on a real redis-server;
//! the worker running a match is killed with SIGKILL and the other one takes the match over,
//! resuming the file where the lost one was. Prints the takeover time (RELIABILITY.md).

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use sportz_bus::ContractBus;
use sportz_contract::{MatchId, Payload};
use sportz_e2e::{Api, sportz_bin};

const TOKEN: &str = "failover-test-operator-token";

struct Procs(Vec<Child>);

impl Drop for Procs {
    fn drop(&mut self) {
        for c in &mut self.0 {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

fn spawn(args: &[&str]) -> Child {
    Command::new(sportz_bin())
        .args(args)
        .env("SPORTZ_LOG", "warn")
        .env("SPORTZ_OPERATOR_TOKEN", TOKEN)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("sportz starts")
}

#[tokio::test]
async fn sigkill_of_the_running_worker_hands_the_match_to_the_other() {
    let redis = sportz_testkit::RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let clip = sportz_testkit::TestClip::new(120, 10).make(&dir.path().join("clip.mp4"));
    let port = sportz_testkit::free_port();
    let db = dir.path().join("api.sqlite3");
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    let mut procs = Procs(vec![spawn(&[
        "api",
        "--redis",
        &redis.url(),
        "--database",
        db.to_str().unwrap(),
        "--bind",
        &format!("127.0.0.1:{port}"),
        "--no-rate-limit",
    ])]);
    for (id, d) in [("w-a", &a_dir), ("w-b", &b_dir)] {
        procs.0.push(spawn(&[
            "worker",
            "--redis",
            &redis.url(),
            "--worker-id",
            id,
            "--model",
            "none",
            "--data-dir",
            d.to_str().unwrap(),
        ]));
    }
    let rest = Api::new(port, TOKEN);
    rest.wait_healthy(60).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    let bus = ContractBus::new(Arc::new(
        sportz_bus::RedisBus::connect(&redis.url()).await.unwrap(),
    ));
    // both workers are up before the match starts
    while bus.heartbeats().await.unwrap().len() < 2 {
        assert!(Instant::now() < deadline, "the workers never beat");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let (_, created) = rest
        .post(
            "/matches",
            Some(&json!({"homeTeam": "A", "awayTeam": "B",
                "videoSource": {"type": "file", "value": clip.display().to_string()}})),
        )
        .await;
    let m: MatchId = created["data"]["id"].as_str().unwrap().parse().unwrap();
    let (code, v) = rest.post(&format!("/matches/{m}/start"), None).await;
    assert_eq!(code, 200, "{v}");
    let path = format!("/matches/{m}");
    let first = loop {
        let v = rest.get(&path).await["data"].clone();
        if v["status"] == "processing" {
            break v;
        }
        assert!(Instant::now() < deadline, "never processing: {v}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let old_session = first["currentSessionId"].as_str().unwrap().to_owned();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let holder = bus.lease(&m).await.unwrap().expect("a lease").worker_id;
    let at = match bus.last_frame(&m).await.unwrap().map(|e| e.payload) {
        Some(Payload::Frame(f)) => f.video_timestamp,
        other => panic!("no last frame: {other:?}"),
    };
    assert!(at > 1.0, "3 s into the match: {at}");
    let victim = if holder == "w-a" { 1 } else { 2 };
    procs.0[victim].kill().unwrap(); // SIGKILL
    procs.0[victim].wait().unwrap();
    let killed = Instant::now();

    let taken = loop {
        let v = rest.get(&path).await["data"].clone();
        if v["status"] == "processing" && v["currentSessionId"] != old_session.as_str() {
            break v;
        }
        assert!(
            killed.elapsed() < Duration::from_secs(40),
            "not taken over 40 s after the SIGKILL: {v}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let took = killed.elapsed();
    println!(
        "takeover: processing again {:.1} s after SIGKILL of {holder}",
        took.as_secs_f64()
    );
    let new_holder = bus.lease(&m).await.unwrap().expect("a lease").worker_id;
    assert_ne!(new_holder, holder);
    // it resumed where the lost worker was, not at the start
    tokio::time::sleep(Duration::from_millis(500)).await;
    match bus.last_frame(&m).await.unwrap().map(|e| e.payload) {
        Some(Payload::Frame(f)) => assert!(
            f.video_timestamp >= at,
            "resumed at {} although the lost worker was at {at}",
            f.video_timestamp
        ),
        other => panic!("no frame after the takeover: {other:?}"),
    }
    let note = taken["statusMessage"].as_str().unwrap_or_default();
    assert!(
        note.starts_with("resumed at "),
        "the status says where it resumed: {taken}"
    );
    let sessions = rest.get(&format!("/matches/{m}/sessions")).await;
    let old = sessions["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == old_session.as_str())
        .cloned()
        .unwrap();
    assert_eq!(
        old["status"], "stopped",
        "the lost session is closed: {old}"
    );
}
