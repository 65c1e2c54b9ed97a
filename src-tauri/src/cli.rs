//! The command line: the argument types of every role, with their help. Nothing here starts
//! anything: `main.rs` dispatches, `config.rs` layers the config file under these.

use std::path::PathBuf;

use clap::{ArgGroup, Args, Parser, Subcommand};

const AFTER_HELP: &str = "\
Roles:
  sportz                  desktop app: API + worker + window with the web UI and the pitch overlay
  sportz --headless       API + worker + web UI at http://<host>:<port>/, no display needed
  sportz api              the API alone (several may share one Redis and one Postgres)
  sportz worker           a tracking worker alone (e.g. on a GPU machine)
  sportz track VIDEO      offline analysis of a file at full speed, written as JSONL
  sportz synth            render a synthetic match with exact ground truth
  sportz detect IMAGES    detect in still images (JPEG/PNG), written as JSONL
  sportz calibrate IMAGES find the camera of still images from their pitch lines (JSONL)
  sportz eval             score tracking against synth truth, or detections against labels

With no services configured everything runs on embedded defaults (in-process bus, SQLite file).

Examples:
  sportz --headless
  sportz api --redis redis://10.0.0.5:6379 --database postgres://sportz@10.0.0.5/sportz
  sportz worker --redis redis://10.0.0.5:6379
  sportz track match.mp4 --out run.jsonl";

/// Live football tracking and real-time distribution.
#[derive(Debug, Parser)]
#[command(name = "sportz", version, about, after_help = AFTER_HELP, args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Run API + worker + web UI without a window (no display or GTK needed).
    #[arg(long)]
    pub headless: bool,

    /// A TOML config file (default: ~/.config/sportz/config.toml when it exists). Environment
    /// variables override it, flags override both.
    #[arg(long, env = "SPORTZ_CONFIG", global = true)]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub system: SystemArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `--viewer-video`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ViewerVideoMode {
    /// Every frame where a GPU renders, at most 10 a second on CPU-only machines.
    #[default]
    Auto,
    On,
    Off,
}

impl std::fmt::Display for ViewerVideoMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Auto => "auto",
            Self::On => "on",
            Self::Off => "off",
        })
    }
}

