//! Vision benchmark: bare `session.run` ms per frame against end-to-end worker fps on the same
//! clip (offline, realtime = false, in-process bus). Their ratio is what the pipeline costs on
//! top of inference (target ≥ 0.95).
//!
//! Run: `[ROUNDS=2] cargo run --release -p sportz-worker --example vision_bench -- <model.onnx> <clip> [provider,…]`
//! e.g. `… -- ../shared/assets/models/yolox_nano.onnx ../shared/assets/clips/japan_tajikistan_360p.mp4`

use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{ContractBus, MatchFeed, MemoryBus};
use sportz_contract::status::{DesiredState, SessionStatus};
use sportz_contract::worker::{SessionConfig, VideoSource};
use sportz_contract::{Control, MatchId, Payload, SessionId, WorkerCommand};
use sportz_inference::{Detector, DetectorOptions, Provider};
use sportz_vision::RgbImage;
use sportz_worker::source::{self, Decoder, SourceEvent};
use sportz_worker::{AnalyzerFactory, VisionAnalyzerFactory, WorkerSettings};
use tokio_util::sync::CancellationToken;

fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

fn percentile(v: &[f64], p: f64) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    s.get(((s.len() as f64 - 1.0) * p).round() as usize)
        .copied()
        .unwrap_or(0.0)
}

/// End-to-end fps of one offline session (first frame message → completed) and frames seen.
async fn end_to_end(factory: Arc<dyn AnalyzerFactory>, src: VideoSource) -> (f64, u64, f64) {
    let bus = ContractBus::new(Arc::new(MemoryBus::new()));
    let cancel = CancellationToken::new();
    let mut settings = WorkerSettings::new(factory);
    settings.worker_id = "vision-bench".into();
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
    let mut config = SessionConfig::new(src);
    config.realtime = false;
    bus.send_command(&WorkerCommand::Start {
        match_id: m,
        session_id: s,
        config,
    })
    .await
    .unwrap();
    let mut started = None;
    let mut frames = 0u64;
    let mut players = 0usize;
    let mut detect_ms = Vec::new();
    while let Some(item) = feed.next().await {
        let MatchFeed::Message(env) = item else {
            continue;
        };
        match &env.payload {
            Payload::Frame(f) => {
                started.get_or_insert_with(Instant::now);
                frames += 1;
                players += f.players.len();
            }
            Payload::Metrics(x) if x.frames_processed > 0 => detect_ms.push(x.detect_ms),
            Payload::Status(st) if st.status == Some(SessionStatus::Completed) => break,
            Payload::Status(st) if st.status == Some(SessionStatus::Failed) => panic!("{st:?}"),
            _ => {}
        }
    }
    println!(
        "  (worker metrics: detector {:.2} ms per frame, mean of per-second medians)",
        mean(&detect_ms)
    );
    let secs = started.map_or(0.0, |t| t.elapsed().as_secs_f64());
    cancel.cancel();
    let _ = worker.await;
    // the first frame starts the clock: frames − 1 intervals
    (
        (frames.saturating_sub(1)) as f64 / secs,
        frames,
        players as f64 / frames.max(1) as f64,
    )
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(model), Some(clip)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: vision_bench <model.onnx> <clip> [providers, e.g. cuda,cpu]");
        std::process::exit(2);
    };
    let providers = args.get(3).map_or_else(
        || Provider::DEFAULT_ORDER.to_vec(),
        |p| p.split(',').map(|s| s.parse().unwrap()).collect(),
    );
    let options = DetectorOptions {
        providers,
        ..DetectorOptions::default()
    };
    let src = VideoSource::File(clip.clone());
    println!(
        "command: cargo run --release -p sportz-worker --example vision_bench -- {model} {clip}"
    );

    {
        let det = Detector::load(model, &options).unwrap();
        println!(
            "model: {} ({}, input {:?}), device {}, {} intra-op threads",
            det.model_name(),
            det.adapter().layout().name(),
            det.adapter().input(),
            det.device(),
            options.intra_threads()
        );
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(2);
    println!(
        "rounds: {rounds} (bare pass then end-to-end pass, alternating: other load on the machine hits both alike)"
    );
    let mut ratios = Vec::new();
    for round in 1..=rounds {
        let (bare_fps, line) = bare(model, &options, &src).await;
        println!("round {round}: {line}");
        let factory = VisionAnalyzerFactory::new(model, options.clone()).unwrap();
        let (fps, frames, players) = end_to_end(Arc::new(factory), src.clone()).await;
        println!(
            "round {round}: end to end (decode → detect → track → publish, offline): {frames} frames at {fps:.1} fps, {players:.1} players/frame; ratio {:.3}",
            fps / bare_fps
        );
        ratios.push(fps / bare_fps);
    }
    println!(
        "ratio end-to-end / bare session.run: median {:.3} over {rounds} rounds (target ≥ 0.95)",
        percentile(&ratios, 0.5)
    );
}

/// Bare inference on every frame of the clip (preprocess, session.run, decode, timed apart):
/// the fps `session.run` alone allows, and a line describing it.
async fn bare(model: &str, options: &DetectorOptions, src: &VideoSource) -> (f64, String) {
    let mut det = Detector::load(model, options).unwrap();
    let probe = source::probe(src, Duration::from_secs(10)).await.unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::channel(4);
    let fps = probe.fps;
    let _d = Decoder::start(src, probe, fps, 0.0, false, tx).unwrap();
    let (mut pre, mut run, mut dec) = (Vec::new(), Vec::new(), Vec::new());
    while let Some(ev) = rx.recv().await {
        let f = match ev {
            SourceEvent::Frame(f) => f,
            SourceEvent::Ended { .. } => break,
        };
        let image = RgbImage::new(&f.rgb, f.width, f.height).unwrap();
        let (_, t) = det.detect(&image).unwrap();
        pre.push(t.preprocess_ms);
        run.push(t.run_ms);
        dec.push(t.decode_ms);
    }
    let run_ms = mean(&run);
    let bare_fps = 1000.0 / run_ms;
    let line = format!(
        "bare session.run over {} frames: mean {run_ms:.2} ms (p50 {:.2}, p95 {:.2}) = {bare_fps:.1} fps; \
         preprocess {:.2} ms, decode {:.2} ms per frame",
        run.len(),
        percentile(&run, 0.5),
        percentile(&run, 0.95),
        mean(&pre),
        mean(&dec)
    );
    (bare_fps, line)
}
