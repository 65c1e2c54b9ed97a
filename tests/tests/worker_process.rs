//! `sportz worker` as a process on a real redis-server: it takes a start command, holds the
//! lease, and when killed with SIGKILL its lease expires within the contract's 8 s.

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::ContractBus;
use sportz_contract::status::DesiredState;
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{Control, MatchId, SessionId, WorkerCommand};
use sportz_e2e::{run_sportz, sportz_bin};

#[test]
fn a_worker_without_a_bus_says_what_it_needs() {
    let out = run_sportz(&["worker"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--redis redis://host:port"), "{err}");
}

#[test]
fn a_second_worker_on_the_same_data_dir_is_refused() {
    let redis = sportz_testkit::RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    let args = |id: &'static str| {
        let mut c = Command::new(sportz_bin());
        c.args(["worker", "--redis", &redis.url(), "--model", "none"])
            .args(["--worker-id", id])
            .arg("--data-dir")
            .arg(&data)
            .env("SPORTZ_LOG", "warn");
        c
    };
    let mut first = args("first")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lock = data.join("worker.lock");
    // whether a worker holds the data dir's lock (tried, and let go at once when free)
    let held = || {
        std::fs::File::open(&lock)
            .is_ok_and(|f| matches!(f.try_lock(), Err(std::fs::TryLockError::WouldBlock)))
    };
    let until_held = |what: &str| {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !held() {
            assert!(Instant::now() < deadline, "{what} never took its data dir");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    until_held("the first worker");
    let second = args("second").output().unwrap();
    let _ = first.kill();
    let _ = first.wait();
    assert!(!second.status.success(), "{second:?}");
    let err = String::from_utf8_lossy(&second.stderr);
    assert!(
        err.contains("another sportz worker uses the data dir") && err.contains("--data-dir"),
        "{err}"
    );
    // once the first is gone the dir is free again
    let mut third = args("third")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    until_held("a worker on the freed data dir");
    assert!(third.try_wait().unwrap().is_none(), "it runs");
    let _ = third.kill();
    let _ = third.wait();
}

#[tokio::test]
async fn sigkill_of_a_worker_lets_its_lease_expire_within_8_s() {
    let redis = sportz_testkit::RedisServer::start();
    let dir = tempfile::tempdir().unwrap();
    let clip = sportz_testkit::TestClip {
        gop: None,
        ..sportz_testkit::TestClip::new(60, 10)
    }
    .make(&dir.path().join("clip.mp4"));

    let mut child = Command::new(sportz_bin())
        .args(["worker", "--redis", &redis.url(), "--worker-id", "doomed"])
        .arg("--data-dir")
        .arg(dir.path().join("data"))
        .env("SPORTZ_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let bus = ContractBus::new(Arc::new(
        sportz_bus::RedisBus::connect(&redis.url()).await.unwrap(),
    ));
    let (m, s) = (MatchId::generate(), SessionId::generate());
    bus.set_control(
        &m,
        &Control {
            session_id: s,
            state: DesiredState::Running,
        },
    )
    .await
    .unwrap();
    let mut config = SessionConfig::new(VideoSource::File(clip.display().to_string()));
    config.realtime = true;
    bus.send_command(&WorkerCommand::Start {
        match_id: m,
        session_id: s,
        config,
    })
    .await
    .unwrap();

    let deadline = Instant::now() + Duration::from_secs(30);
    let lease = loop {
        if let Some(l) = bus.lease(&m).await.unwrap() {
            break l;
        }
        assert!(Instant::now() < deadline, "the worker never took the lease");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(lease.worker_id, "doomed");
    assert_eq!(lease.session_id, s);
    // it keeps refreshing while alive
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert!(bus.lease(&m).await.unwrap().is_some());
    assert!(
        bus.heartbeats()
            .await
            .unwrap()
            .iter()
            .any(|h| h.worker_id == "doomed")
    );

    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let killed = Instant::now();
    while bus.lease(&m).await.unwrap().is_some() {
        assert!(
            killed.elapsed() <= Duration::from_millis(8_500),
            "lease still held {:?} after SIGKILL",
            killed.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let gone_after = killed.elapsed();
    assert!(
        gone_after > Duration::from_secs(5),
        "expired suspiciously early: {gone_after:?}"
    );
    // the heartbeat goes too (TTL 10 s)
    while bus
        .heartbeats()
        .await
        .unwrap()
        .iter()
        .any(|h| h.worker_id == "doomed")
    {
        assert!(
            killed.elapsed() <= Duration::from_millis(10_500),
            "heartbeat outlived its TTL"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
