//! The roles that exist so far, each wired from its crates. (The composition root of issue 9
//! replaces this with one Config → running system.)

use std::sync::Arc;

use anyhow::Context as _;
use sportz_bus::ContractBus;
use sportz_worker::{PassThroughFactory, SourcePolicy, WorkerSettings};
use tokio_util::sync::CancellationToken;

use crate::cli::WorkerArgs;

pub fn init_logs() {
    init_logs_at("info");
}

/// Logs to stderr (stdout carries results), filtered by `SPORTZ_LOG`, else `default`.
fn init_logs_at(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("SPORTZ_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_writer(std::io::stderr)
        .try_init();
}

pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Cancels `token` on SIGINT or SIGTERM.
fn cancel_on_signals(token: CancellationToken) {
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
                    .expect("SIGTERM handler");
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down");
        token.cancel();
    });
}

/// The vision stage: the ONNX detector given, else frames without detections.
/// The built-in detector (models/sportz-det.onnx), compiled into the binary.
const DEFAULT_MODEL: &[u8] = include_bytes!("../../models/sportz-det.onnx");

/// Writes the built-in detector to the user's cache (once per model version) and returns it.
fn default_model_path() -> anyhow::Result<std::path::PathBuf> {
    // FNV-1a: a stable name per model content, so a new build never reads an old file
    let hash = DEFAULT_MODEL
        .iter()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
        });
    let dir = std::env::var_os("XDG_CACHE_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("sportz/models");
    let path = dir.join(format!("sportz-det-{hash:016x}.onnx"));
    if !path.is_file() {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let tmp = dir.join(format!(".sportz-det-{}.tmp", std::process::id()));
        std::fs::write(&tmp, DEFAULT_MODEL)
            .with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(path)
}

fn analyzers(
    model: Option<&std::path::Path>,
) -> anyhow::Result<Arc<dyn sportz_worker::AnalyzerFactory>> {
    let load = |path: &std::path::Path| {
        sportz_worker::VisionAnalyzerFactory::new(
            path,
            sportz_inference::DetectorOptions::default(),
        )
    };
    match model {
        Some(p) if p.as_os_str() == "none" => {
            tracing::warn!("--model none: frames are published without detections");
            Ok(Arc::new(PassThroughFactory))
        }
        Some(path) => {
            let f = load(path)
                .map_err(|e| anyhow::anyhow!("cannot load the model {}: {e}", path.display()))?;
            tracing::info!(model = %path.display(), device = %sportz_worker::AnalyzerFactory::device(&f), "detector loaded");
            Ok(Arc::new(f))
        }
        None => {
            match default_model_path().and_then(|p| load(&p).map_err(|e| anyhow::anyhow!("{e}"))) {
                Ok(f) => {
                    tracing::info!(device = %sportz_worker::AnalyzerFactory::device(&f), "built-in detector sportz-det loaded (trained on synthetic matches; pass --model for real footage)");
                    Ok(Arc::new(f))
                }
                Err(e) => {
                    tracing::warn!(
                        "the built-in detector is unavailable ({e:#}); frames are published without detections"
                    );
                    Ok(Arc::new(PassThroughFactory))
                }
            }
        }
    }
}

/// `sportz worker`.
pub fn worker(args: WorkerArgs) -> anyhow::Result<()> {
    init_logs();
    let redis = args.redis.context(
        "a standalone worker needs the API's bus: pass --redis redis://host:port (or run `sportz --headless` for everything in one process)",
    )?;
    runtime()?.block_on(async move {
        let bus = sportz_bus::connect(Some(&redis)).await?;
        let mut settings = WorkerSettings::new(analyzers(args.model.as_deref())?);
        if let Some(id) = args.worker_id {
            settings.worker_id = id;
        }
        if let Some(c) = args.capacity {
            anyhow::ensure!(c > 0, "--capacity must be at least 1");
            settings.capacity = c;
        }
        settings.source_policy = SourcePolicy {
            allow_private_hosts: args.allow_private_sources,
        };
        let shutdown = CancellationToken::new();
        cancel_on_signals(shutdown.clone());
        sportz_worker::run(ContractBus::new(bus), settings, shutdown).await?;
        Ok(())
    })
}

fn default_data_dir() -> std::path::PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .map(std::path::PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME").map(|h| std::path::PathBuf::from(h).join(".local/share"))
        })
        .unwrap_or_else(|| std::path::PathBuf::from("."))
        .join("sportz")
}

