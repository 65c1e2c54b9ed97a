//! Shared helpers for the worker tests: clips made by the real ffmpeg, a worker on a bus, and an
//! "API side" that sends commands and watches what the worker publishes.

#![allow(dead_code, reason = "each test binary uses part of the shared helpers")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use sportz_bus::{Bus, ContractBus, MatchFeed, MatchSubscription};
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{Control, Envelope, FrameData, MatchId, Payload, SessionId, WorkerCommand};
use sportz_worker::{PassThroughFactory, SourcePolicy, WorkerSettings};
use tokio_util::sync::CancellationToken;

pub mod events;

/// Makes a test clip with ffmpeg's test source: `secs` seconds at `fps`, 320×240.
pub fn make_clip(dir: &Path, name: &str, secs: u32, fps: u32) -> PathBuf {
    sportz_testkit::TestClip::new(secs, fps).make(&dir.join(name))
}

/// Settings that make the tests quick: short stall timeout and back-off, fast polling.
pub fn fast_settings(worker_id: &str) -> WorkerSettings {
    let mut s = WorkerSettings::new(Arc::new(PassThroughFactory));
    s.worker_id = worker_id.to_owned();
    s.stall_timeout = Duration::from_millis(1500);
    s.reconnect_base = Duration::from_millis(100);
    s.max_reconnects = 10;
    s.heartbeat_every = Duration::from_millis(200);
    s.control_poll = Duration::from_millis(50);
    s.source_policy = SourcePolicy {
        allow_private_hosts: true,
    };
    s
}

/// A worker running on `bus` until dropped.
pub struct RunningWorker {
    pub cancel: CancellationToken,
    pub handle: tokio::task::JoinHandle<()>,
}

impl Drop for RunningWorker {
    fn drop(&mut self) {
        self.cancel.cancel();
    }
}

pub fn spawn_worker(bus: &ContractBus, settings: WorkerSettings) -> RunningWorker {
    let cancel = CancellationToken::new();
    let (b, c) = (bus.clone(), cancel.clone());
    let handle = tokio::spawn(async move {
        sportz_worker::run(b, settings, c)
            .await
            .expect("worker runs");
    });
    RunningWorker { cancel, handle }
}

/// What the API does to start a session: control first, then the command.
pub async fn start(bus: &ContractBus, m: MatchId, config: SessionConfig) -> SessionId {
    let s = SessionId::generate();
    set_control(bus, m, s, DesiredState::Running).await;
    bus.send_command(&WorkerCommand::Start {
        match_id: m,
        session_id: s,
        config,
    })
    .await
    .unwrap();
    s
}

pub async fn set_control(bus: &ContractBus, m: MatchId, s: SessionId, state: DesiredState) {
    bus.set_control(
        &m,
        &Control {
            session_id: s,
            state,
        },
    )
    .await
    .unwrap();
}

pub fn file_config(path: &Path, realtime: bool) -> SessionConfig {
    let mut c = SessionConfig::new(VideoSource::File(path.display().to_string()));
    c.realtime = realtime;
    c
}

/// Everything one match published, read from its channels.
pub struct Watch {
    pub sub: MatchSubscription,
    pub seen: Vec<Envelope>,
}

impl Watch {
    pub async fn new(bus: &ContractBus, m: MatchId) -> Self {
        Self {
            sub: bus.subscribe_match(&m, 10_000).await.unwrap(),
            seen: Vec::new(),
        }
    }

    /// A watch on a fresh connection to the Redis at `url`, tried every 10 ms until it is
    /// up: started before a restart, it subscribes as soon as the server accepts, before a
    /// worker (whose connection backs off) can publish what waited. Returns the watch and its
    /// bus (keep it alive).
    pub async fn as_soon_as_up(url: String, m: MatchId) -> (ContractBus, Self) {
        loop {
            if let Ok(b) = sportz_bus::RedisBus::connect(&url).await {
                let bus = ContractBus::new(Arc::new(b));
                if let Ok(sub) = bus.subscribe_match(&m, 10_000).await {
                    return (
                        bus,
                        Self {
                            sub,
                            seen: Vec::new(),
                        },
                    );
                }
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Reads until `pred` holds for a message (returned), failing after `secs`.
    pub async fn until(
        &mut self,
        secs: u64,
        what: &str,
        pred: impl Fn(&Envelope) -> bool,
    ) -> Envelope {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(secs);
        loop {
            let next = tokio::time::timeout_at(deadline, self.sub.next()).await;
            match next {
                Ok(Some(MatchFeed::Message(env))) => {
                    let env = *env;
                    self.seen.push(env.clone());
                    if pred(&env) {
                        return env;
                    }
                }
                Ok(Some(other)) => {
                    panic!("unexpected feed item while waiting for {what}: {other:?}")
                }
                Ok(None) => panic!("feed closed while waiting for {what}"),
                Err(_) => panic!(
                    "no {what} within {secs} s; statuses seen: {:?}; frames seen: {:?}",
                    self.statuses(),
                    self.frames()
                        .iter()
                        .map(|f| f.frame_number)
                        .collect::<Vec<_>>()
                ),
            }
        }
    }

    pub async fn status(&mut self, secs: u64, want: SessionStatus) -> Envelope {
        self.until(secs, want.as_str(), |e| status_of(e) == Some(want))
            .await
    }

    /// Collects everything for `dur`.
    pub async fn drain_for(&mut self, dur: Duration) {
        let deadline = tokio::time::Instant::now() + dur;
        while let Ok(Some(item)) = tokio::time::timeout_at(deadline, self.sub.next()).await {
            if let MatchFeed::Message(env) = item {
                self.seen.push(*env);
            }
        }
    }

    pub fn statuses(&self) -> Vec<(SessionStatus, Option<String>)> {
        self.seen
            .iter()
            .filter_map(|e| match &e.payload {
                Payload::Status(s) => Some((s.status?, s.message.clone())),
                _ => None,
            })
            .collect()
    }

    pub fn frames(&self) -> Vec<&FrameData> {
        self.seen
            .iter()
            .filter_map(|e| match &e.payload {
                Payload::Frame(f) => Some(&**f),
                _ => None,
            })
            .collect()
    }
}

pub fn status_of(e: &Envelope) -> Option<SessionStatus> {
    match &e.payload {
        Payload::Status(s) => s.status,
        _ => None,
    }
}

pub fn is_frame(e: &Envelope) -> bool {
    matches!(e.payload, Payload::Frame(_))
}

/// A bus on a private redis-server (kept by the guard). Worker tests never share Redis:
/// workers read every command on `worker:commands`, so parallel tests would take each other's.
pub async fn redis_bus() -> (ContractBus, sportz_testkit::RedisServer) {
    let server = sportz_testkit::RedisServer::start();
    let bus: Arc<dyn Bus> = Arc::new(sportz_bus::RedisBus::connect(&server.url()).await.unwrap());
    (ContractBus::new(bus), server)
}

pub fn memory_bus() -> ContractBus {
    ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()))
}
