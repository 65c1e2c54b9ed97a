//! Every `ffmpeg` and `ffprobe` command line sportz runs, built in one place: the worker's ingest
//! (probe, then decode to raw RGB on a pipe), the encoders of `sportz synth` and
//! `track --annotate` (raw frames on stdin → H.264), and the API's still frame for calibration.
//!
//! Why child processes rather than libav bindings: a decoder that crashes, hangs on a dead network
//! read or leaks cannot take the caller down (it is killed and restarted); the build needs no
//! libav headers and no ABI match with the installed ffmpeg; and the command line is what users
//! debug with. The cost is one copy of each frame through a pipe.
//!
//! This crate only *builds* [`std::process::Command`]s (and reads ffprobe's answer); callers
//! spawn them — async callers through `tokio::process::Command::from`. It does no IO itself and
//! has no async runtime, so the pure-ish `sportz-synth` can use it too.

use std::ffi::OsStr;
use std::path::Path;
use std::process::{Command, Stdio};

use sportz_contract::worker::VideoSource;

/// The decoder program (`ffmpeg` on `PATH`).
pub const FFMPEG: &str = "ffmpeg";
/// The prober program (`ffprobe` on `PATH`).
pub const FFPROBE: &str = "ffprobe";

/// Network sources fail a dead connection within this many microseconds rather than hanging
/// (HTTP's `-rw_timeout`).
const HTTP_RW_TIMEOUT_US: &str = "5000000";

/// The URL or path ffprobe and ffmpeg open.
#[must_use]
pub fn location(source: &VideoSource) -> String {
    match source {
        VideoSource::File(s)
        | VideoSource::Http(s)
        | VideoSource::Rtmp(s)
        | VideoSource::Rtsp(s)
        | VideoSource::Srt(s)
        | VideoSource::Device(s) => s.clone(),
        VideoSource::Synthetic(seed) => format!("synthetic:{seed}"),
    }
}

/// The ffmpeg input arguments for a source (everything before the output options): `-re` to read
/// at the video's own rate when `realtime` (files and HTTP only), `-ss` to start at `start_at`
/// seconds (seekable sources only), and per protocol the options that keep a dead peer from
/// hanging the reader.
#[must_use]
pub fn input_args(source: &VideoSource, start_at: f64, realtime: bool) -> Vec<String> {
    let mut a: Vec<String> = Vec::new();
    let seekable = matches!(source, VideoSource::File(_) | VideoSource::Http(_));
    if realtime && seekable {
        a.push("-re".into());
    }
    if seekable && start_at > 0.0 {
        a.extend(["-ss".into(), format!("{start_at:.3}")]);
    }
    a.extend(protocol_args(source).iter().map(|s| (*s).to_owned()));
    match source {
        VideoSource::Synthetic(_) => {}
        other => a.extend(["-i".into(), location(other)]),
    }
    a
}

/// Options a protocol needs before its input (shared by ffprobe and ffmpeg).
fn protocol_args(source: &VideoSource) -> &'static [&'static str] {
    match source {
        VideoSource::Http(_) => &["-rw_timeout", HTTP_RW_TIMEOUT_US],
        // interleaved TCP first (through NAT and firewalls), RTP over UDP when the server has
        // no TCP transport
        VideoSource::Rtsp(_) => &["-rtsp_transport", "tcp+udp"],
        VideoSource::Device(_) => &["-f", "v4l2"],
        _ => &[],
    }
}

/// `ffprobe` asking for the first video stream's size and rates and the container's duration, as
/// JSON on stdout (read it with [`parse_probe`]). stdin is closed.
#[must_use]
pub fn probe_command(source: &VideoSource) -> Command {
    let mut cmd = Command::new(FFPROBE);
    cmd.args(["-v", "error", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=width,height,avg_frame_rate,r_frame_rate:format=duration",
        ])
        .args(["-of", "json"])
        .args(protocol_args(source))
        .arg(location(source))
        .stdin(Stdio::null());
    cmd
}

/// What ffprobe found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Probe {
    pub width: u32,
    pub height: u32,
    pub fps: f64,
    /// Known for files (and finite HTTP files); `None` for live streams.
    pub duration: Option<f64>,
}

fn parse_rate(s: &str) -> Option<f64> {
    let (n, d) = s.split_once('/').unwrap_or((s, "1"));
    let (n, d): (f64, f64) = (n.trim().parse().ok()?, d.trim().parse().ok()?);
    (d > 0.0 && n > 0.0).then(|| n / d)
}