/// The built web UI: the flag, else `ui/dist` in the working directory, else next to the
/// sources the binary was built from.
fn find_ui_dir(flag: Option<std::path::PathBuf>) -> Option<std::path::PathBuf> {
    let candidates = [
        flag,
        Some(std::path::PathBuf::from("ui/dist")),
        Some(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("index.html").is_file())
}

/// The address LAN viewers use, when bound to all interfaces.
pub fn lan_address() -> Option<std::net::IpAddr> {
    // the source address of a route to a public address (no packet is sent)
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    s.local_addr()
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_loopback())
}

/// `sportz --headless` (API + worker + web UI) and `sportz api` (the API alone).
pub fn system(args: crate::cli::SystemArgs, with_worker: bool) -> anyhow::Result<()> {
    init_logs();
    runtime()?.block_on(async move {
        let shutdown = CancellationToken::new();
        cancel_on_signals(shutdown.clone());
        let wrap = |f| f;
        start_system(&args, with_worker.then_some(&wrap), shutdown)
            .await?
            .wait()
            .await
    })
}

/// A running API (and worker): what the all-in-one modes wait on.
#[derive(Debug)]
pub struct System {
    pub addr: std::net::SocketAddr,
    serve: tokio::task::JoinHandle<std::io::Result<()>>,
    worker: Option<tokio::task::JoinHandle<Result<(), sportz_bus::BusError>>>,
}

impl System {
    /// Runs until the shutdown token is cancelled.
    pub async fn wait(self) -> anyhow::Result<()> {
        let served = self.serve.await;
        if let Some(w) = self.worker {
            let _ = w.await;
        }
        served??;
        Ok(())
    }
}

/// The analyser factory as a role wants it (the desktop taps frames for its overlay).
pub type WrapAnalyzers =
    dyn Fn(Arc<dyn sportz_worker::AnalyzerFactory>) -> Arc<dyn sportz_worker::AnalyzerFactory>;

/// The composition root of the all-in-one modes and `sportz api`: bus, store, API (serving),
/// and with `worker` an embedded worker whose analysers `worker` may wrap; starts the demo.
pub async fn start_system(
    args: &crate::cli::SystemArgs,
    worker: Option<&WrapAnalyzers>,
    shutdown: CancellationToken,
) -> anyhow::Result<System> {
    {
        let with_worker = worker.is_some();
        let bus = ContractBus::new(sportz_bus::connect(args.redis.as_deref()).await?);
        let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
        let database = match &args.database {
            Some(d) => d.clone(),
            None => {
                std::fs::create_dir_all(&data_dir).with_context(|| {
                    format!("cannot create the data dir {}", data_dir.display())
                })?;
                data_dir.join("sportz.sqlite3").display().to_string()
            }
        };
        let store = sportz_store::open(&database)
            .await
            .with_context(|| format!("cannot open the store `{database}`"))?;
        let ui_dir = find_ui_dir(args.ui_dir.clone());
        if ui_dir.is_none() {
            tracing::warn!(
                "the web UI is not built (run `npm ci && npm run build` in ui/); serving the API only"
            );
        }
        let config = sportz_api::ApiConfig {
            instance_id: format!("api-{}", sportz_worker::default_worker_id()),
            ui_dir,
            operator_token: args.operator_token.clone(),
            require_viewer_token: args.require_viewer_token,
            ..sportz_api::ApiConfig::default()
        };
        let config = if args.no_rate_limit {
            sportz_api::ApiConfig {
                http_rate: sportz_api::ratelimit::Rate::unlimited(),
                ws_rate: sportz_api::ratelimit::Rate::unlimited(),
                ..config
            }
        } else {
            config
        };
        let api = sportz_api::Api::start(config, bus.clone(), store.clone(), shutdown.clone())
            .await
            .map_err(|e| anyhow::anyhow!("cannot start the API: {e}"))?;
        if let Some(token) = &api.new_operator_token {
            println!(
                "operator token (shown once; keep it to create matches and start sessions): {token}"
            );
        }
        let listener = tokio::net::TcpListener::bind(args.bind)
            .await
            .with_context(|| format!("cannot listen on {}", args.bind))?;
        let addr = listener.local_addr()?;
        tracing::info!(bus = bus.raw().backend(), store = %database_label(&database), "serving on http://{addr}/");
        if addr.ip().is_unspecified()
            && let Some(ip) = lan_address()
        {
            tracing::info!("LAN viewers: http://{ip}:{}/", addr.port());
        }
        let worker = if let Some(wrap) = worker {
            let mut settings = WorkerSettings::new(wrap(analyzers(args.model.as_deref())?));
            if let Some(c) = args.capacity {
                anyhow::ensure!(c > 0, "--capacity must be at least 1");
                settings.capacity = c;
            }
            settings.source_policy = SourcePolicy {
                allow_private_hosts: args.allow_private_sources,
            };
            Some(tokio::spawn(sportz_worker::run(
                bus.clone(),
                settings,
                shutdown.clone(),
            )))
        } else {
            None
        };
        if with_worker && !args.no_demo {
            start_demo(&api, &store).await;
        }
        let serve = tokio::spawn(api.serve(listener));
        Ok(System {
            addr,
            serve,
            worker,
        })
    }
}

