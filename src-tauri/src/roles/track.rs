//! `sportz track VIDEO`: the real pipeline (the worker's session, on an in-process bus) over a
//! file at full speed, nothing dropped, written as JSONL (frame and event messages) with a
//! progress line; optionally an annotated video (`--annotate`, the wgpu overlay) and tracking
//! exports (`--export cdf,gsr`).

use std::io::Write as _;
use std::sync::Arc;
use std::time::Instant;

use anyhow::Context as _;
use sportz_bus::{ContractBus, MatchFeed};
use sportz_contract::worker::{PointPair, SessionConfig, VideoSource};
use sportz_contract::{
    Control, DesiredState, FrameData, MatchId, Payload, SessionId, SessionStatus, WorkerCommand,
};
use sportz_worker::WorkerSettings;
use tokio_util::sync::CancellationToken;

use crate::annotate::Annotator;
use crate::cli::{ExportFormat, TrackArgs};
use crate::overlay::TapFactory;

/// Runs the pipeline over `args.video`, writes the outputs and prints what it wrote.
///
/// # Errors
/// A missing video or calibration, an unwritable output, a model that cannot be loaded, or the
/// session failing (with the worker's message).
pub async fn run(args: &TrackArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.video.is_file(),
        "no such video file `{}`",
        args.video.display()
    );
    let calibration = read_calibration(args.calibration.as_deref())?;
    let out = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(out);
    let source = VideoSource::File(args.video.display().to_string());
    let probe = sportz_worker::source::probe(&source, std::time::Duration::from_secs(15))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let fps = args.fps.unwrap_or(probe.fps);
    let total = probe.duration.map(|d| (d * fps).round() as u64);
    let annotator = match &args.annotate {
        Some(path) => Some(Annotator::start(path, fps)?),
        None => None,
    };
    if args.model.is_none() {
        say!("{}", crate::detector::BUILT_IN_NOTE);
    }
    let mut factory = crate::detector::select(
        args.model.as_deref(),
        sportz_worker::vision::load_line_model(
            sportz_worker::vision::line_model_threads_beside_detector(),
        ),
    )?;
    if let Some(a) = &annotator {
        factory = Arc::new(TapFactory {
            inner: factory,
            sink: a.sink(),
        });
    }
    let mut config = SessionConfig::new(source);
    config.realtime = false;
    config.target_fps = args.fps;
    config.calibration = calibration;
    let started = Instant::now();
    let run = Run::start(factory, config).await?;
    let mut written = Written::default();
    let outcome = run
        .drain(
            &mut out,
            !args.export.is_empty(),
            total,
            started,
            &mut written,
        )
        .await;
    out.flush()?;
    say!();
    outcome?;
    for path in export_tracking(&args.out, &args.export, &written.kept)? {
        println!("wrote {}", path.display());
    }
    if let (Some(a), Some(path)) = (annotator, &args.annotate) {
        let n = a.finish()?;
        println!("wrote {n} annotated frames to {}", path.display());
    }
    println!(
        "wrote {} frames and {} events to {} in {:.1} s{}",
        written.frames,
        written.events,
        args.out.display(),
        started.elapsed().as_secs_f64(),
        match total {
            Some(t) if t != written.frames => {
                format!(" (the container's duration suggested ≈{t} frames)")
            }
            _ => String::new(),
        }
    );
    Ok(())
}

/// `--calibration`: a JSON list of point pairs (e.g. `sportz synth`'s calibration.json).
fn read_calibration(path: Option<&std::path::Path>) -> anyhow::Result<Vec<PointPair>> {
    let Some(p) = path else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(p)
        .with_context(|| format!("cannot read the calibration {}", p.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        anyhow::anyhow!(
            "invalid calibration {}: {e}; expected [{{\"pixel\":{{\"x\":…,\"y\":…}},\"pitch\":{{\"x\":…,\"y\":…}}}}, …]",
            p.display()
        )
    })
}

/// What the run wrote, and the frames the exports need (only with `--export`).
#[derive(Debug, Default)]
struct Written {
    frames: u64,
    events: u64,
    kept: Vec<FrameData>,
}

/// A worker with one offline session on a private in-process bus, and that session's feed.
struct Run {
    feed: sportz_bus::MatchSubscription,
    shutdown: CancellationToken,
    worker: tokio::task::JoinHandle<Result<(), sportz_bus::BusError>>,
}

impl Run {
    async fn start(
        factory: Arc<dyn sportz_worker::AnalyzerFactory>,
        config: SessionConfig,
    ) -> anyhow::Result<Self> {
        let bus = ContractBus::new(Arc::new(sportz_bus::MemoryBus::new()));
        let mut settings = WorkerSettings::new(factory);
        settings.worker_id = "track".to_owned();
        settings.capacity = 1;
        let shutdown = CancellationToken::new();
        let worker = tokio::spawn(sportz_worker::run(bus.clone(), settings, shutdown.clone()));
        let (m, s) = (MatchId::generate(), SessionId::generate());
        let feed = bus.subscribe_match(&m, 1_000_000).await?;
        bus.set_control(
            &m,
            &Control {
                session_id: s,
                state: DesiredState::Running,
            },
        )
        .await?;
        bus.send_command(&WorkerCommand::Start {
            match_id: m,
            session_id: s,
            config,
        })
        .await?;
        Ok(Self {
            feed,
            shutdown,
            worker,
        })
    }

