//! Terminal is terminal: once a session ended (completed, stopped, failed), nothing it says later
//! moves its match again, and a session the watchdog fails is told to stop through its control
//! key (the worker watches it), so a worker that is still alive does not keep running a failed
//! match.

mod common;

use std::time::Duration;

use common::*;
use sportz_contract::status::SessionStatus;
use sportz_contract::{DesiredState, Lease, MatchId, SessionId};

/// A worker of session `ses` reports `status` on the bus.
async fn report(s: &Server, m: MatchId, ses: SessionId, status: SessionStatus) {
    s.bus
        .publish(&status_env(&m.to_string(), &ses.to_string(), status))
        .await
        .unwrap();
}

/// Polls `GET /matches/{id}` until its status is `want` (10 s at most).
async fn wait_status(s: &Server, m: MatchId, want: &str) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (_, v) = s.get(&format!("/matches/{m}")).await;
        if v["data"]["status"] == want {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "match {m} never became {want}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Starts a match's session and has a worker hold its lease and report `processing`.
async fn running(s: &Server) -> (MatchId, SessionId, Lease) {
    let m: MatchId = s.synthetic_match().await["id"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let (ses, lease) = run_as_worker(s, m, "w-gone").await;
    wait_status(s, m, "processing").await;
    (m, ses, lease)
}

#[tokio::test]
async fn a_failed_match_stays_failed_and_its_worker_is_told_to_stop() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let (m, ses, lease) = running(&s).await;

    // the worker's lease goes: the watchdog fails the session ...
    assert!(s.bus.release_lease(&m, &lease).await.unwrap());
    wait_status(&s, m, "failed").await;
    // ... and writes the control key so that a worker still running it stops
    let control = s.bus.control(&m).await.unwrap().expect("a control key");
    assert_eq!(control.session_id, ses);
    assert_eq!(control.state, DesiredState::Stopped, "{control:?}");

    // a late `processing` of the failed session (a slow worker, a replayed entry) changes nothing
    report(&s, m, ses, SessionStatus::Processing).await;
    // the consumer reads the stream in order: once a later entry is applied, the late one was seen
    let (sentinel, ..) = running(&s).await;
    wait_status(&s, sentinel, "processing").await;
    let (_, v) = s.get(&format!("/matches/{m}")).await;
    assert_eq!(
        v["data"]["status"], "failed",
        "a failed match came back: {v}"
    );
}

#[tokio::test]
async fn a_completed_session_says_nothing_more() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let (m, ses, _lease) = running(&s).await;
    report(&s, m, ses, SessionStatus::Completed).await;
    wait_status(&s, m, "completed").await;
    for late in [SessionStatus::Reconnecting, SessionStatus::Failed] {
        report(&s, m, ses, late).await;
    }
    let (sentinel, ..) = running(&s).await;
    wait_status(&s, sentinel, "processing").await;
    let (_, v) = s.get(&format!("/matches/{m}")).await;
    assert_eq!(v["data"]["status"], "completed", "{v}");
}