fn database_label(d: &str) -> String {
    match d.split_once('@') {
        Some((_, host)) if d.starts_with("postgres") => format!("postgres://***@{host}"),
        _ => d.to_owned(),
    }
}

/// The calibration of the synthetic demo (seed 1, 1280×720 — the worker's synthetic source):
/// the pitch landmarks in view on its first frame.
fn demo_calibration() -> anyhow::Result<Vec<sportz_contract::worker::PointPair>> {
    let cfg = sportz_synth::SynthConfig {
        width: 1280,
        height: 720,
        fps: 25,
        ..sportz_synth::SynthConfig::default()
    };
    let mut m = sportz_synth::SynthMatch::new(1, cfg)?;
    let _ = m.render_next();
    let pairs: Vec<_> = m.calibration().into_iter().map(Into::into).collect();
    anyhow::ensure!(pairs.len() >= 4, "only {} landmarks in view", pairs.len());
    Ok(pairs)
}

/// On an empty database, creates the synthetic demo match (calibrated) and starts it.
async fn start_demo(api: &sportz_api::Api, store: &Arc<dyn sportz_store::Store>) {
    match store
        .list_matches(sportz_store::MatchFilter::default())
        .await
    {
        Ok(p) if p.items.is_empty() => {}
        Ok(_) => return,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    }
    let mut new = sportz_store::NewMatch::new("Demo match (synthetic)", "Reds", "Blues");
    new.competition = Some("sportz demo".to_owned());
    new.video_source = Some(sportz_contract::worker::VideoSource::Synthetic(1));
    let created = match store.create_match(new).await {
        Ok(m) => m,
        Err(e) => return tracing::warn!("no demo match: {e}"),
    };
    // the landmarks a user would click on the first frame, so the demo has pitch positions
    match demo_calibration() {
        Ok(pairs) => {
            if let Err(e) = store.set_calibration(created.id, pairs).await {
                tracing::warn!("the demo match runs uncalibrated: {e}");
            }
        }
        Err(e) => tracing::warn!("the demo match runs uncalibrated: {e}"),
    }
    match sportz_api::sessions::act(&api.state, created.id, sportz_api::sessions::Action::Start)
        .await
    {
        Ok(_) => tracing::info!(match_id = %created.id, "started the synthetic demo match"),
        Err(e) => tracing::warn!("the demo match did not start: {e}"),
    }
}

/// `sportz synth`: renders a synthetic match with its ground truth into a folder.
pub fn synth(args: &crate::cli::SynthArgs) -> anyhow::Result<()> {
    let cfg = sportz_synth::SynthConfig {
        width: args.size.0,
        height: args.size.1,
        fps: args.fps,
        duration_secs: args.seconds,
        scoreboard: !args.no_scoreboard,
        motion_blur: args.motion_blur,
        noise: args.noise,
    };
    let started = std::time::Instant::now();
    let mut last_print = std::time::Instant::now();
    let summary = sportz_synth::write_match(&cfg, args.seed, &args.out, |p| {
        if last_print.elapsed().as_millis() >= 500 || p.frames_done == p.frames_total {
            last_print = std::time::Instant::now();
            #[allow(clippy::cast_precision_loss)]
            let fps = p.frames_done as f64 / started.elapsed().as_secs_f64().max(1e-9);
            #[allow(clippy::cast_precision_loss)]
            let eta = (p.frames_total - p.frames_done) as f64 / fps.max(1e-9);
            eprint!(
                "\rrendering {}/{} frames  {fps:5.1} fps  ETA {eta:4.0} s ",
                p.frames_done, p.frames_total
            );
        }
    })
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    eprintln!();
    println!(
        "wrote {} frames ({} v {}, final score {}-{}, {} goals, {} events) to {}",
        summary.frames,
        summary.home,
        summary.away,
        summary.final_score.home,
        summary.final_score.away,
        summary.goals,
        summary.events,
        args.out.display()
    );
    println!(
        "  video {}\n  truth {}\n  events {}\n  calibration {}",
        summary.video.display(),
        summary.truth.display(),
        summary.events_file.display(),
        summary.calibration.display()
    );
    Ok(())
}

