//! The composition root of the modes that serve: the configuration (bus: embedded or `--redis`;
//! store: SQLite path or Postgres URL; bind; worker capacity; model; data and UI dirs) becomes a
//! running bus + store + API (serving) and, per [`Mode`], an embedded worker and the demo match.
//! `sportz api`, `sportz --headless` and the desktop all start here.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use sportz_bus::ContractBus;
use sportz_worker::{AnalyzerFactory, SourcePolicy, WorkerSettings};
use tokio_util::sync::CancellationToken;

use crate::cli::SystemArgs;
use crate::overlay::{Sink, TapFactory};

/// What runs beside the API.
#[derive(Clone)]
pub enum Mode {
    /// `sportz api`: the API alone; workers run elsewhere on the same bus.
    ApiOnly,
    /// `sportz --headless`: the API with an embedded worker, and the demo match.
    Headless,
    /// The desktop app: as headless, and every analysed frame is also handed to the overlay.
    Desktop(Sink),
}

impl std::fmt::Debug for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::ApiOnly => "ApiOnly",
            Self::Headless => "Headless",
            Self::Desktop(_) => "Desktop",
        })
    }
}

impl Mode {
    fn runs_worker(&self) -> bool {
        !matches!(self, Self::ApiOnly)
    }

    /// The worker's analysers as this mode wants them: the desktop overlay and the video for
    /// viewers (`extra`) tap their frames.
    fn analyzers(
        &self,
        inner: Arc<dyn AnalyzerFactory>,
        extra: Option<Sink>,
    ) -> Arc<dyn AnalyzerFactory> {
        let mut sinks: Vec<Sink> = match self {
            Self::Desktop(sink) => vec![sink.clone()],
            Self::ApiOnly | Self::Headless => Vec::new(),
        };
        sinks.extend(extra);
        let sink: Sink = match sinks.len() {
            0 => return inner,
            1 => sinks.swap_remove(0),
            _ => Arc::new(move |m, f, a| sinks.iter().for_each(|s| s(m, f, a))),
        };
        Arc::new(TapFactory { inner, sink })
    }
}

/// A running API (and worker): what the serving modes wait on.
#[derive(Debug)]
pub struct System {
    pub addr: SocketAddr,
    /// The bus the system runs on (the desktop overlay also draws from it).
    pub bus: ContractBus,
    /// The desktop's own operator token (desktop mode only), for its window.
    pub local_operator_token: Option<String>,
    /// The API's state, for the desktop's own operations (a dropped video).
    pub api_state: Arc<sportz_api::state::AppState>,
    serve: tokio::task::JoinHandle<std::io::Result<()>>,
    worker: Option<tokio::task::JoinHandle<Result<(), sportz_bus::BusError>>>,
}

impl System {
    /// Runs until the shutdown token is cancelled.
    ///
    /// # Errors
    /// When serving failed.
    pub async fn wait(self) -> anyhow::Result<()> {
        let served = self.serve.await;
        if let Some(w) = self.worker {
            let _ = w.await;
        }
        served??;
        Ok(())
    }
}

/// `sportz --headless` and `sportz api`: starts the system and serves until SIGINT/SIGTERM.
///
/// # Errors
/// When the system cannot start or serving fails.
pub async fn serve_until_signal(args: SystemArgs, mode: Mode) -> anyhow::Result<()> {
    let shutdown = CancellationToken::new();
    crate::process::cancel_on_signals(shutdown.clone());
    start(&args, mode, shutdown).await?.wait().await
}