/// What the all-in-one modes (desktop, --headless) and `sportz api` run on.
#[derive(Debug, Args, Clone)]
pub struct SystemArgs {
    /// Address to serve the API and web UI on (0.0.0.0 lets LAN viewers join).
    #[arg(long, env = "SPORTZ_BIND", default_value = "0.0.0.0:8080")]
    pub bind: std::net::SocketAddr,
    /// Redis URL for the bus (default: the in-process bus).
    #[arg(long, env = "SPORTZ_REDIS")]
    pub redis: Option<String>,
    /// Postgres URL or SQLite path (default: sportz.sqlite3 in the data dir).
    #[arg(long, env = "SPORTZ_DATABASE")]
    pub database: Option<String>,
    /// Where the SQLite file and other local state live (default: ~/.local/share/sportz).
    #[arg(long, env = "SPORTZ_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// The built web UI (default: ui/dist next to the sources or the working directory).
    #[arg(long, env = "SPORTZ_UI_DIR")]
    pub ui_dir: Option<PathBuf>,
    /// A fixed operator token (default: one is created on first start and printed once).
    #[arg(long, env = "SPORTZ_OPERATOR_TOKEN", hide_env_values = true)]
    pub operator_token: Option<String>,
    /// Require a viewer token to read and watch.
    #[arg(long, env = "SPORTZ_REQUIRE_VIEWER_TOKEN")]
    pub require_viewer_token: bool,
    /// Turn off the per-client rate limits (HTTP 50 per 10 s, WebSocket upgrades 5 per 2 s), e.g.
    /// behind a proxy where every client shares one address, or for load tests.
    #[arg(long, env = "SPORTZ_NO_RATE_LIMIT")]
    pub no_rate_limit: bool,
    /// Don't create and start the synthetic demo match on an empty database.
    #[arg(long, env = "SPORTZ_NO_DEMO")]
    pub no_demo: bool,
    /// ONNX detector for the embedded worker (any YOLO-family layout). Default: the built-in
    /// sportz-det, trained on real broadcast frames and synthetic matches (models/MODEL_CARD.md);
    /// `none`: no detection.
    #[arg(long, env = "SPORTZ_MODEL")]
    pub model: Option<PathBuf>,
    /// Concurrent matches of the embedded worker.
    #[arg(long, env = "SPORTZ_WORKER_CAPACITY")]
    pub capacity: Option<u32>,
    /// Allow video URLs whose host resolves to a private or loopback address (the embedded
    /// worker's sessions and the calibration stills the API reads).
    #[arg(long, env = "SPORTZ_ALLOW_PRIVATE_SOURCES")]
    pub allow_private_sources: bool,
    /// Days a session's recording is kept (in `recordings/` of the data dir; 0: until
    /// --recording-max-gb needs the room). Every session's messages are recorded, for export
    /// (`GET /matches/{id}/sessions/{sid}/export`, `sportz export`).
    #[arg(long, env = "SPORTZ_RECORDING_DAYS", default_value_t = 30)]
    pub recording_days: u32,
    /// The most the recordings may take on disk, in GB; the oldest go first beyond it.
    #[arg(long, env = "SPORTZ_RECORDING_MAX_GB", default_value_t = 20.0)]
    pub recording_max_gb: f64,
    /// Record nothing (no exports after the fact).
    #[arg(long, env = "SPORTZ_NO_RECORDING")]
    pub no_recording: bool,
    /// Annotated live video for viewers on the match page (`GET /matches/{id}/video`, MJPEG):
    /// analysed frames drawn by the overlay's renderer (boxes, ids, ball trail) and
    /// JPEG-encoded once for all viewers, only while someone watches. `auto`: every frame where
    /// a GPU renders, at most 10 pictures a second where the only renderer is the CPU (each
    /// costs ≈ 26 ms of CPU there; BENCHMARKS.md); `on`: every frame wherever; `off`: none.
    #[arg(long, env = "SPORTZ_VIEWER_VIDEO", value_enum, default_value_t = ViewerVideoMode::Auto)]
    pub viewer_video: ViewerVideoMode,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the API alone: REST, /ws and /ws/matches/{id}, contract consumers.
    #[command(
        after_help = "Example:\n  sportz api --redis redis://127.0.0.1:6379 --database postgres://sportz@127.0.0.1/sportz"
    )]
    Api(SystemArgs),
    /// Run a tracking worker alone: takes start commands from the bus and processes matches.
    #[command(after_help = "Example:\n  sportz worker --redis redis://127.0.0.1:6379 --capacity 2")]
    Worker(WorkerArgs),
    /// Analyse a video file offline at full speed and write frame and event messages as JSONL.
    #[command(
        after_help = "Examples:\n  sportz track match.mp4 --calibration calib.json --out run.jsonl\n  sportz track synth/match.mp4 --calibration synth/calibration.json --out run.jsonl --annotate run.mp4 --export cdf,gsr,mot\n\nCPU use: detectors take the frames in turn, one per core up to 4 (on more cores they share the cores' threads); the camera, tracking and events follow in frame order on one more thread. SPORTZ_DETECT_WORKERS sets how many detectors, SPORTZ_ORT_THREADS how many threads they share (default: the cores)."
    )]
    Track(TrackArgs),
    /// Render a synthetic broadcast match (H.264) with exact ground truth (JSONL).
    #[command(after_help = "Example:\n  sportz synth --seed 7 --seconds 60 --out synth/")]
    Synth(SynthArgs),
    /// Print the effective configuration (file, environment, flags), secrets masked.
    #[command(after_help = "Example:\n  SPORTZ_REDIS=redis://10.0.0.5:6379 sportz config")]
    Config(SystemArgs),
    /// Run the detector on still images (JPEG, PNG) and write every detection as JSONL.
    #[command(
        after_help = "Examples:\n  sportz detect valid/images --out dets.jsonl\n  sportz detect a.jpg b.png --model yolox_nano.onnx --out dets.jsonl --threshold 0.05"
    )]
    Detect(DetectArgs),
    /// Find the broadcast camera of still images from their pitch lines (no clicks) and write it
    /// as JSONL (`sportz eval --cameras` scores it against labelled keypoints). Each image is
    /// searched at full size, and again shrunk to 640 wide (as `track` reads video) when that
    /// finds nothing.
    #[command(
        after_help = "Examples:\n  sportz calibrate frame.jpg --out cams.jsonl\n  sportz calibrate pitch-keypoints-dfl/valid/images --aspect 16:9 --out cams.jsonl\n  sportz eval --cameras cams.jsonl --keypoints pitch-keypoints-dfl/valid/labels"
    )]
    Calibrate(CalibrateArgs),
    /// Score tracking output against synth truth (HOTA, IDF1, ball, pitch error, events), or
    /// detections against labelled images (AP50, AP50-95, precision and recall per class).
    #[command(
        after_help = "Examples:\n  tracking (a `sportz track` run against `sportz synth` truth):\n    sportz eval --truth synth/truth.jsonl --pred run.jsonl\n    sportz eval --truth synth/truth.jsonl --pred run.jsonl --json > scores.json\n  detection (`sportz detect` output against YOLO labels, classes from a data.yaml beside them):\n    sportz eval --detections dets.jsonl --labels valid/labels\n    sportz eval --detections dets.jsonl --labels labels --data data.yaml --conf 0.3 --json\n  cameras (`sportz calibrate` output against pitch keypoint labels):\n    sportz eval --cameras cams.jsonl --keypoints valid/labels"
    )]
    Eval(EvalArgs),
    /// Export a recorded session (every session the API ran is recorded in its data dir) as
    /// JSONL, events CSV, CDF tracking, SoccerNet GSR or MOTChallenge; or list the recordings.
    /// From another machine: `GET /matches/{id}/sessions/{sid}/export?format=…` of the API.
    #[command(after_help = "Examples:
  sportz export --list
  sportz export --match match_01J… --format cdf --out match.cdf.jsonl
  sportz export --match match_01J… --session ses_01J… --format events-csv --out events.csv
  curl -o m.cdf.jsonl 'http://host:8080/matches/match_01J…/sessions/ses_01J…/export?format=cdf'")]
    Export(ExportArgs),
}

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// The match whose session to export.
    #[arg(long = "match", required_unless_present = "list")]
    pub match_id: Option<String>,
    /// The session (default: the match's newest recorded session).
    #[arg(long)]
    pub session: Option<String>,
    /// jsonl (every recorded message), events-csv, cdf, gsr or mot.
    #[arg(long, required_unless_present = "list")]
    pub format: Option<String>,
    /// Where to write (`-`: standard output).
    #[arg(long, required_unless_present = "list")]
    pub out: Option<PathBuf>,
    /// List the recordings instead (match, session, size, last written).
    #[arg(long)]
    pub list: bool,
    /// The API's data dir, whose `recordings/` is read (default: ~/.local/share/sportz).
    #[arg(long, env = "SPORTZ_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// The API's store, where the events are (Postgres URL or SQLite path; default:
    /// sportz.sqlite3 in the data dir).
    #[arg(long, env = "SPORTZ_DATABASE")]
    pub database: Option<String>,
}

