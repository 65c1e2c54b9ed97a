//! Test videos made and checked with the real ffmpeg/ffprobe (`scripts/setup` installs them):
//! clips from ffmpeg's `testsrc2` pattern, a cut of a real clip, one decoded frame, and what
//! ffprobe counts in a written video. Production command lines live in `sportz-media`; these
//! are the test-only ones.

use std::path::{Path, PathBuf};
use std::process::Command;

/// A `testsrc2` clip: moving colour bars and a counter, H.264 yuv420p.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TestClip {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub secs: u32,
    /// Keyframe interval in frames (`None`: the encoder's default).
    pub gop: Option<u32>,
    /// Target bitrate such as `"400k"` (`None`: constant quality).
    pub bitrate: Option<&'static str>,
    /// An MPEG-TS stream (what live HTTP/HLS sources serve) instead of MP4.
    pub mpegts: bool,
    /// libx264 preset.
    pub preset: &'static str,
}

impl TestClip {
    /// `secs` seconds at `fps`, 320×240, a keyframe every 10 frames, ultrafast, MP4.
    #[must_use]
    pub fn new(secs: u32, fps: u32) -> Self {
        Self {
            width: 320,
            height: 240,
            fps,
            secs,
            gop: Some(10),
            bitrate: None,
            mpegts: false,
            preset: "ultrafast",
        }
    }

    /// Writes the clip to `out` and returns its path.
    ///
    /// # Panics
    /// When ffmpeg is missing or fails.
    pub fn make(&self, out: &Path) -> PathBuf {
        let mut cmd = ffmpeg_writing();
        cmd.args(["-f", "lavfi", "-i"])
            .arg(format!(
                "testsrc2=size={}x{}:rate={}:duration={}",
                self.width, self.height, self.fps, self.secs
            ))
            .args(["-c:v", "libx264", "-preset", self.preset]);
        if let Some(b) = self.bitrate {
            cmd.args(["-b:v", b]);
        }
        if let Some(g) = self.gop {
            cmd.args(["-g", &g.to_string()]);
        }
        cmd.args(["-pix_fmt", "yuv420p"]);
        if self.mpegts {
            cmd.args(["-f", "mpegts"]);
        }
        run(cmd.arg(out), out);
        out.to_owned()
    }
}

/// `secs` seconds of `clip` from `from` seconds, re-encoded (ultrafast, no audio) to `out`.
///
/// # Panics
/// When ffmpeg is missing or fails.
pub fn cut_clip(clip: &Path, out: &Path, from: u32, secs: u32) -> PathBuf {
    let mut cmd = ffmpeg_writing();
    cmd.args(["-ss", &from.to_string(), "-i"])
        .arg(clip)
        .args([
            "-t",
            &secs.to_string(),
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-an",
        ])
        .arg(out);
    run(&mut cmd, out);
    out.to_owned()
}

/// The frame of `clip` at `secs`, decoded to rgb24 bytes at the clip's own size.
///
/// # Panics
/// When ffmpeg is missing or fails.
#[must_use]
pub fn frame_rgb(clip: &Path, secs: f64) -> Vec<u8> {
    let out = Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-ss"])
        .arg(secs.to_string())
        .arg("-i")
        .arg(clip)
        .args(["-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        .output()
        .expect("ffmpeg is installed (scripts/setup)");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// What ffprobe finds in a written video's first video stream, every frame decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VideoFacts {
    pub codec: String,
    pub width: u64,
    pub height: u64,
    pub pix_fmt: String,
    /// Frames actually decoded (`-count_frames`), not the container's claim.
    pub frames: u64,
}

/// Probes `video` with `ffprobe -count_frames`.
///
/// # Panics
/// When ffprobe is missing, fails, or finds no video stream.
#[must_use]
pub fn video_facts(video: &Path) -> VideoFacts {
    let out = Command::new("ffprobe")
        .args(["-v", "error", "-count_frames", "-select_streams", "v:0"])
        .args([
            "-show_entries",
            "stream=codec_name,width,height,pix_fmt,nb_read_frames",
            "-of",
            "default=noprint_wrappers=1",
        ])
        .arg(video)
        .output()
        .expect("ffprobe is installed (scripts/setup)");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "ffprobe {}: {}",
        video.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let field = |k: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(k)?.strip_prefix('='))
            .unwrap_or_else(|| panic!("ffprobe found no {k} in {}: {text}", video.display()))
            .to_owned()
    };
    let num = |k: &str| {
        field(k)
            .parse::<u64>()
            .unwrap_or_else(|e| panic!("ffprobe {k}: {e}"))
    };
    VideoFacts {
        codec: field("codec_name"),
        width: num("width"),
        height: num("height"),
        pix_fmt: field("pix_fmt"),
        frames: num("nb_read_frames"),
    }
}

/// `ffmpeg`, quiet but for errors, overwriting its output.
fn ffmpeg_writing() -> Command {
    let mut cmd = Command::new("ffmpeg");
    cmd.args(["-hide_banner", "-loglevel", "error", "-y"]);
    cmd
}

fn run(cmd: &mut Command, out: &Path) {
    let status = cmd.status().expect("ffmpeg is installed (scripts/setup)");
    assert!(status.success(), "ffmpeg could not make {}", out.display());
}
