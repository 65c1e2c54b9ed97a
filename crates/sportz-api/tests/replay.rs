//! Replay of a recorded session through `/ws/matches/{id}?replay=<session>`: every message
//! says it is a replay, frames come in order at the video's pace (times the speed), events
//! from the store among them, and the client's play, pause, seek and speed are followed; a
//! bad control is answered with an error, an unknown session closes 4404; a live viewer of the
//! same match gets no replayed message. A viewer in the same process can follow a replay's
//! player by its id (the desktop overlay follows its window's replay).

mod common;

use std::time::{Duration, Instant};

use common::*;
use futures_util::StreamExt;
use serde_json::{Value, json};
use sportz_contract::{MatchId, SessionId};

const FRAMES: u64 = 50; // 2 s of video
const EVENTS: u64 = 5;

/// The next replayed message of one of `types`, skipping others.
async fn next_of(ws: &mut Ws, types: &[&str], secs: u64) -> Value {
    loop {
        let v = recv(ws, secs).await;
        assert_eq!(v["replay"], true, "a replay message: {v}");
        if types.contains(&v["type"].as_str().unwrap_or("")) {
            return v;
        }
    }
}

#[tokio::test]
async fn a_recorded_session_replays_with_play_pause_seek_and_speed() {
    let dir = tempfile::tempdir().unwrap();
    let (s, m, ses) = recorded_session(&dir).await;
    let mut live = connect(&format!("{}/ws/matches/{m}", s.ws)).await;

    // the whole session at 4×: frames in order, the events among them, then "ended"
    let mut ws = connect(&format!("{}/ws/matches/{m}?replay={ses}&speed=4", s.ws)).await;
    let first = next_of(&mut ws, &["replay"], 5).await;
    assert_eq!(first["data"]["state"], "playing");
    assert_eq!(first["data"]["speed"], 4.0);
    assert!((first["data"]["duration"].as_f64().unwrap() - 49.0 / 25.0).abs() < 1e-6);
    let started = Instant::now();
    let (mut frames, mut events, mut last) = (0, 0, -1i64);
    let mut statuses = Vec::new();
    loop {
        let v = next_of(&mut ws, &["frame", "event", "replay", "status"], 10).await;
        match v["type"].as_str().unwrap() {
            "status" => statuses.push(v["data"]["status"].as_str().unwrap_or("").to_owned()),
            "frame" => {
                let n = v["data"]["frame_number"].as_i64().unwrap();
                assert!(n > last, "in order: {n} after {last}");
                last = n;
                frames += 1;
            }
            "event" => events += 1,
            _ => {
                assert_eq!(v["data"]["state"], "ended", "{v}");
                break;
            }
        }
    }
    let took = started.elapsed();
    assert_eq!(
        statuses.last().map(String::as_str),
        Some("completed"),
        "the session's statuses are replayed too: {statuses:?}"
    );
    assert_eq!(events, EVENTS);
    assert_eq!(frames, FRAMES, "every frame, in order");
    // paced: 1.96 s of video at 4× is about half a second, not a burst
    assert!(took >= Duration::from_millis(400), "replayed in {took:?}");

    // seek back to 1.0 s: the next frame is the one at 1.0 s
    send_json(&mut ws, json!({"type": "seek", "t": 1.0})).await;
    let v = next_of(&mut ws, &["frame"], 5).await;
    assert_eq!(v["data"]["frame_number"], 25, "{v}");
    // pause: no frame while paused; play: they come again
    send_json(&mut ws, json!({"type": "pause"})).await;
    let paused = next_of(&mut ws, &["replay"], 5).await;
    assert_eq!(paused["data"]["state"], "paused");
    let quiet = tokio::time::timeout(Duration::from_millis(600), async {
        loop {
            let v = recv(&mut ws, 5).await;
            if v["type"] == "frame" {
                return v;
            }
        }
    })
    .await;
    assert!(quiet.is_err(), "a frame while paused: {quiet:?}");
    send_json(&mut ws, json!({"type": "speed", "value": 0.25})).await;
    send_json(&mut ws, json!({"type": "play"})).await;
    let v = next_of(&mut ws, &["replay"], 5).await;
    assert_eq!(v["data"]["speed"], 0.25, "{v}");
    let _ = next_of(&mut ws, &["frame"], 5).await;
    // a bad control: an error that says what was expected; the socket stays
    send_json(&mut ws, json!({"type": "speed", "value": 10})).await;
    let err = loop {
        let v = recv(&mut ws, 5).await;
        if v["type"] == "error" {
            break v;
        }
    };
    assert!(
        err["data"]["message"]
            .as_str()
            .unwrap()
            .contains("0.25 to 4"),
        "{err}"
    );
    let _ = next_of(&mut ws, &["frame"], 5).await;

    // the live viewer heard none of it
    let heard = tokio::time::timeout(Duration::from_millis(300), async {
        while let Some(Ok(m)) = live.next().await {
            if let tokio_tungstenite::tungstenite::Message::Text(t) = m
                && t.as_str().contains("\"replay\":true")
            {
                return t.to_string();
            }
        }
        String::new()
    })
    .await;
    assert!(
        heard.is_err(),
        "a replayed message reached a live viewer: {heard:?}"
    );

    // an unknown session: 4404, saying so
    let mut bad = connect(&format!(
        "{}/ws/matches/{m}?replay={}",
        s.ws,
        SessionId::generate()
    ))
    .await;
    let (code, reason) = close_code(&mut bad, 5).await;
    assert_eq!(code, 4404);
    assert!(reason.contains("has no session"), "{reason}");
}