    /// Writes frame and event messages until the session completes (or fails), then stops the
    /// worker.
    async fn drain(
        mut self,
        out: &mut impl std::io::Write,
        keep: bool,
        total: Option<u64>,
        started: Instant,
        w: &mut Written,
    ) -> anyhow::Result<()> {
        let mut last_print = started;
        let outcome = loop {
            let Some(item) = self.feed.next().await else {
                break Err(anyhow::anyhow!("the pipeline stopped"));
            };
            let env = match item {
                MatchFeed::Message(env) => env,
                MatchFeed::Lagged(n) => {
                    break Err(anyhow::anyhow!(
                        "lost {n} messages: the output could not keep up"
                    ));
                }
                _ => continue,
            };
            match &env.payload {
                Payload::Frame(f) => {
                    w.frames += 1;
                    writeln!(out, "{}", env.to_json())?;
                    if keep {
                        w.kept.push((**f).clone());
                    }
                }
                Payload::Event(_) => {
                    w.events += 1;
                    writeln!(out, "{}", env.to_json())?;
                }
                Payload::Status(st) => match st.status {
                    Some(SessionStatus::Completed) => break Ok(()),
                    Some(SessionStatus::Failed) => {
                        break Err(anyhow::anyhow!(
                            "{}",
                            st.message.clone().unwrap_or_default()
                        ));
                    }
                    _ => {}
                },
                _ => {}
            }
            if last_print.elapsed().as_millis() >= 500 {
                last_print = Instant::now();
                progress(w, total, started);
            }
        };
        self.shutdown.cancel();
        let _ = self.worker.await;
        outcome
    }
}

/// The progress line on stderr. The total is the container's duration × fps, an estimate: an
/// edit list or a damaged tail can leave fewer decodable frames, so it is shown as `≈N` and
/// never as a count that must be reached; the ETA waits for a measured rate.
fn progress(w: &Written, total: Option<u64>, started: Instant) {
    say_inline!(
        "\r{}",
        progress_line(w.frames, w.events, total, started.elapsed().as_secs_f64())
    );
}

fn progress_line(frames: u64, events: u64, total: Option<u64>, elapsed_s: f64) -> String {
    let rate = if elapsed_s > 0.0 {
        frames as f64 / elapsed_s
    } else {
        0.0
    };
    let eta = match total {
        Some(t) if rate >= 0.05 && frames > 0 => {
            format!("ETA {:.0} s", t.saturating_sub(frames) as f64 / rate)
        }
        Some(_) => "ETA –".to_owned(),
        None => String::new(),
    };
    match total {
        Some(t) => format!(
            "tracking {frames}/≈{} frames  {rate:5.1} fps  {eta}  {events} events ",
            t.max(frames)
        ),
        None => format!("tracking {frames} frames  {rate:5.1} fps  {events} events "),
    }
}

/// Writes the `--export` files of a `track` run beside its JSONL; returns their paths.
fn export_tracking(
    out: &std::path::Path,
    formats: &[ExportFormat],
    frames: &[FrameData],
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
            ExportFormat::Cdf => {
                write(
                    beside("cdf.jsonl"),
                    export::cdf_tracking_jsonl(frames, &opts),
                )?;
                write(
                    beside("cdf.meta.json"),
                    serde_json::to_string_pretty(&export::cdf_meta(frames, &opts))?,
                )?;
            }
            ExportFormat::Gsr => write(
                beside("gsr.json"),
                serde_json::to_string(&export::gsr_predictions(frames, &opts))?,
            )?,
            ExportFormat::Mot => write(beside("mot.txt"), export::mot_tracking(frames))?,
        }
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    use super::progress_line;

    #[test]
    fn no_eta_before_a_rate_is_measured() {
        let line = progress_line(0, 0, Some(772), 3.0);
        assert!(line.contains("ETA –"), "{line}");
        assert!(!line.contains("e1"), "no exponent: {line}");
        let line = progress_line(100, 2, Some(772), 4.0);
        assert!(line.contains("100/≈772"), "{line}");
        assert!(line.contains("ETA 27 s"), "(772 − 100) / 25 fps: {line}");
    }

    #[test]
    fn the_estimate_never_falls_behind_the_count() {
        // the container said 630 frames, more were decodable
        let line = progress_line(700, 0, Some(630), 10.0);
        assert!(line.contains("700/≈700"), "{line}");
        assert!(line.contains("ETA 0 s"), "{line}");
    }
}