#[derive(Debug, Args)]
pub struct WorkerArgs {
    /// Redis URL of the bus shared with the API (required: a worker alone on an in-process bus
    /// would have no API to talk to).
    #[arg(long, env = "SPORTZ_REDIS")]
    pub redis: Option<String>,
    /// This worker's id in leases and heartbeats (default: host name and process id).
    #[arg(long, env = "SPORTZ_WORKER_ID")]
    pub worker_id: Option<String>,
    /// Maximum concurrent matches (default: 1 on a CPU, 4 on a GPU).
    #[arg(long, env = "SPORTZ_WORKER_CAPACITY")]
    pub capacity: Option<u32>,
    /// Allow video URLs whose host resolves to a private or loopback address.
    #[arg(long, env = "SPORTZ_ALLOW_PRIVATE_SOURCES")]
    pub allow_private_sources: bool,
    /// Local state: events the bus refused wait in `spool/` here until it is back, also across
    /// a restart (default: ~/.local/share/sportz). One worker per data dir.
    #[arg(long, env = "SPORTZ_DATA_DIR")]
    pub data_dir: Option<PathBuf>,
    /// ONNX detector (any YOLO-family layout). Default: the built-in sportz-det, trained on real
    /// broadcast frames and synthetic matches (models/MODEL_CARD.md); `none`: no detection.
    #[arg(long, env = "SPORTZ_MODEL")]
    pub model: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct TrackArgs {
    /// The video file to analyse.
    pub video: PathBuf,
    /// ONNX detector (any YOLO-family layout). Default: the built-in sportz-det, trained on real
    /// broadcast frames and synthetic matches (models/MODEL_CARD.md); `none`: no detection.
    #[arg(long, env = "SPORTZ_MODEL")]
    pub model: Option<PathBuf>,
    /// Calibration point pairs for pitch coordinates: a JSON list of
    /// `{"pixel":{"x","y"},"pitch":{"x","y"}}` (e.g. the calibration.json of `sportz synth`).
    #[arg(long)]
    pub calibration: Option<PathBuf>,
    /// Output JSONL file: one contract message (frame or event) per line.
    #[arg(long)]
    pub out: PathBuf,
    /// Frames per second to sample (default: the video's rate).
    #[arg(long)]
    pub fps: Option<f64>,
    /// Also write an annotated H.264 video (boxes with ids, the ball and its trail, a radar),
    /// drawn by the same wgpu overlay as the desktop app.
    #[arg(long, value_name = "OUT.mp4")]
    pub annotate: Option<PathBuf>,
    /// Also write tracking data in these formats (repeat or comma-separate: `cdf,gsr`).
    #[arg(long, value_enum, value_delimiter = ',')]
    pub export: Vec<ExportFormat>,
}

#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Random seed; the same seed renders the same match.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Length in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub seconds: f64,
    /// Output directory (match.mp4, truth.jsonl, events.json, calibration.json, meta.json).
    #[arg(long)]
    pub out: PathBuf,
    /// Frame size, WIDTHxHEIGHT.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Frames per second.
    #[arg(long, default_value_t = 25)]
    pub fps: u32,
    /// Leave out the scoreboard overlay.
    #[arg(long)]
    pub no_scoreboard: bool,
    /// Blend each frame with the previous one (motion blur).
    #[arg(long)]
    pub motion_blur: bool,
    /// Add seeded sensor noise.
    #[arg(long)]
    pub noise: bool,
    /// Keep the main camera throughout: no cuts to other angles or close-ups.
    #[arg(long)]
    pub no_cuts: bool,
    /// Both teams in the home kit (a stress case: shirts cannot tell the teams apart).
    #[arg(long)]
    pub one_kit: bool,
    /// Leave the ball out of the picture (a stress case: a ball never seen).
    #[arg(long)]
    pub no_ball: bool,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT such as 1280x720, got `{s}`"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|_| format!("expected WIDTHxHEIGHT such as 1280x720, got `{s}`"))
    };
    Ok((num(w)?, num(h)?))
}

