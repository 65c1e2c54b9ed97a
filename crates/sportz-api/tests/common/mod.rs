//! A real API server on port 0 for the tests, with real clients (reqwest, tokio-tungstenite).

#![allow(dead_code, reason = "each test binary uses part of the shared helpers")]

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use sportz_api::{Api, ApiConfig};
use sportz_bus::{Bus, ContractBus};
use sportz_contract::status::SessionStatus;
use sportz_contract::{Envelope, Payload, StatusData};
use sportz_store::Store;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

pub const TOKEN: &str = "test-operator-token";

pub struct Server {
    pub base: String,
    pub ws: String,
    pub bus: ContractBus,
    pub store: Arc<dyn Store>,
    /// The API's state, for what only the process itself reaches (replay taps, video hub).
    pub state: Arc<sportz_api::AppState>,
    pub cancel: CancellationToken,
    pub handle: tokio::task::JoinHandle<std::io::Result<()>>,
    pub http: reqwest::Client,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

pub fn test_config() -> ApiConfig {
    ApiConfig {
        operator_token: Some(TOKEN.to_owned()),
        http_rate: sportz_api::ratelimit::Rate::unlimited(),
        ws_rate: sportz_api::ratelimit::Rate::unlimited(),
        watchdog_every: Duration::from_millis(200),
        ..ApiConfig::default()
    }
}

pub async fn sqlite_store(dir: &tempfile::TempDir) -> Arc<dyn Store> {
    sportz_store::open(&dir.path().join("sportz.sqlite3").display().to_string())
        .await
        .unwrap()
}

pub fn memory_bus() -> ContractBus {
    ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()))
}

/// A private redis-server for one test. Not the shared `REDIS_URL`: every API instance joins the
/// same stream consumer groups, so on a shared server the instances of other tests in the binary
/// (each with its own store) take and drop this test's entries as unknown matches.
pub fn own_redis() -> sportz_testkit::RedisServer {
    sportz_testkit::RedisServer::start()
}

pub async fn redis_bus(url: &str) -> ContractBus {
    let bus: Arc<dyn Bus> = Arc::new(sportz_bus::RedisBus::connect(url).await.unwrap());
    ContractBus::new(bus)
}

pub async fn start(bus: ContractBus, store: Arc<dyn Store>, config: ApiConfig) -> Server {
    let cancel = CancellationToken::new();
    let api = Api::start(config, bus.clone(), store.clone(), cancel.clone())
        .await
        .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = api.state.clone();
    let handle = tokio::spawn(api.serve(listener));
    let s = Server {
        base: format!("http://{addr}"),
        ws: format!("ws://{addr}"),
        bus,
        store,
        state,
        cancel,
        handle,
        http: reqwest::Client::new(),
    };
    // ready: bus, store and the fan-out subscription
    for _ in 0..200 {
        if let Ok(r) = s.http.get(format!("{}/health", s.base)).send().await
            && r.status() == 200
        {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("server never became ready");
}

impl Server {
    pub async fn req(
        &self,
        method: &str,
        path: &str,
        body: Option<Value>,
        token: Option<&str>,
    ) -> (u16, Value) {
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut r = self.http.request(m, format!("{}{path}", self.base));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let code = resp.status().as_u16();
        let text = resp.text().await.unwrap();
        (
            code,
            serde_json::from_str(&text).unwrap_or(Value::String(text)),
        )
    }

    pub async fn op(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        self.req(method, path, body, Some(TOKEN)).await
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.req("GET", path, None, None).await
    }

    pub async fn create_match(&self, body: Value) -> Value {
        let (code, v) = self.op("POST", "/matches", Some(body)).await;
        assert_eq!(code, 201, "{v}");
        v["data"].clone()
    }

    pub async fn synthetic_match(&self) -> Value {
        self.create_match(json!({"homeTeam": "Arsenal", "awayTeam": "Chelsea", "videoSource": {"type": "synthetic", "value": 1}})).await
    }

    /// A synthetic match with its session started: (match id, session id).
    pub async fn started_synthetic_match(&self) -> (String, String) {
        let m = self.synthetic_match().await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        let (_, v) = self.op("POST", &format!("/matches/{m}/start"), None).await;
        let ses = v["data"]["currentSessionId"].as_str().unwrap().to_owned();
        (m, ses)
    }
}

pub type Ws =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

pub async fn connect(url: &str) -> Ws {
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

/// The next text message as JSON, skipping pings; panics after `secs`.
pub async fn recv(ws: &mut Ws, secs: u64) -> Value {
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(secs), ws.next())
            .await
            .unwrap_or_else(|_| panic!("no message within {secs} s"))
            .expect("socket open")
            .expect("no socket error");
        match msg {
            Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
            Message::Close(f) => panic!("closed: {f:?}"),
            _ => {}
        }
    }
}

/// Reads until a message of `type` arrives (returned).
pub async fn recv_type(ws: &mut Ws, t: &str, secs: u64) -> Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        assert!(!left.is_zero(), "no `{t}` within {secs} s");
        let v = recv(ws, left.as_secs().max(1)).await;
        if v["type"] == t {
            return v;
        }
    }
}