/// `sportz track`: the real pipeline over a file at full speed (nothing dropped), written as
/// JSONL (frame and event messages), with a progress line.
pub fn track(args: &crate::cli::TrackArgs) -> anyhow::Result<()> {
    use std::io::Write as _;
    init_logs_at("warn");
    anyhow::ensure!(
        args.video.is_file(),
        "no such video file `{}`",
        args.video.display()
    );
    let calibration: Vec<sportz_contract::worker::PointPair> = match &args.calibration {
        Some(p) => {
            let text = std::fs::read_to_string(p)
                .with_context(|| format!("cannot read the calibration {}", p.display()))?;
            serde_json::from_str(&text).map_err(|e| {
                anyhow::anyhow!(
                    "invalid calibration {}: {e}; expected [{{\"pixel\":{{\"x\":…,\"y\":…}},\"pitch\":{{\"x\":…,\"y\":…}}}}, …]",
                    p.display()
                )
            })?
        }
        None => Vec::new(),
    };
    let out = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(out);
    runtime()?.block_on(async move {
        let source = sportz_contract::worker::VideoSource::File(args.video.display().to_string());
        let probe = sportz_worker::source::probe(&source, std::time::Duration::from_secs(15))
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        let fps = args.fps.unwrap_or(probe.fps);
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let total = probe.duration.map(|d| (d * fps).round() as u64);
        let bus = ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()));
        let annotator = match &args.annotate {
            Some(path) => Some(crate::overlay::Annotator::start(path, fps)?),
            None => None,
        };
        if args.model.is_none() {
            eprintln!(
                "note: detecting with the built-in sportz-det, trained on synthetic matches only; for real footage pass --model (any YOLO-family ONNX)"
            );
        }
        let mut factory = analyzers(args.model.as_deref())?;
        if let Some(a) = &annotator {
            factory = Arc::new(crate::overlay::TapFactory { inner: factory, sink: a.sink() });
        }
        let mut settings = WorkerSettings::new(factory);
        settings.worker_id = "track".to_owned();
        settings.capacity = 1;
        let shutdown = CancellationToken::new();
        let worker = tokio::spawn(sportz_worker::run(bus.clone(), settings, shutdown.clone()));
        let (m, s) = (sportz_contract::MatchId::generate(), sportz_contract::SessionId::generate());
        let mut feed = bus.subscribe_match(&m, 1_000_000).await?;
        bus.set_control(&m, &sportz_contract::Control { session_id: s, state: sportz_contract::DesiredState::Running })
            .await?;
        let mut config = sportz_contract::worker::SessionConfig::new(source);
        config.realtime = false;
        config.target_fps = args.fps;
        config.calibration = calibration;
        bus.send_command(&sportz_contract::WorkerCommand::Start { match_id: m, session_id: s, config })
            .await?;
        let started = std::time::Instant::now();
        let mut last_print = started;
        let (mut frames, mut events) = (0u64, 0u64);
        // the frames the exports need (only with --export)
        let mut kept: Vec<sportz_contract::FrameData> = Vec::new();
        let outcome = loop {
            let Some(item) = feed.next().await else { break Err(anyhow::anyhow!("the pipeline stopped")) };
            let env = match item {
                sportz_bus::MatchFeed::Message(env) => env,
                sportz_bus::MatchFeed::Lagged(n) => break Err(anyhow::anyhow!("lost {n} messages: the output could not keep up")),
                _ => continue,
            };
            match &env.payload {
                sportz_contract::Payload::Frame(f) => {
                    frames += 1;
                    writeln!(out, "{}", env.to_json())?;
                    if !args.export.is_empty() {
                        kept.push((**f).clone());
                    }
                }
                sportz_contract::Payload::Event(_) => {
                    events += 1;
                    writeln!(out, "{}", env.to_json())?;
                }
                sportz_contract::Payload::Status(st) => match st.status {
                    Some(sportz_contract::SessionStatus::Completed) => break Ok(()),
                    Some(sportz_contract::SessionStatus::Failed) => {
                        break Err(anyhow::anyhow!("{}", st.message.clone().unwrap_or_default()));
                    }
                    _ => {}
                },
                _ => {}
            }
            if last_print.elapsed().as_millis() >= 500 {
                last_print = std::time::Instant::now();
                #[allow(clippy::cast_precision_loss)]
                let rate = frames as f64 / started.elapsed().as_secs_f64().max(1e-9);
                match total {
                    #[allow(clippy::cast_precision_loss)]
                    Some(t) => eprint!(
                        "\rtracking {frames}/{t} frames  {rate:5.1} fps  ETA {:4.0} s  {events} events ",
                        t.saturating_sub(frames) as f64 / rate.max(1e-9)
                    ),
                    None => eprint!("\rtracking {frames} frames  {rate:5.1} fps  {events} events "),
                }
            }
        };
        shutdown.cancel();
        let _ = worker.await;
        out.flush()?;
        eprintln!();
        outcome?;
        for path in export_tracking(&args.out, &args.export, &kept)? {
            println!("wrote {}", path.display());
        }
        if let (Some(a), Some(path)) = (annotator, &args.annotate) {
            let n = a.finish()?;
            println!("wrote {n} annotated frames to {}", path.display());
        }
        println!(
            "wrote {frames} frames and {events} events to {} in {:.1} s",
            args.out.display(),
            started.elapsed().as_secs_f64()
        );
        Ok(())
    })
}