/// Reads the output of [`probe_command`]. A missing or absurd frame rate (> 240) falls back to 25.
///
/// # Errors
/// The reason, when the output is not JSON or has no usable video stream.
pub fn parse_probe(json: &str) -> Result<Probe, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("unreadable ffprobe output: {e}"))?;
    let s = v["streams"]
        .as_array()
        .and_then(|a| a.first())
        .ok_or("no video stream")?;
    let dim = |k: &str| {
        s[k].as_u64()
            .and_then(|x| u32::try_from(x).ok())
            .filter(|&x| x > 0)
    };
    let (width, height) = (
        dim("width").ok_or("no frame width")?,
        dim("height").ok_or("no frame height")?,
    );
    let fps = ["avg_frame_rate", "r_frame_rate"]
        .iter()
        .find_map(|k| s[*k].as_str().and_then(parse_rate))
        .filter(|f| *f <= 240.0)
        .unwrap_or(25.0);
    let duration = v["format"]["duration"]
        .as_str()
        .and_then(|d| d.parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d > 0.0);
    Ok(Probe {
        width,
        height,
        fps,
        duration,
    })
}

/// `ffmpeg` decoding the source's first video stream to `width × height` rgb24 frames at `fps`
/// on stdout (constant rate: frame `k` shows `start_at + k / fps`). stdin is closed, stdout and
/// stderr are piped.
#[must_use]
pub fn decode_command(
    source: &VideoSource,
    start_at: f64,
    realtime: bool,
    fps: f64,
    (width, height): (u32, u32),
) -> Command {
    let mut cmd = Command::new(FFMPEG);
    cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin"])
        .args(input_args(source, start_at, realtime))
        .args(["-map", "0:v:0", "-an", "-sn"])
        .args([
            "-vf".to_owned(),
            format!("fps={fps},scale={width}:{height}"),
        ])
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// `ffmpeg` writing one JPEG of `input` at `at_secs` to stdout.
#[must_use]
pub fn still_command(input: &str, at_secs: f64) -> Command {
    let mut cmd = Command::new(FFMPEG);
    cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin"])
        .args(["-ss", &format!("{at_secs:.3}"), "-i", input])
        .args(["-frames:v", "1", "-f", "image2", "-c:v", "mjpeg", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// `ffmpeg` writing one frame of `input` (a video at `at_secs`, or an image file with `at_secs`
/// 0) to stdout as `width × height` rgb24 (scaled to that size: give the probed size to keep it,
/// or a 16:9 size to undo a stretched export). stdin is closed.
#[must_use]
pub fn still_rgb_command(input: &str, at_secs: f64, width: u32, height: u32) -> Command {
    let mut cmd = Command::new(FFMPEG);
    cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin"]);
    if at_secs > 0.0 {
        cmd.args(["-ss", &format!("{at_secs:.3}")]);
    }
    cmd.args(["-i", input])
        .args([
            "-frames:v",
            "1",
            "-vf",
            &format!("scale={width}:{height}:flags=area"),
        ])
        .args(["-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    cmd
}

/// The layout of the raw frames an encoder reads on stdin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RawPixels {
    Rgb24,
    Rgba,
}

impl RawPixels {
    fn ffmpeg_name(self) -> &'static str {
        match self {
            Self::Rgb24 => "rgb24",
            Self::Rgba => "rgba",
        }
    }
}

/// An H.264 encode of raw frames written to the encoder's stdin.
#[derive(Debug, Clone, PartialEq)]
pub struct Encode<'a> {
    /// The ffmpeg program (default [`FFMPEG`]).
    pub program: &'a OsStr,
    pub pixels: RawPixels,
    pub width: u32,
    pub height: u32,
    /// Frames per second of the input (and of the output).
    pub fps: f64,
    /// libx264 `-preset`.
    pub preset: &'a str,
    /// libx264 `-crf` (0–51, lower is better).
    pub crf: u8,
    /// Moves the index to the front so a browser can play the file while it downloads; also
    /// pins the output rate.
    pub faststart: bool,
}

impl Encode<'_> {
    /// A veryfast, crf 23 encode on `ffmpeg` from `PATH`.
    #[must_use]
    pub fn new(pixels: RawPixels, width: u32, height: u32, fps: f64) -> Self {
        Self {
            program: OsStr::new(FFMPEG),
            pixels,
            width,
            height,
            fps,
            preset: "veryfast",
            crf: 23,
            faststart: false,
        }
    }

    /// `ffmpeg` encoding the raw frames on stdin (piped) to `out` (overwritten), yuv420p H.264.
    /// stdout is closed and stderr piped (its last lines say why an encode failed).
    #[must_use]
    pub fn command(&self, out: &Path) -> Command {
        let (size, fps, crf) = (
            format!("{}x{}", self.width, self.height),
            self.fps.to_string(),
            self.crf.to_string(),
        );
        let mut cmd = Command::new(self.program);
        cmd.args(["-hide_banner", "-loglevel", "error", "-nostdin", "-y"])
            .args(["-f", "rawvideo", "-pix_fmt", self.pixels.ffmpeg_name()])
            .args(["-s", &size, "-r", &fps, "-i", "-"])
            .args(["-c:v", "libx264", "-preset", self.preset, "-crf", &crf])
            .args(["-pix_fmt", "yuv420p"]);
        if self.faststart {
            cmd.args(["-r", &fps, "-movflags", "+faststart"]);
        }
        cmd.arg(out)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        cmd
    }
}

#[cfg(test)]
mod tests;