/// Asserts nothing of `type` arrives within `ms`.
pub async fn none_of_type(ws: &mut Ws, t: &str, ms: u64) {
    let deadline = tokio::time::Instant::now() + Duration::from_millis(ms);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let Message::Text(s) = msg {
            let v: Value = serde_json::from_str(s.as_str()).unwrap();
            assert_ne!(v["type"], t, "unexpected {v}");
        }
    }
}

/// The close code the server sent (waits up to `secs`).
pub async fn close_code(ws: &mut Ws, secs: u64) -> (u16, String) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
    loop {
        match tokio::time::timeout_at(deadline, ws.next()).await {
            Ok(Some(Ok(Message::Close(Some(f))))) => {
                return (u16::from(f.code), f.reason.to_string());
            }
            Ok(Some(Ok(Message::Close(None)))) => return (1005, String::new()),
            Ok(Some(Ok(_))) => {}
            Ok(Some(Err(e))) => panic!("socket error before a close frame: {e}"),
            Ok(None) => panic!("socket ended without a close frame"),
            Err(_) => panic!("no close within {secs} s"),
        }
    }
}

pub async fn send_json(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// A worker's `status` message for match `m`, session `s`.
/// A worker's status message. Its `seq` grows with every call, as a worker numbers every
/// message of its session (the API ignores a status older than one it applied).
pub fn status_env(m: &str, s: &str, status: SessionStatus) -> Envelope {
    static SEQ: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    Envelope {
        match_id: m.parse().unwrap(),
        session_id: Some(s.parse().unwrap()),
        ts: 1.0,
        seq: SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        payload: Payload::Status(StatusData {
            status: Some(status),
            match_status: None,
            message: None,
            worker_id: Some("w1".into()),
        }),
    }
}

/// A golden fixture of the contract crate.
pub fn fixture(name: &str) -> Value {
    let p = format!(
        "{}/../sportz-contract/tests/fixtures/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

/// A contract envelope from a fixture, re-addressed.
pub fn envelope(name: &str, m: &str, s: &str, seq: u64) -> Envelope {
    let mut v = fixture(name);
    v["match_id"] = json!(m);
    v["session_id"] = json!(s);
    v["seq"] = json!(seq);
    Envelope::from_value(v).unwrap()
}

/// Starts match `m`'s session and has worker `worker` hold its lease and report `processing`,
/// as a real worker does; returns the session and its lease.
pub async fn run_as_worker(
    s: &Server,
    m: sportz_contract::MatchId,
    worker: &str,
) -> (sportz_contract::SessionId, sportz_contract::Lease) {
    let (_, v) = s.op("POST", &format!("/matches/{m}/start"), None).await;
    let ses: sportz_contract::SessionId = v["data"]["currentSessionId"]
        .as_str()
        .unwrap_or_else(|| panic!("no session: {v}"))
        .parse()
        .unwrap();
    let lease = sportz_contract::Lease {
        worker_id: worker.into(),
        session_id: ses,
    };
    assert!(s.bus.acquire_lease(&m, &lease).await.unwrap());
    let mut st = status_env(&m.to_string(), &ses.to_string(), SessionStatus::Processing);
    if let Payload::Status(d) = &mut st.payload {
        d.worker_id = Some(worker.into());
    }
    s.bus.publish(&st).await.unwrap();
    (ses, lease)
}

/// An envelope as JSON, to edit.
pub fn value(env: &Envelope) -> Value {
    serde_json::from_str(&env.to_json()).unwrap()
}

/// Plays a session of match `m` as a worker would: `processing`, `frames` frames of the
/// fixture at 25 fps (`frame_number` k, `video_timestamp` k/25), `events` events spread over
/// them, then `completed`. Returns the session.
pub async fn record_session(
    s: &Server,
    m: sportz_contract::MatchId,
    frames: u64,
    events: u64,
) -> sportz_contract::SessionId {
    let (ses, _lease) = run_as_worker(s, m, "w1").await;
    let (ms, ss) = (m.to_string(), ses.to_string());
    let mut seq = 100;
    for k in 0..frames {
        seq += 1;
        let mut f = value(&envelope("frame.json", &ms, &ss, seq));
        f["data"]["frame_number"] = json!(k);
        f["data"]["video_timestamp"] = json!(k as f64 / 25.0);
        s.bus
            .publish(&Envelope::from_value(f).unwrap())
            .await
            .unwrap();
        if events > 0 && k % (frames / events) == 0 && k / (frames / events) < events {
            seq += 1;
            let mut e = value(&envelope("event.json", &ms, &ss, seq));
            e["data"]["event_id"] = json!(sportz_contract::EventId::generate().to_string());
            e["data"]["frame_number"] = json!(k);
            s.bus
                .publish(&Envelope::from_value(e).unwrap())
                .await
                .unwrap();
        }
    }
    s.bus
        .publish(&status_env(&ms, &ss, SessionStatus::Completed))
        .await
        .unwrap();
    ses
}

/// A server on the in-process bus that records sessions in `dir/recordings`.
pub async fn recording_server(dir: &tempfile::TempDir) -> Server {
    let config = ApiConfig {
        recordings: Some(sportz_api::recording::RecordingSettings::new(
            dir.path().join("recordings"),
        )),
        ..test_config()
    };
    start(memory_bus(), sqlite_store(dir).await, config).await
}
