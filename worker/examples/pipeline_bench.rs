//! Worker pipeline benchmark at 1280×720: decode-only fps, end-to-end fps (offline, with the
//! pass-through analyser, on the in-process bus), and frames dropped under overload (a live
//! 25 fps source with an analyser that needs 80 ms per frame).
//!
//! Run: `cargo run --release -p sportz-worker --example pipeline_bench`

use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{ContractBus, MatchFeed, MemoryBus};
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{Control, MatchId, Payload, SessionId, WorkerCommand};
use sportz_worker::source::{self, Decoder, SourceEvent};
use sportz_worker::{
    Analysis, Analyzer, AnalyzerError, AnalyzerFactory, PassThrough, WorkerSettings,
};
use tokio_util::sync::CancellationToken;

#[derive(Debug)]
struct Slow(Duration);

struct SlowAnalyzer(Duration);
impl Analyzer for SlowAnalyzer {
    fn analyze(&mut self, f: &source::VideoFrame) -> Result<Analysis, AnalyzerError> {
        std::thread::sleep(self.0);
        let mut a = PassThrough::default().analyze(f)?;
        a.detect_ms = self.0.as_secs_f64() * 1000.0;
        Ok(a)
    }
}

impl AnalyzerFactory for Slow {
    fn create(&self, _: &MatchId, _: &SessionConfig) -> Result<Box<dyn Analyzer>, AnalyzerError> {
        Ok(Box::new(SlowAnalyzer(self.0)))
    }
    fn device(&self) -> String {
        "cpu".into()
    }
    fn models(&self) -> Vec<String> {
        vec![]
    }
}

async fn session(
    bus: &ContractBus,
    factory: Arc<dyn AnalyzerFactory>,
    config: SessionConfig,
) -> (f64, u64, u64) {
    let cancel = CancellationToken::new();
    let mut settings = WorkerSettings::new(factory);
    settings.worker_id = "bench".into();
    let worker = tokio::spawn(sportz_worker::run(bus.clone(), settings, cancel.clone()));
    let (m, s) = (MatchId::generate(), SessionId::generate());
    let mut feed = bus.subscribe_match(&m, 100_000).await.unwrap();
    bus.set_control(
        &m,
        &Control {
            session_id: s,
            state: DesiredState::Running,
        },
    )
    .await
    .unwrap();
    bus.send_command(&WorkerCommand::Start {
        match_id: m,
        session_id: s,
        config,
    })
    .await
    .unwrap();
    let mut started = None;
    let (mut frames, mut dropped) = (0u64, 0u64);
    while let Some(item) = feed.next().await {
        let MatchFeed::Message(env) = item else {
            continue;
        };
        match &env.payload {
            Payload::Frame(_) => {
                started.get_or_insert_with(Instant::now);
                frames += 1;
            }
            Payload::Metrics(x) => dropped = x.dropped_frames,
            Payload::Status(st) if st.status == Some(SessionStatus::Completed) => break,
            Payload::Status(st) if st.status == Some(SessionStatus::Failed) => panic!("{st:?}"),
            _ => {}
        }
    }
    let secs = started.map_or(0.0, |t| t.elapsed().as_secs_f64());
    cancel.cancel();
    let _ = worker.await;
    (frames as f64 / secs, frames, dropped)
}

#[tokio::main]
async fn main() {
    let dir = tempfile::tempdir().unwrap();
    let clip = dir.path().join("720p.mp4");
    sportz_testkit::TestClip {
        width: 1280,
        height: 720,
        gop: None,
        preset: "veryfast",
        ..sportz_testkit::TestClip::new(20, 25)
    }
    .make(&clip);
    let src = VideoSource::File(clip.display().to_string());
    println!("command: cargo run --release -p sportz-worker --example pipeline_bench");
    println!("clip: 1280x720, 25 fps, 20 s (500 frames), H.264");

    // decode only
    let probe = source::probe(&src, Duration::from_secs(10)).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let t0 = Instant::now();
    let _d = Decoder::start(&src, probe, 25.0, 0.0, false, tx).unwrap();
    let mut n = 0u64;
    while let Some(ev) = rx.recv().await {
        match ev {
            SourceEvent::Frame(_) => n += 1,
            SourceEvent::Ended { .. } => break,
        }
    }
    println!(
        "decode only (ffmpeg → rgb24 pipe): {n} frames, {:.1} fps",
        n as f64 / t0.elapsed().as_secs_f64()
    );

    // end to end, offline, pass-through analyser
    let bus = ContractBus::new(Arc::new(MemoryBus::new()));
    let mut offline = SessionConfig::new(src.clone());
    offline.realtime = false;
    let (fps, frames, dropped) =
        session(&bus, Arc::new(sportz_worker::PassThroughFactory), offline).await;
    println!(
        "end to end offline (decode → pass-through → publish): {frames} frames, {fps:.1} fps, {dropped} dropped"
    );

    // overload: live 25 fps source, analyser at 80 ms/frame (max 12.5 fps)
    let mut live = SessionConfig::new(src);
    live.realtime = true;
    let (fps, frames, dropped) =
        session(&bus, Arc::new(Slow(Duration::from_millis(80))), live).await;
    println!(
        "overload (live 25 fps, analyser 80 ms/frame): {frames} frames published at {fps:.1} fps, {dropped} dropped before inference ({:.0}%)",
        100.0 * dropped as f64 / (dropped + frames) as f64
    );
}
