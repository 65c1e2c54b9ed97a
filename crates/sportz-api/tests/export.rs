//! Session recordings and their exports: the API records a session's messages as the worker
//! publishes them (a file per session, flushed every second) and `GET
//! /matches/{id}/sessions/{sid}/export` streams them as jsonl, events-csv, cdf, gsr or mot;
//! unknown sessions and formats are 4xx; a recording cut short by a crash is exported up to its
//! last good line, with a warning header.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use sportz_api::recording::RecordingSettings;
use sportz_contract::{MatchId, SessionId};

const FRAMES: u64 = 30;
const EVENTS: u64 = 4;

async fn export(s: &Server, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let r = s
        .http
        .get(format!("{}{path}", s.base))
        .send()
        .await
        .unwrap();
    let code = r.status().as_u16();
    let headers = r.headers().clone();
    (code, headers, r.text().await.unwrap())
}

#[tokio::test]
async fn a_recorded_session_exports_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let rec_dir = dir.path().join("recordings");
    let config = sportz_api::ApiConfig {
        recordings: Some(RecordingSettings::new(rec_dir.clone())),
        ..test_config()
    };
    let s = start(memory_bus(), sqlite_store(&dir).await, config).await;
    let created = s.synthetic_match().await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let ses = record_session(&s, m, FRAMES, EVENTS).await;
    let ms = m.to_string();
    let players_per_frame = fixture("frame.json")["data"]["players"]
        .as_array()
        .unwrap()
        .len() as u64;

    // recorded within about a second
    let base = format!("/matches/{m}/sessions/{ses}/export");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    let jsonl = loop {
        let (code, _, body) = export(&s, &format!("{base}?format=jsonl")).await;
        if code == 200 && body.contains("\"completed\"") {
            break body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "not recorded: {code} {body}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    let messages: Vec<Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |t: &str| messages.iter().filter(|v| v["type"] == t).count() as u64;
    assert_eq!(of("frame"), FRAMES, "every frame recorded");
    assert_eq!(of("event"), EVENTS);
    assert!(of("status") >= 2, "processing and completed");

    let (code, h, csv) = export(&s, &format!("{base}?format=events-csv")).await;
    assert_eq!(code, 200, "{csv}");
    assert!(h["content-type"].to_str().unwrap().starts_with("text/csv"));
    assert!(
        h["content-disposition"]
            .to_str()
            .unwrap()
            .contains(&format!("{m}.{ses}.events.csv"))
    );
    assert_eq!(h["x-sportz-frames"], FRAMES.to_string().as_str());
    assert_eq!(h["x-sportz-events"], EVENTS.to_string().as_str());
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        sportz_api::recording::export::EVENTS_CSV_HEADER.trim_end()
    );
    assert_eq!(rows.len() as u64, 1 + EVENTS, "{csv}");
    assert!(rows[1].contains(",pass,0,"), "{}", rows[1]);

    let (code, _, cdf) = export(&s, &format!("{base}?format=cdf")).await;
    assert_eq!(code, 200);
    assert_eq!(cdf.lines().count() as u64, FRAMES);
    let first: Value = serde_json::from_str(cdf.lines().next().unwrap()).unwrap();
    assert_eq!(first["match"]["id"], ms.as_str());
    assert_eq!(first["frame_id"], 0);

    let (code, _, mot) = export(&s, &format!("{base}?format=mot")).await;
    assert_eq!(code, 200);
    assert_eq!(mot.lines().count() as u64, FRAMES * players_per_frame);
    assert!(mot.starts_with("1,"), "frames from 1: {mot}");

    let (code, _, gsr) = export(&s, &format!("{base}?format=gsr")).await;
    assert_eq!(code, 200);
    let gsr: Value = serde_json::from_str(&gsr).unwrap();
    assert!(!gsr["predictions"].as_array().unwrap().is_empty());

    // what is wrong is said
    let (code, _, body) = export(&s, &format!("{base}?format=xlsx")).await;
    assert_eq!(code, 400);
    assert!(body.contains("jsonl, events-csv, cdf, gsr, mot"), "{body}");
    let (code, _, body) = export(&s, &base).await;
    assert_eq!(code, 400, "{body}");
    let (code, _, body) = export(
        &s,
        &format!(
            "/matches/{m}/sessions/{}/export?format=cdf",
            SessionId::generate()
        ),
    )
    .await;
    assert_eq!(code, 404);
    assert!(body.contains("has no session"), "{body}");
    let (code, _, _) = export(
        &s,
        &format!(
            "/matches/{}/sessions/{ses}/export?format=cdf",
            MatchId::generate()
        ),
    )
    .await;
    assert_eq!(code, 404);
    let (code, _, _) = export(&s, &format!("/matches/{m}/sessions/nope/export?format=cdf")).await;
    assert_eq!(code, 404);

    // /health says where the recordings are and what they take
    let (_, health) = s.get("/health").await;
    let rec = &health["recordings"];
    assert_eq!(
        rec["dir"],
        rec_dir.display().to_string().as_str(),
        "{health}"
    );
    assert!(rec["files"].as_u64().unwrap() >= 1, "{health}");
    assert!(rec["bytes"].as_u64().unwrap() > 0, "{health}");
    assert_eq!(rec["errors"], 0);

    // a crash in the middle of a write: exported up to the last good line, and said so
    let file = rec_dir.join(sportz_api::recording::file::file_name(m, ses));
    let mut bytes = std::fs::read(&file).unwrap();
    bytes.extend_from_slice(&[0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00]);
    std::fs::write(&file, &bytes).unwrap();
    let (code, h, jsonl) = export(&s, &format!("{base}?format=jsonl")).await;
    assert_eq!(code, 200);
    let frames = jsonl
        .lines()
        .filter(|l| l.contains("\"type\":\"frame\""))
        .count() as u64;
    assert_eq!(frames, FRAMES, "the good part");
    assert!(
        h["x-sportz-warning"].to_str().unwrap().contains("damaged"),
        "{h:?}"
    );
}