#[derive(Debug, Args)]
pub struct DetectArgs {
    /// Images (.jpg, .jpeg, .png) and folders of them (read one level deep, in name order).
    #[arg(required = true, value_name = "IMAGE_OR_DIR")]
    pub inputs: Vec<PathBuf>,
    /// ONNX detector (any YOLO-family layout). Default: the built-in sportz-det, trained on real
    /// broadcast frames and synthetic matches (models/MODEL_CARD.md).
    #[arg(long, env = "SPORTZ_MODEL")]
    pub model: Option<PathBuf>,
    /// Output JSONL file: one line per image, `{"image", "width", "height", "detections":
    /// [{"class", "bbox": [x1, y1, x2, y2], "confidence"}]}` in the image's pixels.
    #[arg(long)]
    pub out: PathBuf,
    /// Lowest confidence written (low, so AP can be computed over the whole ranking).
    #[arg(long, default_value_t = 0.01)]
    pub threshold: f64,
    /// Also detect on an N×N grid of overlapping crops and merge (small objects such as the
    /// ball are seen at closer to native resolution; 1 + N² runs an image). `auto`: 2×2 for
    /// images that shrink more than 2.5× into the model input (1080p broadcasts, the 1280×1280
    /// exports), none otherwise; `1`: the whole image only.
    #[arg(long, default_value = "auto", value_name = "auto|N")]
    pub tiles: String,
    /// The shape each image is detected in. `auto`: a square image is taken for a 16:9
    /// broadcast frame stretched to a square by a dataset export (Roboflow's "stretch to
    /// 640×640") and widened back to 16:9 first, other shapes as they are; `none`: as they
    /// are; `W:H`: every image widened or narrowed to it. Boxes are always in the pixels of the
    /// image as given.
    #[arg(long, default_value = "auto", value_name = "auto|none|W:H")]
    pub aspect: String,
    /// Write only the best class of each box, as `sportz track` decodes. Default: every class
    /// scoring at least --threshold becomes a detection of its own (a box the model half
    /// believes is a goalkeeper also counts as a player at its player score), which is how
    /// `yolo val` computes AP.
    #[arg(long)]
    pub one_class_per_box: bool,
    /// Write the ball boxes exactly as the model drew them. Default: each ball box of
    /// confidence ≥ 0.02 is moved halfway onto the bright blob it holds, measured on the
    /// image's own pixels (the model sees a broadcast ball as 4–6 pixels and is often a few
    /// image pixels off); its size is kept.
    #[arg(long)]
    pub model_ball_boxes: bool,
}