/// Builds bus, store and API, binds and serves; with a worker mode also starts the embedded
/// worker and, on an empty database, the demo match.
///
/// # Errors
/// When the bus, the store, the API or the listener cannot be started.
pub async fn start(
    args: &SystemArgs,
    mode: Mode,
    shutdown: CancellationToken,
) -> anyhow::Result<System> {
    let bus = ContractBus::new(sportz_bus::connect(args.redis.as_deref()).await?);
    let database = database_location(args)?;
    let store = sportz_store::open(&database)
        .await
        .with_context(|| format!("cannot open the store `{database}`"))?;
    // the desktop's own window is the operator: a token made for this run, handed to it only
    let local_operator_token = matches!(mode, Mode::Desktop(_))
        .then(local_token)
        .transpose()?;
    let (viewer_video, video_sink) = if mode.runs_worker() {
        crate::viewer_video::start(args.viewer_video)?
    } else {
        let why = "this server runs no worker (`sportz api`): a match's video is rendered only where it is analysed";
        (sportz_api::video::ViewerVideo::Off(why.into()), None)
    };
    // one pitch-line model for the API's automatic calibration and the worker's camera
    let line_model = sportz_worker::vision::load_line_model(
        sportz_worker::vision::line_model_threads_beside_detector(),
    );
    let config = sportz_api::ApiConfig {
        local_operator_token: local_operator_token.clone(),
        viewer_video,
        line_model: line_model.clone(),
        ..api_config(args)
    };
    let api = sportz_api::Api::start(config, bus.clone(), store, shutdown.clone())
        .await
        .map_err(|e| anyhow::anyhow!("cannot start the API: {e}"))?;
    if let Some(token) = &api.new_operator_token {
        println!(
            "operator token (shown once; keep it to create matches, start sessions and post): {token}"
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
    let worker = if mode.runs_worker() {
        let mut settings = WorkerSettings::new(mode.analyzers(
            crate::detector::select(args.model.as_deref(), line_model)?,
            video_sink,
        ));
        if let Some(c) = args.capacity {
            anyhow::ensure!(c > 0, "--capacity must be at least 1");
            settings.capacity = c;
        }
        settings.source_policy = SourcePolicy {
            allow_private_hosts: args.allow_private_sources,
        };
        let lock = worker_dirs(&mut settings, args.data_dir.as_deref())?;
        let (bus, shutdown) = (bus.clone(), shutdown.clone());
        Some(tokio::spawn(async move {
            let _lock = lock; // held while the worker runs
            sportz_worker::run(bus, settings, shutdown).await
        }))
    } else {
        None
    };
    if mode.runs_worker() && !args.no_demo {
        crate::demo::start(&api).await;
    }
    let api_state = api.state.clone();
    let serve = tokio::spawn(api.serve(listener));
    Ok(System {
        addr,
        bus,
        local_operator_token,
        api_state,
        serve,
        worker,
    })
}

/// This API instance's name in the bus's consumer groups: host and port, so an API restarted on
/// the same address is the same consumer and reads the entries it had not acknowledged at once
/// (a new name would get them only when they are claimed as idle, 30 s later); two instances on
/// one host differ by port. With port 0 (any port) the process id stands in.
fn instance_id(bind: std::net::SocketAddr) -> String {
    if bind.port() == 0 {
        format!("api-{}", sportz_worker::default_worker_id())
    } else {
        let host = sportz_worker::default_worker_id();
        let host = host.rsplit_once('-').map_or(host.as_str(), |(h, _pid)| h);
        format!("api-{host}-{}", bind.port())
    }
}

/// 32 random bytes as hex: the desktop window's operator token for one run.
fn local_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness for a token: {e}"))?;
    Ok(format!(
        "sportz_local_{}",
        bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
    ))
}

/// The API settings the flags choose.
fn api_config(args: &SystemArgs) -> sportz_api::ApiConfig {
    let ui_dir = find_ui_dir(args.ui_dir.clone());
    if ui_dir.is_none() {
        tracing::warn!(
            "the web UI is not built (run `npm ci && npm run build` in ui/); serving the API only"
        );
    }
    let config = sportz_api::ApiConfig {
        instance_id: instance_id(args.bind),
        ui_dir,
        operator_token: args.operator_token.clone(),
        require_viewer_token: args.require_viewer_token,
        source_policy: SourcePolicy {
            allow_private_hosts: args.allow_private_sources,
        },
        recordings: (!args.no_recording).then(|| sportz_api::recording::RecordingSettings {
            dir: args
                .data_dir
                .clone()
                .unwrap_or_else(default_data_dir)
                .join("recordings"),
            keep_days: args.recording_days,
            max_bytes: (args.recording_max_gb.max(0.0) * f64::from(1u32 << 30)) as u64,
        }),
        ..sportz_api::ApiConfig::default()
    };
    if args.no_rate_limit {
        sportz_api::ApiConfig {
            http_rate: sportz_api::ratelimit::Rate::unlimited(),
            ws_rate: sportz_api::ratelimit::Rate::unlimited(),
            ..config
        }
    } else {
        config
    }
}

/// Where a worker keeps what must survive it, in the data dir: the events the bus refused
/// (`spool/`) and its record of each session's published events (`ledger/`). One worker per
/// data dir (two would replay each other's spool): the returned lock on `<data dir>/worker.lock`
/// is held for as long as the worker runs, and a second worker on the same dir is refused.
///
/// # Errors
/// The data dir cannot be created, or another worker holds it.
pub(crate) fn worker_dirs(
    settings: &mut WorkerSettings,
    data_dir: Option<&std::path::Path>,
) -> anyhow::Result<std::fs::File> {
    let dir = data_dir.map_or_else(default_data_dir, std::path::Path::to_path_buf);
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("cannot create the data dir {}", dir.display()))?;
    let path = dir.join("worker.lock");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    match lock.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "another sportz worker uses the data dir {} (it holds {}); give each worker its own --data-dir",
            dir.display(),
            path.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    settings.spool_dir = Some(dir.join("spool"));
    settings.ledger_dir = Some(dir.join("ledger"));
    Ok(lock)
}

