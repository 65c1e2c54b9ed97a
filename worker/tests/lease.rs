//! The lease is kept fresh by a task of its own while the session is busy with something slow:
//! a source probe that never gets an answer, a model that takes seconds to load.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use sportz_bus::ContractBus;
use sportz_contract::keys::{self, LEASE_REFRESH, LEASE_TTL};
use sportz_contract::status::SessionStatus;
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{MatchId, SessionId};
use sportz_worker::{Analyzer, AnalyzerError, AnalyzerFactory, PassThroughFactory, WorkerSettings};
use tokio::net::TcpListener;
use tokio::sync::Notify;

/// Reads the lease every 500 ms for `how_long`: it must stay this session's, with a TTL that
/// never falls more than a refresh (plus slack for a busy machine) below the full lease. Without
/// refreshes it would fall by the whole `how_long`.
async fn assert_lease_kept(bus: &ContractBus, m: MatchId, s: SessionId, how_long: Duration) {
    let mut tick = tokio::time::interval(Duration::from_millis(500));
    let deadline = tokio::time::Instant::now() + how_long;
    let mut ttls = Vec::new();
    while tokio::time::Instant::now() < deadline {
        tick.tick().await;
        let held = bus.lease(&m).await.unwrap().expect("the lease is held");
        assert_eq!(held.session_id, s, "the lease belongs to the session");
        let ttl = bus
            .raw()
            .ttl(&keys::lease(&m))
            .await
            .unwrap()
            .expect("the lease has a TTL");
        ttls.push(ttl);
    }
    let floor = LEASE_TTL - LEASE_REFRESH - Duration::from_secs(1);
    let lowest = ttls.iter().min().copied().unwrap();
    assert!(
        lowest >= floor,
        "the lease TTL fell to {lowest:?} (floor {floor:?}): not refreshed; TTLs read: {ttls:?}"
    );
    let refreshes = ttls.windows(2).filter(|w| w[1] > w[0]).count();
    assert!(
        refreshes >= 3,
        "refreshed about once a second over {how_long:?}, saw {refreshes}: {ttls:?}"
    );
}

/// An RTSP "server" that accepts connections and never answers: ffprobe waits on it (RTSP has
/// no I/O timeout) until the probe timeout. Resolves once ffprobe has connected.
async fn silent_rtsp_server() -> (String, Arc<Notify>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("rtsp://{}/live", listener.local_addr().unwrap());
    let connected = Arc::new(Notify::new());
    let signal = connected.clone();
    tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((sock, _)) = listener.accept().await {
            held.push(sock); // kept open, never written to
            signal.notify_one();
        }
    });
    (url, connected)
}

async fn lease_is_refreshed_while_the_probe_hangs(bus: ContractBus) {
    let (url, connected) = silent_rtsp_server().await;
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, fast_settings(&format!("w-probe-{m}")));
    let s = start(&bus, m, SessionConfig::new(VideoSource::Rtsp(url))).await;
    tokio::time::timeout(Duration::from_secs(15), connected.notified())
        .await
        .expect("ffprobe connects to the source");

    assert_lease_kept(&bus, m, s, Duration::from_millis(4500)).await;

    // all that time the session was still waiting on the probe
    watch.drain_for(Duration::from_millis(50)).await;
    let statuses: Vec<SessionStatus> = watch.statuses().into_iter().map(|x| x.0).collect();
    assert_eq!(statuses, [SessionStatus::Starting], "still probing");
}

#[tokio::test]
async fn the_lease_is_refreshed_while_the_source_probe_hangs_on_memory() {
    lease_is_refreshed_while_the_probe_hangs(memory_bus()).await;
}

#[tokio::test]
async fn the_lease_is_refreshed_while_the_source_probe_hangs_on_redis() {
    let (bus, _guard) = redis_bus().await;
    lease_is_refreshed_while_the_probe_hangs(bus).await;
}

/// A factory whose `create` blocks like a slow model load: it says when it started and returns
/// a pass-through analyser once released.
#[derive(Debug)]
struct SlowLoad {
    entered: Arc<Notify>,
    release: Mutex<std::sync::mpsc::Receiver<()>>,
}

impl AnalyzerFactory for SlowLoad {
    fn create(
        &self,
        m: &MatchId,
        config: &SessionConfig,
    ) -> Result<Box<dyn Analyzer>, AnalyzerError> {
        self.entered.notify_one();
        let release = self.release.lock().unwrap();
        release
            .recv_timeout(Duration::from_secs(30))
            .expect("the test releases the model load");
        PassThroughFactory.create(m, config)
    }
    fn device(&self) -> String {
        "cpu".into()
    }
    fn models(&self) -> Vec<String> {
        Vec::new()
    }
}

#[tokio::test]
async fn the_lease_is_refreshed_while_the_model_loads() {
    let bus = memory_bus();
    let dir = tempfile::tempdir().unwrap();
    let clip = make_clip(dir.path(), "clip.mp4", 1, 10);
    let entered = Arc::new(Notify::new());
    let (release, released) = std::sync::mpsc::channel();
    let factory = SlowLoad {
        entered: entered.clone(),
        release: Mutex::new(released),
    };
    let settings = WorkerSettings {
        analyzers: Arc::new(factory),
        ..fast_settings("w-slow-model")
    };
    let m = MatchId::generate();
    let mut watch = Watch::new(&bus, m).await;
    let _w = spawn_worker(&bus, settings);
    let s = start(&bus, m, file_config(&clip, false)).await;
    tokio::time::timeout(Duration::from_secs(15), entered.notified())
        .await
        .expect("the session loads its model");

    assert_lease_kept(&bus, m, s, Duration::from_millis(4500)).await;

    // once loaded, the session runs as usual
    release.send(()).unwrap();
    watch.status(20, SessionStatus::Completed).await;
    assert_eq!(watch.frames().len(), 10);
}