#[derive(Debug, Args)]
pub struct CalibrateArgs {
    /// Images (.jpg, .jpeg, .png) and folders of them (read one level deep, in name order).
    #[arg(required = true, value_name = "IMAGE_OR_DIR")]
    pub inputs: Vec<PathBuf>,
    /// Output JSONL file: one line per image, `{"image", "width", "height", "camera":
    /// {"image_to_pitch", "source", "confidence"} | null, "reason", "ms"}` in the pixels of the
    /// image as searched (after `--aspect`).
    #[arg(long)]
    pub out: PathBuf,
    /// Undo a stretched export first: widen or narrow each image to WIDTH:HEIGHT (e.g. 16:9),
    /// keeping its height; `auto`: square images only, to 16:9 (the rule of `sportz detect`);
    /// `none` (the default): as they are. Normalised labels still hold.
    #[arg(long, value_name = "auto|none|W:H")]
    pub aspect: Option<String>,
    /// Also write each image as `DIR/<stem>.png` with the pitch model projected through the
    /// camera found (green), or through the best camera refused (red): the visual check.
    #[arg(long, value_name = "DIR")]
    pub draw: Option<PathBuf>,
}

const TRACKING: &str = "Tracking: a `sportz track` run against `sportz synth` truth";
const DETECTION: &str = "Detection: `sportz detect` output against labelled images";
const KEYPOINTS: &str = "Cameras: `sportz calibrate` output against labelled pitch keypoints";