/// A recording server with one synthetic match whose session ([`FRAMES`] frames, [`EVENTS`]
/// events) is recorded (once a second) and its events stored.
async fn recorded_session(dir: &tempfile::TempDir) -> (Server, MatchId, SessionId) {
    let s = recording_server(dir).await;
    let created = s.synthetic_match().await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let ses = record_session(&s, m, FRAMES, EVENTS).await;
    recorded(&s, m, ses).await;
    (s, m, ses)
}

/// Waits until the session is recorded (its last status and every event in the export).
async fn recorded(s: &Server, m: MatchId, ses: SessionId) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let r = s
            .http
            .get(format!(
                "{}/matches/{m}/sessions/{ses}/export?format=jsonl",
                s.base
            ))
            .send()
            .await
            .unwrap();
        let ok = r.status() == 200;
        let body = r.text().await.unwrap();
        if ok
            && body.contains("\"completed\"")
            && body.matches("\"type\":\"event\"").count() as u64 == EVENTS
        {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not recorded: {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test]
async fn a_follower_in_the_process_sees_the_frames_the_player_sends() {
    let dir = tempfile::tempdir().unwrap();
    let (s, m, ses) = recorded_session(&dir).await;
    let mut ws = connect(&format!("{}/ws/matches/{m}?replay={ses}", s.ws)).await;
    let first = next_of(&mut ws, &["replay"], 5).await;
    let player = first["data"]["player"].as_str().unwrap().to_owned();
    assert!(player.starts_with(&ses.to_string()), "{player}");
    assert!(s.state.replays.follow("no-such-player").is_none());
    let mut follower = s.state.replays.follow(&player).expect("a running player");
    // pause, seek to 1 s, then one frame at a time: the follower gets what the socket gets
    send_json(&mut ws, json!({"type": "pause"})).await;
    send_json(&mut ws, json!({"type": "seek", "t": 1.0})).await;
    send_json(&mut ws, json!({"type": "play"})).await;
    let sent = loop {
        let v = next_of(&mut ws, &["frame"], 5).await;
        if v["data"]["frame_number"] == 25 {
            break v;
        }
    };
    let followed = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            follower.changed().await.expect("the player runs");
            let line = follower.borrow_and_update().clone().unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["data"]["frame_number"].as_u64() >= Some(25) {
                return v;
            }
        }
    })
    .await
    .expect("the follower saw the sought frame");
    assert_eq!(followed["type"], "frame");
    assert!(
        followed.get("replay").is_none(),
        "the recorded line as it is"
    );
    assert_eq!(
        followed["data"]["video_timestamp"]
            .as_f64()
            .map(|t| t >= 1.0),
        Some(true),
        "{followed} after {sent}"
    );
    // the client leaves: the player and its tap are gone
    drop(ws);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while s.state.replays.follow(&player).is_some() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the tap outlived its player"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