#[tokio::test]
async fn a_session_with_nothing_recorded_yet_is_a_404_that_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let s = recording_server(&dir).await;
    let created = s.synthetic_match().await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let (_, v) = s.op("POST", &format!("/matches/{m}/start"), None).await;
    let ses = v["data"]["currentSessionId"].as_str().unwrap().to_owned();
    let path = format!("/matches/{m}/sessions/{ses}/export");
    let (code, _, body) = export(&s, &format!("{path}?format=cdf")).await;
    assert_eq!(code, 404);
    assert!(body.contains("nothing recorded"), "{body}");
    // the events are in the store: a CSV with its header and no rows yet
    let (code, h, body) = export(&s, &format!("{path}?format=events-csv")).await;
    assert_eq!(code, 200, "{body}");
    assert_eq!(body, sportz_api::recording::export::EVENTS_CSV_HEADER);
    assert_eq!(h["x-sportz-events"], "0");
    // and without recording
    let dir2 = tempfile::tempdir().unwrap();
    let off = start(memory_bus(), sqlite_store(&dir2).await, test_config()).await;
    let created = off.synthetic_match().await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let (_, v) = off.op("POST", &format!("/matches/{m}/start"), None).await;
    let ses = v["data"]["currentSessionId"].as_str().unwrap().to_owned();
    let path = format!("/matches/{m}/sessions/{ses}/export");
    let (code, _, body) = export(&off, &format!("{path}?format=mot")).await;
    assert_eq!(code, 404);
    assert!(body.contains("not recorded on this server"), "{body}");
    let (code, _, _) = export(&off, &format!("{path}?format=events-csv")).await;
    assert_eq!(code, 200);
    let (_, health) = off.get("/health").await;
    assert!(health["recordings"].is_null(), "{health}");
}

/// A long ball trail of pseudo-random points.
fn noise(k: u64) -> Value {
    let mut r = sportz_testkit::Rng::new(k);
    (0..300)
        .map(|_| {
            json!({"t": r.unit() * 100.0, "x": r.unit() * 1280.0, "y": r.unit() * 720.0, "pitch": null})
        })
        .collect()
}

#[tokio::test]
async fn a_full_disk_stops_the_recording_not_the_session() {
    let dir = tempfile::tempdir().unwrap();
    let fs = match sportz_testkit::Tmpfs::mount(&dir.path().join("small"), "64k") {
        Ok(fs) => fs,
        Err(why) => {
            sportz_testkit::skipped(
                "a_full_disk_stops_the_recording_not_the_session",
                &format!("cannot mount a tmpfs ({why}); run as root"),
            );
            return;
        }
    };
    let config = sportz_api::ApiConfig {
        recordings: Some(RecordingSettings::new(fs.path().join("recordings"))),
        ..test_config()
    };
    let s = start(memory_bus(), sqlite_store(&dir).await, config).await;
    let created = s.synthetic_match().await;
    let m: MatchId = created["id"].as_str().unwrap().parse().unwrap();
    let (ses, _lease) = run_as_worker(&s, m, "w1").await;
    let (ms, ss) = (m.to_string(), ses.to_string());
    // frames whose recording cannot fit in 64 KiB (random numbers hardly compress)
    let mut ws = connect(&format!("{}/ws/matches/{m}", s.ws)).await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    let mut k = 0u64;
    let health = loop {
        k += 1;
        let mut f = value(&envelope("frame.json", &ms, &ss, 1000 + k));
        f["data"]["frame_number"] = json!(k);
        f["data"]["trail"] = noise(k);
        s.bus
            .publish(&sportz_contract::Envelope::from_value(f).unwrap())
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (_, h) = s.get("/health").await;
        if h["recordings"]["errors"] == 1 {
            break h;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "the disk never filled: {h}"
        );
    };
    let why = health["recordings"]["lastError"].as_str().unwrap();
    assert!(
        why.contains(&ss) && why.contains("goes on unrecorded"),
        "{why}"
    );
    let (_, metrics) = s
        .http
        .get(format!("{}/metrics", s.base))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .map(|t| (0, t))
        .unwrap();
    assert!(
        metrics.contains("sportz_recording_errors_total 1"),
        "{metrics}"
    );
    // the session goes on: frames still reach live viewers
    s.bus
        .publish(&envelope("frame.json", &ms, &ss, 99_999))
        .await
        .unwrap();
    let frame = recv_type(&mut ws, "frame", 10).await;
    assert_eq!(frame["session_id"], ss.as_str());
}