#[derive(Debug, Args)]
#[command(
    group(ArgGroup::new("mode").args(["truth", "detections", "cameras"]).required(true)),
    group(ArgGroup::new("tracking").args(["truth", "pred", "events", "event_tolerance", "ball_tolerance", "align"]).multiple(true)),
    group(ArgGroup::new("detection").args(["detections", "labels", "data", "conf", "ignore_under"]).multiple(true).conflicts_with("tracking")),
    group(ArgGroup::new("keypoint").args(["cameras", "keypoints"]).multiple(true).conflicts_with_all(["tracking", "detection"])),
)]
pub struct EvalArgs {
    /// Ground truth JSONL from `sportz synth` (its `truth.jsonl`). Give `--truth A --pred P`
    /// several times to score several runs: each run's table, then the mean and the worst run
    /// of the headline figures.
    #[arg(long, requires = "pred", help_heading = TRACKING)]
    pub truth: Vec<PathBuf>,
    /// Predictions JSONL from `sportz track` (one for each `--truth`, in the same order).
    #[arg(long, requires = "truth", help_heading = TRACKING)]
    pub pred: Vec<PathBuf>,
    /// True events (default: `events.json` beside the truth; without it events are not scored).
    /// With one `--truth` only.
    #[arg(long, help_heading = TRACKING)]
    pub events: Option<PathBuf>,
    /// Seconds within which a predicted event matches a true one of the same kind.
    #[arg(long, default_value_t = 1.0, help_heading = TRACKING)]
    pub event_tolerance: f64,
    /// Pixels within which a predicted ball matches the true one.
    #[arg(long, default_value_t = 5.0, help_heading = TRACKING)]
    pub ball_tolerance: f64,
    /// How predicted frames are paired with truth frames: `timestamp` (nearest video time) or
    /// `frame_number`.
    #[arg(long, default_value = "timestamp", help_heading = TRACKING)]
    pub align: String,
    /// Detections JSONL from `sportz detect`.
    #[arg(long, requires = "labels", help_heading = DETECTION)]
    pub detections: Option<PathBuf>,
    /// A folder of YOLO label files (`<image stem>.txt`: `cls cx cy w h` boxes or `cls x1 y1 x2
    /// y2 …` polygons, normalised), one for every image of the detections.
    #[arg(long, requires = "detections", help_heading = DETECTION)]
    pub labels: Option<PathBuf>,
    /// The `data.yaml` whose `names` give the class ids' names (default: the first of
    /// LABELS/data.yaml, LABELS/../data.yaml, LABELS/../../data.yaml).
    #[arg(long, help_heading = DETECTION)]
    pub data: Option<PathBuf>,
    /// Confidence at or above which detections count for precision and recall (AP uses all).
    #[arg(long, default_value_t = 0.25, help_heading = DETECTION)]
    pub conf: f64,
    /// Ignore truth boxes narrower or shorter than PX pixels, as COCO ignores crowd regions:
    /// not counted, and a detection on one is neither right nor wrong (for polygon labels that
    /// leave slivers of occluded players as boxes a pixel or two wide). Default 0: none.
    #[arg(long, default_value_t = 0.0, value_name = "PX", help_heading = DETECTION)]
    pub ignore_under: f64,
    /// Cameras JSONL from `sportz calibrate`.
    #[arg(long, requires = "keypoints", help_heading = KEYPOINTS)]
    pub cameras: Option<PathBuf>,
    /// A folder of YOLO-pose pitch keypoint labels (`<image stem>.txt`: `cls cx cy w h` then 32
    /// `x y v`, roboflow's SoccerPitchConfiguration order, normalised).
    #[arg(long, requires = "cameras", help_heading = KEYPOINTS)]
    pub keypoints: Option<PathBuf>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Tracking-data formats `sportz track --export` writes beside its output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    /// Common Data Format (cdf.football): `<out>.cdf.jsonl` (a frame a line, metres from the
    /// pitch centre) and `<out>.cdf.meta.json`.
    Cdf,
    /// SoccerNet game-state reconstruction JSON: `<out>.gsr.json`.
    Gsr,
    /// MOTChallenge 2D boxes of the people tracks (TrackEval's tracker layout):
    /// `<out>.mot.txt`.
    Mot,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }

    #[test]
    fn eval_takes_one_mode_whole() {
        use clap::Parser;
        let parse = |args: &[&str]| {
            super::Cli::try_parse_from([&["sportz", "eval"], args].concat()).map(|_| ())
        };
        assert!(parse(&["--truth", "t", "--pred", "p"]).is_ok());
        assert!(parse(&["--detections", "d", "--labels", "l", "--conf", "0.3"]).is_ok());
        assert!(parse(&[]).is_err());
        assert!(parse(&["--truth", "t"]).is_err());
        assert!(parse(&["--detections", "d"]).is_err());
        assert!(parse(&["--truth", "t", "--pred", "p", "--labels", "l"]).is_err());
        assert!(
            parse(&[
                "--detections",
                "d",
                "--labels",
                "l",
                "--align",
                "frame_number"
            ])
            .is_err()
        );
    }

    #[test]
    fn headless_and_a_role_are_exclusive() {
        use clap::Parser;
        assert!(super::Cli::try_parse_from(["sportz", "--headless", "api"]).is_err());
        assert!(super::Cli::try_parse_from(["sportz", "--headless"]).is_ok());
    }
}