/// `--database`, else `sportz.sqlite3` in the data dir (created).
fn database_location(args: &SystemArgs) -> anyhow::Result<String> {
    if let Some(d) = &args.database {
        return Ok(d.clone());
    }
    let data_dir = args.data_dir.clone().unwrap_or_else(default_data_dir);
    std::fs::create_dir_all(&data_dir)
        .with_context(|| format!("cannot create the data dir {}", data_dir.display()))?;
    Ok(data_dir.join("sportz.sqlite3").display().to_string())
}

pub(crate) fn default_data_dir() -> PathBuf {
    std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share")))
        .unwrap_or_else(|| PathBuf::from("."))
        .join("sportz")
}

/// The built web UI: the flag, else `ui/dist` in the working directory, else next to the
/// sources the binary was built from.
fn find_ui_dir(flag: Option<PathBuf>) -> Option<PathBuf> {
    let candidates = [
        flag,
        Some(PathBuf::from("ui/dist")),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/dist")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|d| d.join("index.html").is_file())
}

/// The address LAN viewers use, when bound to all interfaces.
pub fn lan_address() -> Option<IpAddr> {
    // the source address of a route to a public address (no packet is sent)
    let s = std::net::UdpSocket::bind("0.0.0.0:0").ok()?;
    s.connect("192.0.2.1:9").ok()?;
    s.local_addr()
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_loopback())
}

/// The store for the log, password masked.
fn database_label(d: &str) -> String {
    match d.split_once('@') {
        Some((_, host)) if d.starts_with("postgres") => format!("postgres://***@{host}"),
        _ => d.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_api_keeps_its_consumer_name_across_restarts_on_one_address() {
        let a: std::net::SocketAddr = "127.0.0.1:8080".parse().unwrap();
        let b: std::net::SocketAddr = "127.0.0.1:8081".parse().unwrap();
        assert_eq!(instance_id(a), instance_id(a));
        assert_ne!(
            instance_id(a),
            instance_id(b),
            "two instances on one host differ by port"
        );
        assert!(instance_id(a).ends_with("-8080"), "{}", instance_id(a));
        let any: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
        assert!(
            instance_id(any).ends_with(&std::process::id().to_string()),
            "any port: the process id stands in"
        );
    }
    #[test]
    fn postgres_passwords_stay_out_of_the_log() {
        assert_eq!(
            super::database_label("postgres://sportz:secret@db:5432/sportz"),
            "postgres://***@db:5432/sportz"
        );
        assert_eq!(
            super::database_label("/d/sportz.sqlite3"),
            "/d/sportz.sqlite3"
        );
    }
}
