//! Writes a match to a folder: the only part of the crate that touches files or processes.
//!
//! - `match.mp4`: H.264 (libx264, yuv420p), from an `ffmpeg` child reading rgb24 frames on stdin
//!   (its command line from `sportz-media`).
//! - `truth.jsonl`: one [`FrameTruth`](crate::FrameTruth) per line, in frame order.
//! - `events.json`: every [`EventTruth`] of the match, in order (the same
//!   events also appear in the `events` of the frame they belong to).
//! - `calibration.json`: the [`CalibrationPoint`](crate::CalibrationPoint)s a user would click on
//!   the first frame (`pixel`, `pitch`, `name`).
//! - `meta.json`: seed, config, frame count, team codes, final score, file names.

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::process::Child;

use serde::{Deserialize, Serialize};

use crate::{EventTruth, RgbImage, Score, Shirts, SynthConfig, SynthError, SynthMatch};

/// How far the writer has got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    pub frames_done: u64,
    pub frames_total: u64,
}

/// How ffmpeg is run.
#[derive(Debug, Clone, PartialEq)]
pub struct FfmpegOptions {
    /// The ffmpeg program (default `ffmpeg`, found on `PATH`).
    pub program: PathBuf,
    /// x264 constant rate factor: 18 is near lossless, 28 shows compression artefacts.
    pub crf: u8,
    /// x264 preset (`ultrafast` … `veryslow`).
    pub preset: String,
}

impl Default for FfmpegOptions {
    fn default() -> Self {
        Self {
            program: PathBuf::from("ffmpeg"),
            crf: 20,
            preset: "veryfast".to_owned(),
        }
    }
}

/// What was written (also saved as `meta.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub seed: u64,
    pub config: SynthConfig,
    pub frames: u64,
    /// Three-letter team codes, as on the scoreboard.
    pub home: String,
    pub away: String,
    pub shirts: Shirts,
    pub final_score: Score,
    pub goals: u32,
    pub events: u32,
    pub calibration_points: u32,
    pub video: PathBuf,
    pub truth: PathBuf,
    pub events_file: PathBuf,
    pub calibration: PathBuf,
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Renders match `seed` with `cfg` into `out_dir` (created if missing) with the default
/// ffmpeg options, calling `progress` after each frame.
pub fn write_match(
    cfg: &SynthConfig,
    seed: u64,
    out_dir: &Path,
    progress: impl FnMut(Progress),
) -> Result<Summary, SynthError> {
    write_match_with(cfg, seed, out_dir, &FfmpegOptions::default(), progress)
}

/// [`write_match`] with explicit ffmpeg options.
pub fn write_match_with(
    cfg: &SynthConfig,
    seed: u64,
    out_dir: &Path,
    ff: &FfmpegOptions,
    mut progress: impl FnMut(Progress),
) -> Result<Summary, SynthError> {
    cfg.validate()?;
    if cfg.frame_count() == 0 {
        return Err(SynthError::InvalidConfig(format!(
            "duration_secs: expected at least one frame, got {} s at {} fps",
            cfg.duration_secs, cfg.fps
        )));
    }
    std::fs::create_dir_all(out_dir).map_err(io_err(out_dir))?;
    let video = out_dir.join("match.mp4");
    let truth_path = out_dir.join("truth.jsonl");
    let events_path = out_dir.join("events.json");
    let calib_path = out_dir.join("calibration.json");
    let meta_path = out_dir.join("meta.json");

    let mut m = SynthMatch::new(seed, cfg.clone())?;
    let total = cfg.frame_count();
    let mut child = spawn_ffmpeg(cfg, ff, &video)?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    let mut stderr = child.stderr.take().expect("stderr is piped");
    let err_thread = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let mut truth_out =
        BufWriter::new(std::fs::File::create(&truth_path).map_err(io_err(&truth_path))?);
    let mut events: Vec<EventTruth> = Vec::new();
    let mut calibration = Vec::new();
    let mut img = RgbImage {
        width: cfg.width,
        height: cfg.height,
        data: Vec::new(),
    };
    let mut pipe_error = None;
    let mut last = None;
    for n in 0..total {
        let truth = m.render_next_into(&mut img);
        if n == 0 {
            calibration = m.calibration();
        }
        if pipe_error.is_none()
            && let Err(e) = stdin.write_all(&img.data)
        {
            pipe_error = Some(e);
        }
        serde_json::to_writer(&mut truth_out, &truth).expect("truth serialises");
        truth_out.write_all(b"\n").map_err(io_err(&truth_path))?;
        events.extend(truth.events.iter().cloned());
        last = Some(truth.score);
        progress(Progress {
            frames_done: n + 1,
            frames_total: total,
        });
        if pipe_error.is_some() {
            break;
        }
    }
    drop(stdin);
    let status = child.wait().map_err(io_err(&video))?;
    let err_bytes = err_thread.join().unwrap_or_default();
    if !status.success() || pipe_error.is_some() {
        let text = String::from_utf8_lossy(&err_bytes);
        let tail: String = text
            .lines()
            .rev()
            .take(12)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
        let tail = if tail.trim().is_empty() {
            pipe_error.map_or_else(|| "no output".to_owned(), |e| e.to_string())
        } else {
            tail
        };
        return Err(SynthError::FfmpegFailed {
            status: status.to_string(),
            stderr_tail: tail,
        });
    }
    truth_out.flush().map_err(io_err(&truth_path))?;

    write_json(&events_path, &events)?;
    write_json(&calib_path, &calibration)?;
    let (home, away) = m.team_codes();
    let final_score = last.unwrap_or_default();
    let summary = Summary {
        seed,
        config: cfg.clone(),
        frames: total,
        home: home.to_owned(),
        away: away.to_owned(),
        shirts: m.shirts(),
        final_score,
        goals: final_score.home + final_score.away,
        events: events.len() as u32,
        calibration_points: calibration.len() as u32,
        video,
        truth: truth_path,
        events_file: events_path,
        calibration: calib_path,
    };
    write_json(&meta_path, &summary)?;
    Ok(summary)
}

fn write_json<T: Serialize + ?Sized>(path: &Path, value: &T) -> Result<(), SynthError> {
    let text = serde_json::to_string_pretty(value).expect("plain data serialises");
    std::fs::write(path, text + "\n").map_err(io_err(path))
}

fn spawn_ffmpeg(cfg: &SynthConfig, ff: &FfmpegOptions, video: &Path) -> Result<Child, SynthError> {
    let encode = sportz_media::Encode {
        program: ff.program.as_os_str(),
        preset: &ff.preset,
        crf: ff.crf,
        faststart: true,
        ..sportz_media::Encode::new(
            sportz_media::RawPixels::Rgb24,
            cfg.width,
            cfg.height,
            f64::from(cfg.fps),
        )
    };
    let mut cmd = encode.command(video);
    cmd.spawn().map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            SynthError::FfmpegMissing {
                program: ff.program.display().to_string(),
            }
        } else {
            SynthError::Io {
                path: ff.program.clone(),
                source: e,
            }
        }
    })
}
