//! A mutation fuzzer against a real server: valid request bodies, paths and WebSocket messages
//! are mutated (fields dropped, types swapped, huge or negative numbers, long and odd strings,
//! deep nesting, truncated or random bytes, unknown and malformed ids) and sent. Every answer must
//! be a 2xx or a 4xx with a JSON error — never a 5xx, a hang or a crash — and the server must stay
//! healthy. `SPORTZ_FUZZ_N` sets the number of inputs (default 2,000 here; `scripts/fault-suite`
//! runs 10,000), `SPORTZ_FUZZ_SEED` the seed (printed, so a failure can be replayed).

mod common;

use std::time::Duration;

use common::*;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Map, Value, json};
use tokio_tungstenite::tungstenite::Message;

use sportz_testkit::Rng;

/// A hostile value of any type.
fn odd_value(r: &mut Rng, depth: usize) -> Value {
    match r.below(14) {
        0 => Value::Null,
        1 => json!(true),
        2 => json!(-1),
        3 => json!(i64::MAX),
        4 => json!(1e308),
        5 => json!(-0.0),
        6 => json!(""),
        7 => json!("x".repeat(10_000 + r.below(50_000))),
        8 => json!("\u{0}\u{202e}☃𝕏\"'<script>"),
        9 => json!("match_00000000000000000000000000"),
        10 if depth < 40 => json!([odd_value(r, depth + 1)]),
        11 if depth < 40 => {
            let mut m = Map::new();
            m.insert("k".into(), odd_value(r, depth + 1));
            Value::Object(m)
        }
        12 => json!(r.next()),
        _ => json!(u32::MAX),
    }
}

/// A mutation of a valid body.
fn mutate(r: &mut Rng, body: &Value) -> Value {
    let mut v = body.clone();
    if let Value::Object(m) = &mut v {
        let keys: Vec<String> = m.keys().cloned().collect();
        for _ in 0..=r.below(3) {
            match r.below(4) {
                0 if !keys.is_empty() => {
                    m.remove(r.pick(&keys));
                }
                1 if !keys.is_empty() => {
                    let k = r.pick(&keys).clone();
                    m.insert(k, odd_value(r, 0));
                }
                2 => {
                    m.insert(format!("unknown{}", r.below(5)), odd_value(r, 0));
                }
                _ => {}
            }
        }
    } else if r.below(2) == 0 {
        v = odd_value(r, 0);
    }
    v
}