fn open_reader(
    path: &std::path::Path,
    what: &str,
) -> anyhow::Result<std::io::BufReader<std::fs::File>> {
    let f = std::fs::File::open(path)
        .with_context(|| format!("cannot read the {what} {}", path.display()))?;
    Ok(std::io::BufReader::new(f))
}

/// `sportz eval`: scores a `track` run against a synth match's truth.
pub fn eval(args: &crate::cli::EvalArgs) -> anyhow::Result<()> {
    let frames = sportz_eval::parse_truth_jsonl(
        open_reader(&args.truth, "truth")?,
        &args.truth.display().to_string(),
    )?;
    let events_path = args
        .events
        .clone()
        .unwrap_or_else(|| args.truth.with_file_name("events.json"));
    let truth = if events_path.is_file() {
        let text = std::fs::read_to_string(&events_path)
            .with_context(|| format!("cannot read {}", events_path.display()))?;
        let events = sportz_eval::parse_events_json(&text, &events_path.display().to_string())?;
        sportz_eval::Truth::new(frames, events)
    } else {
        anyhow::ensure!(
            args.events.is_none(),
            "no such events file {}",
            events_path.display()
        );
        eprintln!(
            "note: no {} beside the truth; events are not scored",
            events_path.display()
        );
        sportz_eval::Truth::from_frames(frames)
    };
    let pred = sportz_eval::parse_predictions(
        open_reader(&args.pred, "predictions")?,
        &args.pred.display().to_string(),
    )?;
    let options = sportz_eval::EvalOptions {
        event_tolerance_s: args.event_tolerance,
        ball_tolerance_px: args.ball_tolerance,
        alignment: args
            .align
            .parse()
            .map_err(|e| anyhow::anyhow!("--align: {e}"))?,
        ..sportz_eval::EvalOptions::default()
    };
    let report = sportz_eval::evaluate(&truth, &pred, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("{}", report.table().trim_end());
    }
    Ok(())
}

/// Writes the `--export` files of a `track` run beside its JSONL; returns their paths.
fn export_tracking(
    out: &std::path::Path,
    formats: &[crate::cli::ExportFormat],
    frames: &[sportz_contract::FrameData],
) -> anyhow::Result<Vec<std::path::PathBuf>> {
    use sportz_eval::export;
    let opts = sportz_eval::ExportOptions::default();
    let beside = |suffix: &str| out.with_extension(suffix);
    let mut written = Vec::new();
    let mut write = |path: std::path::PathBuf, text: String| -> anyhow::Result<()> {
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
        Ok(())
    };
    for f in formats {
        match f {
            crate::cli::ExportFormat::Cdf => {
                write(
                    beside("cdf.jsonl"),
                    export::cdf_tracking_jsonl(frames, &opts),
                )?;
                write(
                    beside("cdf.meta.json"),
                    serde_json::to_string_pretty(&export::cdf_meta(frames, &opts))?,
                )?;
            }
            crate::cli::ExportFormat::Gsr => write(
                beside("gsr.json"),
                serde_json::to_string(&export::gsr_predictions(frames, &opts))?,
            )?,
        }
    }
    Ok(written)
}
