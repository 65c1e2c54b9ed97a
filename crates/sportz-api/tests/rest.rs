//! Every REST route and its errors, on real sockets, on SQLite + the in-process bus and on
//! Postgres + a real redis-server.

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};

async fn rest_story(s: &Server) {
    // create: validation names the fields, auth is required
    let (code, v) = s
        .req(
            "POST",
            "/matches",
            Some(json!({"homeTeam": "A", "awayTeam": "B"})),
            None,
        )
        .await;
    assert_eq!(code, 401, "{v}");
    assert_eq!(v["error"]["code"], "unauthorized");
    let (code, v) = s
        .req(
            "POST",
            "/matches",
            Some(json!({"homeTeam": "A"})),
            Some("wrong"),
        )
        .await;
    assert_eq!(code, 401, "{v}");
    let (code, v) = s.op("POST", "/matches", Some(json!({"homeTeam": "", "startTime": "soon", "videoSource": {"type": "http", "value": "ftp://x"}}))).await;
    assert_eq!(code, 400, "{v}");
    let fields = v["error"]["fields"].as_object().unwrap();
    for f in ["homeTeam", "awayTeam", "startTime", "videoSource"] {
        assert!(fields.contains_key(f), "{f} not named: {v}");
    }
    let (code, v) = s
        .op("POST", "/matches", Some(json!(["not", "an", "object"])))
        .await;
    assert_eq!(code, 400, "{v}");
    let (code, v) = s
        .op(
            "POST",
            "/matches",
            Some(json!({"homeTeam": "A", "awayTeam": "B", "settings": {"confidenceThreshold": 3}})),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    assert!(
        v["error"]["fields"]["settings.confidenceThreshold"].is_string(),
        "{v}"
    );

    let draft = s.create_match(json!({"homeTeam": "Arsenal", "awayTeam": "Chelsea", "competition": "PL", "startTime": "2026-11-30T15:00:00Z"})).await;
    assert_eq!(draft["name"], "Arsenal v Chelsea");
    assert_eq!(draft["status"], "draft");
    assert_eq!(draft["sport"], "football");
    let id = draft["id"].as_str().unwrap().to_owned();
    let live = s.synthetic_match().await;
    let live_id = live["id"].as_str().unwrap().to_owned();
    assert_eq!(live["status"], "ready");

    // get / list with cursors / 404s
    let (code, v) = s.get(&format!("/matches/{id}")).await;
    assert_eq!(
        (code, v["data"]["homeTeam"].as_str()),
        (200, Some("Arsenal"))
    );
    let (code, v) = s.get("/matches/match_01JC0000000000000000000000").await;
    assert_eq!(code, 404, "{v}");
    assert_eq!(v["error"]["code"], "not_found");
    let (code, _) = s.get("/matches/42").await;
    assert_eq!(code, 404, "a malformed id is a missing match, never 500");
    let (code, v) = s.get("/matches?limit=1").await;
    assert_eq!(code, 200);
    assert_eq!(v["data"].as_array().unwrap().len(), 1);
    let cursor = v["nextCursor"].as_str().expect("a second page").to_owned();
    let (_, v2) = s.get(&format!("/matches?limit=1&cursor={cursor}")).await;
    assert_eq!(v2["data"].as_array().unwrap().len(), 1);
    assert_ne!(v["data"][0]["id"], v2["data"][0]["id"]);
    let (code, v) = s.get("/matches?cursor=garbage").await;
    assert_eq!(code, 400, "{v}");
    // a query value of the wrong type is a JSON error naming it, like a bad body
    let (code, v) = s.get("/matches?limit=abc").await;
    assert_eq!(code, 400, "{v}");
    assert_eq!(v["error"]["code"], "bad_request", "{v}");
    let msg = v["error"]["message"].as_str().unwrap_or_default();
    assert!(
        msg.contains("invalid query string") && msg.contains("limit"),
        "{v}"
    );
    let (code, v) = s.get("/matches?status=draft").await;
    assert_eq!(code, 200);
    assert!(
        v["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["status"] == "draft")
    );
    let (code, v) = s.get("/matches?status=nope").await;
    assert_eq!(code, 400, "{v}");

    // update
    let (code, v) = s.op("PATCH", &format!("/matches/{id}"), Some(json!({"name": "The derby", "videoSource": {"type": "file", "value": "/videos/x.mp4"}}))).await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        (v["data"]["name"].as_str(), v["data"]["status"].as_str()),
        (Some("The derby"), Some("ready"))
    );
    let (code, _) = s
        .req(
            "PATCH",
            &format!("/matches/{id}"),
            Some(json!({"name": "x"})),
            None,
        )
        .await;
    assert_eq!(code, 401);

    // score
    let (code, v) = s
        .op(
            "PATCH",
            &format!("/matches/{id}/score"),
            Some(json!({"homeScore": 2, "awayScore": 1})),
        )
        .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        (
            v["data"]["homeScore"].as_u64(),
            v["data"]["awayScore"].as_u64()
        ),
        (Some(2), Some(1))
    );
    let (code, v) = s
        .op(
            "PATCH",
            &format!("/matches/{id}/score"),
            Some(json!({"homeScore": -1})),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    assert!(
        v["error"]["fields"]["homeScore"].is_string()
            && v["error"]["fields"]["awayScore"].is_string(),
        "{v}"
    );

    // commentary
    let (code, v) = s
        .op(
            "POST",
            &format!("/matches/{id}/commentary"),
            Some(json!({"sequence": 0, "message": ""})),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    for f in ["sequence", "eventType", "message"] {
        assert!(v["error"]["fields"][f].is_string(), "{f}: {v}");
    }
    for (seq, text) in [(1, "Kick-off"), (2, "Saka scores!")] {
        let (code, v) = s.op("POST", &format!("/matches/{id}/commentary"), Some(json!({"sequence": seq, "eventType": "note", "message": text, "minute": seq, "tags": ["x"], "metadata": {"k": 1}}))).await;
        assert_eq!(code, 201, "{v}");
    }
    let (code, v) = s
        .op(
            "POST",
            &format!("/matches/{id}/commentary"),
            Some(json!({"sequence": 2, "eventType": "note", "message": "dup"})),
        )
        .await;
    assert_eq!(code, 409, "duplicate sequence: {v}");
    let (_, v) = s.get(&format!("/matches/{id}/commentary")).await;
    assert_eq!(v["data"][0]["message"], "Saka scores!", "newest first");
    assert_eq!(v["data"][1]["message"], "Kick-off");
    let (code, _) = s
        .get("/matches/match_01JC0000000000000000000000/commentary")
        .await;
    assert_eq!(code, 404);

    // calibration
    let (code, v) = s
        .op(
            "PUT",
            &format!("/matches/{id}/calibration"),
            Some(json!({"pairs": [{"pixel": {"x": 0, "y": 0}, "pitch": {"x": 0, "y": 0}}]})),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    assert!(
        v["error"]["fields"]["pairs"]
            .as_str()
            .unwrap()
            .contains("at least 4"),
        "{v}"
    );
    let too_many: Vec<Value> = (0..65)
        .map(|i| json!({"pixel": {"x": i, "y": i % 7}, "pitch": {"x": i, "y": i % 7}}))
        .collect();
    let (code, v) = s
        .op(
            "PUT",
            &format!("/matches/{id}/calibration"),
            Some(json!({ "pairs": too_many })),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    assert!(
        v["error"]["fields"]["pairs"]
            .as_str()
            .unwrap()
            .contains("at most 64"),
        "{v}"
    );
    let collinear = json!({"pairs": [
        {"pixel": {"x": 0, "y": 0}, "pitch": {"x": 0, "y": 0}},
        {"pixel": {"x": 10, "y": 0}, "pitch": {"x": 10, "y": 0}},
        {"pixel": {"x": 20, "y": 0}, "pitch": {"x": 20, "y": 0}},
        {"pixel": {"x": 30, "y": 0}, "pitch": {"x": 30, "y": 0}}]});
    let (code, v) = s
        .op(
            "PUT",
            &format!("/matches/{id}/calibration"),
            Some(collinear),
        )
        .await;
    assert_eq!(code, 400, "{v}");
    assert!(
        v["error"]["fields"]["pairs"]
            .as_str()
            .unwrap()
            .contains("line"),
        "{v}"
    );
    let good = json!({"pairs": [
        {"pixel": {"x": 100, "y": 600}, "pitch": {"x": 0, "y": 68}},
        {"pixel": {"x": 1180, "y": 600}, "pitch": {"x": 105, "y": 68}},
        {"pixel": {"x": 900, "y": 200}, "pitch": {"x": 105, "y": 0}},
        {"pixel": {"x": 380, "y": 200}, "pitch": {"x": 0, "y": 0}}]});
    let (code, v) = s
        .op("PUT", &format!("/matches/{id}/calibration"), Some(good))
        .await;
    assert_eq!(code, 200, "{v}");
    assert!(
        v["data"]["reprojectionErrorPx"].as_f64().unwrap() < 1e-6,
        "{v}"
    );
    let (_, v) = s.get(&format!("/matches/{id}/calibration")).await;
    assert_eq!(v["data"]["pairs"].as_array().unwrap().len(), 4);

    // sessions: the status machine
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/pause"), None)
        .await;
    assert_eq!(code, 409, "pause before start: {v}");
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/dance"), None)
        .await;
    assert_eq!(code, 404, "{v}");
    let (code, v) = s
        .req("POST", &format!("/matches/{live_id}/start"), None, None)
        .await;
    assert_eq!(code, 401, "{v}");
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/start"), None)
        .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["data"]["status"], "starting");
    let session = v["data"]["currentSessionId"].as_str().unwrap().to_owned();
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/start"), None)
        .await;
    assert_eq!(code, 409, "already starting: {v}");
    let (code, v) = s.op("DELETE", &format!("/matches/{live_id}"), None).await;
    assert_eq!(code, 409, "delete while processing: {v}");
    let control = s
        .bus
        .control(&live_id.parse().unwrap())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(control.session_id.to_string(), session);
    assert_eq!(control.state, sportz_contract::DesiredState::Running);
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/pause"), None)
        .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(
        s.bus
            .control(&live_id.parse().unwrap())
            .await
            .unwrap()
            .unwrap()
            .state,
        sportz_contract::DesiredState::Paused
    );
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/restart"), None)
        .await;
    assert_eq!(code, 200, "{v}");
    let restarted = v["data"]["currentSessionId"].as_str().unwrap().to_owned();
    assert_ne!(restarted, session);
    // no worker holds it: stop applies at once
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/stop"), None)
        .await;
    assert_eq!(code, 200, "{v}");
    assert_eq!(v["data"]["status"], "completed");
    let (code, v) = s
        .op("POST", &format!("/matches/{live_id}/stop"), None)
        .await;
    assert_eq!(code, 409, "{v}");
    let (code, v) = s.op("POST", &format!("/matches/{id}/start"), None).await;
    assert_eq!(code, 200, "{v}");
    let (_, v) = s.get(&format!("/matches/{live_id}/sessions")).await;
    assert_eq!(v["data"].as_array().unwrap().len(), 2, "{v}");
    let (code, v) = s.get(&format!("/matches/{live_id}/events?kind=goal")).await;
    assert_eq!(code, 200, "{v}");
    let (code, v) = s
        .get(&format!("/matches/{live_id}/events?kind=tackle"))
        .await;
    assert_eq!(code, 400, "{v}");

    // delete
    let (code, _) = s.op("POST", &format!("/matches/{id}/stop"), None).await;
    assert_eq!(code, 200);
    let (code, _) = s.op("DELETE", &format!("/matches/{id}"), None).await;
    assert_eq!(code, 204);
    let (code, _) = s.get(&format!("/matches/{id}")).await;
    assert_eq!(code, 404);
    let (code, _) = s.op("DELETE", &format!("/matches/{id}"), None).await;
    assert_eq!(code, 404);

    // bodies over 1 MiB are refused
    let big = "x".repeat(1_100_000);
    let (code, v) = s
        .op(
            "POST",
            "/matches",
            Some(json!({"homeTeam": big, "awayTeam": "B"})),
        )
        .await;
    assert_eq!(code, 413, "{v}");
    assert_eq!(v["error"]["code"], "too_large");

    // system
    let (code, v) = s.get("/health").await;
    assert_eq!((code, v["ready"].as_bool()), (200, Some(true)), "{v}");
    let (code, v) = s.get("/api/workers").await;
    assert_eq!(code, 200, "{v}");
    let (code, v) = s.get("/metrics").await;
    assert_eq!(code, 200);
    assert!(
        v.as_str().unwrap().contains("sportz_http_requests_total"),
        "{v}"
    );
    let (code, v) = s.get("/api/nope").await;
    assert_eq!(code, 404, "{v}");
}

#[tokio::test]
async fn rest_on_sqlite_and_the_memory_bus() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    rest_story(&s).await;
}

#[tokio::test]
async fn rest_on_postgres_and_redis() {
    let db = sportz_testkit::PgDatabase::create();
    let redis = own_redis();
    let url = redis.url();
    let store = sportz_store::open(db.url()).await.unwrap();
    let s = start(redis_bus(&url).await, store, test_config()).await;
    rest_story(&s).await;
}

#[tokio::test]
async fn every_documented_route_is_routed() {
    let dir = tempfile::tempdir().unwrap();
    let s = start(memory_bus(), sqlite_store(&dir).await, test_config()).await;
    let (code, doc) = s.get("/api/openapi.json").await;
    assert_eq!(code, 200);
    assert_eq!(doc["openapi"], "3.1.0");
    for r in sportz_api::openapi::ROUTES {
        let path = r.path.replace("{id}", "match_01JC0000000000000000000000");
        let (code, v) = s.op(&r.method.to_uppercase(), &path, None).await;
        assert_ne!(code, 405, "{} {} not routed", r.method, r.path);
        // a 404 from a handler names the match; an unrouted path says "no route"
        if code == 404 {
            let msg = v["error"]["message"].as_str().unwrap_or("");
            assert!(
                !msg.starts_with("no route"),
                "{} {} not routed: {v}",
                r.method,
                r.path
            );
        }
        assert!(
            doc["paths"][r.path][r.method].is_object(),
            "{} {} not documented",
            r.method,
            r.path
        );
    }
}

#[tokio::test]
async fn rate_limits_answer_429_with_retry_after() {
    let dir = tempfile::tempdir().unwrap();
    let config = sportz_api::ApiConfig {
        http_rate: sportz_api::ratelimit::Rate::new(50, Duration::from_secs(10)),
        ..test_config()
    };
    let s = start(memory_bus(), sqlite_store(&dir).await, config).await;
    let mut limited = None;
    for i in 0..60 {
        let r = s
            .http
            .get(format!("{}/matches", s.base))
            .send()
            .await
            .unwrap();
        if r.status() == 429 {
            limited = Some((
                i,
                r.headers()
                    .get("retry-after")
                    .map(|h| h.to_str().unwrap().to_owned()),
            ));
            break;
        }
    }
    let (at, retry) = limited.expect("requests past 50 in 10 s are refused");
    // the first 50 pass; the bucket refills one request per 200 ms, so a slow loop may get one
    // or two more before the refusal
    assert!((50..=55).contains(&at), "first refusal at request {at}");
    let secs: u64 = retry.expect("Retry-After").parse().unwrap();
    assert!((1..=10).contains(&secs), "{secs}");
    // health stays answerable
    assert_eq!(
        s.http
            .get(format!("{}/health", s.base))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}

#[tokio::test]
async fn a_first_start_creates_an_operator_token_shown_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = sqlite_store(&dir).await;
    let config = sportz_api::ApiConfig {
        operator_token: None,
        ..test_config()
    };
    let cancel = tokio_util::sync::CancellationToken::new();
    let api = sportz_api::Api::start(config.clone(), memory_bus(), store.clone(), cancel.clone())
        .await
        .unwrap();
    let token = api
        .new_operator_token
        .clone()
        .expect("created on first start");
    let again = sportz_api::Api::start(config, memory_bus(), store.clone(), cancel.clone())
        .await
        .unwrap();
    assert!(again.new_operator_token.is_none(), "only once");
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(api.serve(listener));
    let http = reqwest::Client::new();
    let ok = http
        .post(format!("{base}/matches"))
        .bearer_auth(&token)
        .json(&json!({"homeTeam": "A", "awayTeam": "B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(ok.status(), 201);
    let viewer = store
        .create_token(sportz_store::TokenRole::Viewer, None)
        .await
        .unwrap()
        .secret;
    let no = http
        .post(format!("{base}/matches"))
        .bearer_auth(&viewer)
        .json(&json!({"homeTeam": "A", "awayTeam": "B"}))
        .send()
        .await
        .unwrap();
    assert_eq!(no.status(), 403);
    let v: Value = no.json().await.unwrap();
    assert!(
        v["error"]["message"].as_str().unwrap().contains("operator"),
        "{v}"
    );
    cancel.cancel();
}