/// Raw bytes a client might send as a body.
fn raw_body(r: &mut Rng, valid: &Value) -> Vec<u8> {
    let text = valid.to_string();
    match r.below(5) {
        0 => text.as_bytes()[..r.below(text.len())].to_vec(), // truncated
        1 => (0..r.below(300)).map(|_| r.next() as u8).collect(), // random bytes
        2 => "[".repeat(5_000).into_bytes(),                  // deep nesting
        3 => Vec::new(),
        _ => format!("{text}{text}").into_bytes(), // two documents
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_hostile_inputs_get_4xx_or_error_never_a_crash() {
    let n: usize = std::env::var("SPORTZ_FUZZ_N")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let seed: u64 = std::env::var("SPORTZ_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_5eed);
    println!("fuzz: {n} inputs, seed {seed}");
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("no-such-clip.mp4");
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let real = s
        .create_match(json!({"homeTeam": "A", "awayTeam": "B",
            "videoSource": {"type": "file", "value": clip.display().to_string()}}))
        .await;
    let id = real["id"].as_str().unwrap().to_owned();
    let mut ids = [
        id.clone(),
        "match_00000000000000000000000000".to_owned(),
        "not-an-id".to_owned(),
        "%00".to_owned(),
        "x".repeat(2_000),
    ];
    let mut id = id;
    // a match with a real (2 s) video, for the inputs that run ffmpeg on the match's source
    // (`/still`, the automatic calibration)
    let video = sportz_testkit::TestClip::new(2, 10).make(&dir.path().join("clip.mp4"));
    let media = s
        .create_match(json!({"homeTeam": "M", "awayTeam": "N",
            "videoSource": {"type": "file", "value": video.display().to_string()}}))
        .await;
    let media_ids = [
        media["id"].as_str().unwrap().to_owned(),
        id.clone(),
        "match_00000000000000000000000000".to_owned(),
    ];
    let odd_t = [
        "0",
        "1.5",
        "-1",
        "1e308",
        "-1e308",
        "NaN",
        "inf",
        "-inf",
        "1e-320",
        "abc",
        "",
        "0x10",
        "99999999999999999999",
        "1.0.0",
        "%00",
        "2",
    ];
    let mut media_inputs = 0;
    // a live match stream, sent hostile text: the server ignores it and keeps the socket
    let mut live = connect(&format!("{}/ws/matches/{}", s.ws, media_ids[0])).await;
    // (method, path template, a valid body); `{id}` is replaced
    let pair = json!({"pixel": {"x": 10.0, "y": 20.0}, "pitch": {"x": 0.0, "y": 0.0}});
    let targets: Vec<(&str, &str, Value)> = vec![
        (
            "POST",
            "/matches",
            json!({"homeTeam": "A", "awayTeam": "B", "videoSource": {"type": "synthetic", "value": 3}, "startTime": "2026-12-01T18:00:00Z"}),
        ),
        (
            "PATCH",
            "/matches/{id}",
            json!({"homeTeam": "C", "competition": "Cup", "settings": {"targetFps": 10, "confidenceThreshold": 0.4}}),
        ),
        (
            "PATCH",
            "/matches/{id}/score",
            json!({"homeScore": 1, "awayScore": 0}),
        ),
        (
            "POST",
            "/matches/{id}/commentary",
            json!({"sequence": 1, "eventType": "goal", "message": "Goal!", "minute": 12, "tags": ["a"], "metadata": {"k": 1}}),
        ),
        (
            "PUT",
            "/matches/{id}/calibration",
            json!({"pairs": [pair, pair, pair, pair]}),
        ),
        ("POST", "/matches/{id}/start", json!({})),
        ("POST", "/matches/{id}/restart", json!({})),
        ("POST", "/matches/{id}/pause", json!({})),
        ("POST", "/matches/{id}/stop", json!({})),
        ("POST", "/matches/{id}/frobnicate", json!({})),
        (
            "GET",
            "/matches?limit=5&status=processing&cursor=abc",
            Value::Null,
        ),
        ("GET", "/matches/{id}/commentary?limit=0", Value::Null),
        (
            "GET",
            "/matches/{id}/events?kind=pass&sessionId=ses_x&limit=9999",
            Value::Null,
        ),
        ("GET", "/matches/{id}/sessions", Value::Null),
        ("GET", "/matches/{id}/calibration", Value::Null),
        ("DELETE", "/matches/{id}", Value::Null),
    ];
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap();
    // without a pool: the fresh connection of a resend
    let fresh = reqwest::Client::builder()
        .timeout(Duration::from_secs(20))
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut resent = 0;
    let mut r = Rng::new(seed);
    let mut codes = std::collections::BTreeMap::<u16, usize>::new();
    let mut ws_inputs = 0;
    let mut centre = connect(&format!("{}/ws", s.ws)).await;
    let _welcome = recv(&mut centre, 5).await;
    for i in 0..n {
        if i % 40 == 21 {
            // ffmpeg on the match's video: a still at odd times, an automatic calibration with
            // odd bodies; a 2xx, or a 4xx (409: ffmpeg could not, 422: the guard) with an error
            media_inputs += 1;
            let target = r.pick(&media_ids).clone();
            let t = *r.pick(&odd_t);
            let req = if r.below(2) == 0 {
                http.get(format!("{}/matches/{target}/still?t={t}", s.base))
            } else {
                let body = mutate(&mut r, &json!({"t": 1.0}));
                http.post(format!("{}/matches/{target}/calibration/auto", s.base))
                    .json(&body)
            };
            let resp = req.bearer_auth(TOKEN).send().await.unwrap();
            let code = resp.status().as_u16();
            *codes.entry(code).or_default() += 1;
            let body = resp.text().await.unwrap_or_default();
            assert!(
                code < 500 || code == 503,
                "input {i} (media, t={t}) got {code}: {}",
                body.chars().take(300).collect::<String>()
            );
            // and a hostile text on the live stream
            {
                let text = match r.below(3) {
                    0 => mutate(&mut r, &json!({"type": "subscribe", "matchId": id})).to_string(),
                    1 => "x".repeat(r.below(100_000)),
                    _ => String::from_utf8_lossy(&raw_body(&mut r, &json!({"t": 1}))).into_owned(),
                };
                live.send(Message::Text(text.into())).await.unwrap();
            }
            continue;
        }
        if i % 10 == 9 {
            // a WebSocket input on /ws: every malformed one is answered with `error`
            ws_inputs += 1;
            let text = match r.below(4) {
                0 => mutate(&mut r, &json!({"type": "subscribe", "matchId": id})).to_string(),
                1 => String::from_utf8_lossy(&raw_body(&mut r, &json!({"type": "subscribe"})))
                    .into_owned(),
                2 => json!({"type": r.pick(&["subscribe", "unsubscribe", "ping", "__proto__"]), "matchId": odd_value(&mut r, 0)}).to_string(),
                _ => "x".repeat(r.below(100_000)),
            };
            centre.send(Message::Text(text.into())).await.unwrap();
            // the answer, past the broadcasts the HTTP inputs cause (match_created, …)
            loop {
                let reply = recv(&mut centre, 10).await;
                let kind = reply["type"].as_str().unwrap_or_default();
                if ["error", "subscribed", "unsubscribed"].contains(&kind) {
                    break;
                }
                assert!(
                    [
                        "match_created",
                        "match_updated",
                        "score_update",
                        "commentary",
                        "match_deleted"
                    ]
                    .contains(&kind),
                    "input {i}: /ws answered {reply}"
                );
            }
            continue;
        }
        let (method, template, valid) = r.pick(&targets).clone();
        let target = r.pick(&ids[..]).clone();
        let path = template.replace("{id}", &target);
        let url = format!("{}{path}", s.base);
        let mut req = http.request(method.parse().unwrap(), &url);
        if r.below(8) != 0 {
            req = req.bearer_auth(TOKEN);
        }
        if !valid.is_null() {
            req = if r.below(4) == 0 {
                req.header(
                    "content-type",
                    *r.pick(&[
                        "application/json",
                        "text/plain",
                        "application/x-www-form-urlencoded",
                    ]),
                )
                .body(raw_body(&mut r, &valid))
            } else {
                req.json(&mutate(&mut r, &valid))
            };
        }
        let req = req.build().unwrap();
        let again = req.try_clone().expect("bodies are buffered");
        // a server that answers before reading a body (401, 413, …) closes that connection; a
        // client that had already picked it from its pool sees a transport error and, as any
        // client would, sends again on a fresh one — only a second failure counts
        let resp = match http.execute(req).await {
            Ok(r) => r,
            Err(first) => {
                resent += 1;
                fresh.execute(again).await.unwrap_or_else(|e| {
                    panic!("input {i} ({method} {path}): no answer: {first}; again: {e}")
                })
            }
        };
        let code = resp.status().as_u16();
        *codes.entry(code).or_default() += 1;
        let body = resp.text().await.unwrap_or_default();
        assert!(
            code < 500,
            "input {i} ({method} {path}) got {code}: {}",
            body.chars().take(300).collect::<String>()
        );
        if code >= 400 {
            let v: Value = serde_json::from_str(&body)
                .unwrap_or_else(|_| panic!("input {i}: a {code} without a JSON error: {body}"));
            assert!(v["error"]["message"].is_string(), "input {i}: {v}");
        }
        if method == "DELETE" && target == id && code == 204 {
            // the real match is gone: make another so the inputs keep reaching real rows
            let again = s
                .create_match(json!({"homeTeam": "A", "awayTeam": "B",
                    "videoSource": {"type": "file", "value": clip.display().to_string()}}))
                .await;
            id = again["id"].as_str().unwrap().to_owned();
            ids[0].clone_from(&id);
        }
    }
    println!(
        "fuzz: HTTP status counts {codes:?}, {media_inputs} of them running ffmpeg (/still, automatic calibration), {ws_inputs} WebSocket inputs on /ws, {resent} resent after a closed connection"
    );
    // the live stream took its hostile text and is still open: it answers a ping
    live.send(Message::Ping(b"still there?".to_vec().into()))
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let m = tokio::time::timeout_at(deadline, live.next())
            .await
            .expect("the live stream answers the ping")
            .expect("the live stream is open")
            .expect("no protocol error");
        match m {
            Message::Pong(p) if p.as_ref() == b"still there?" => break,
            Message::Close(c) => panic!("the live stream closed: {c:?}"),
            _ => {}
        }
    }
    // still healthy, and still serving
    let (code, _) = s.get("/health").await;
    assert_eq!(code, 200);
    let (code, v) = s.get(&format!("/matches/{id}")).await;
    assert!(code == 200 || code == 404, "{code} {v}");
    let _ = centre.close(None).await;
    let _ = centre.next().await;
}
