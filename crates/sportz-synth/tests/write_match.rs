//! `write_match` against the real ffmpeg: the video has the right size and frame count, the
//! truth one line per frame, and the calibration file reads as the contract's point pairs.

use std::path::{Path, PathBuf};
use std::process::Command;

use sportz_contract::worker::PointPair;
use sportz_synth::{
    EventTruth, FfmpegOptions, FrameTruth, SynthConfig, SynthError, write_match, write_match_with,
};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("sportz-synth-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn cfg() -> SynthConfig {
    SynthConfig {
        width: 320,
        height: 180,
        fps: 25,
        duration_secs: 3.0,
        scoreboard: true,
        motion_blur: true,
        noise: true,
    }
}

fn ffprobe(video: &Path) -> String {
    let out = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=codec_name,width,height,nb_read_frames,pix_fmt",
            "-of",
            "csv=p=0",
        ])
        .arg(video)
        .output()
        .expect("ffprobe runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn writes_video_truth_events_and_calibration() {
    let dir = scratch("write");
    let mut calls = Vec::new();
    let summary = write_match(&cfg(), 42, &dir, |p| calls.push(p)).expect("write_match");
    assert_eq!(summary.frames, 75);
    assert_eq!(calls.len(), 75);
    assert_eq!(
        calls.last().map(|p| (p.frames_done, p.frames_total)),
        Some((75, 75))
    );

    assert_eq!(ffprobe(&dir.join("match.mp4")), "h264,320,180,yuv420p,75");

    let truth = std::fs::read_to_string(dir.join("truth.jsonl")).unwrap();
    let frames: Vec<FrameTruth> = truth
        .lines()
        .map(|l| serde_json::from_str(l).expect("a FrameTruth per line"))
        .collect();
    assert_eq!(frames.len(), 75);
    for (n, f) in frames.iter().enumerate() {
        assert_eq!(f.frame_number, n as u64);
        assert!((f.video_timestamp - n as f64 / 25.0).abs() < 1e-9);
        assert_eq!(f.objects.len(), 23);
    }

    let events: Vec<EventTruth> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("events.json")).unwrap()).unwrap();
    let in_frames: Vec<EventTruth> = frames.iter().flat_map(|f| f.events.clone()).collect();
    assert!(!events.is_empty());
    assert_eq!(events, in_frames);
    assert_eq!(summary.events as usize, events.len());

    let text = std::fs::read_to_string(dir.join("calibration.json")).unwrap();
    let pairs: Vec<PointPair> =
        serde_json::from_str(&text).expect("calibration reads as PointPairs");
    assert!(pairs.len() >= 4, "{pairs:?}");
    assert_eq!(pairs.len() as u32, summary.calibration_points);

    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("meta.json")).unwrap()).unwrap();
    assert_eq!(meta["seed"], 42);
    assert_eq!(meta["frames"], 75);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_ffmpeg_is_named() {
    let dir = scratch("missing");
    let ff = FfmpegOptions {
        program: "/nonexistent/ffmpeg".into(),
        ..FfmpegOptions::default()
    };
    let err = write_match_with(&cfg(), 1, &dir, &ff, |_| {}).unwrap_err();
    assert!(matches!(err, SynthError::FfmpegMissing { .. }), "{err}");
    assert!(err.to_string().contains("/nonexistent/ffmpeg"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_failing_ffmpeg_reports_its_stderr() {
    let dir = scratch("failing");
    // An encoder ffmpeg does not know: it exits with an error on stderr.
    let ff = FfmpegOptions {
        preset: "no-such-preset".into(),
        ..FfmpegOptions::default()
    };
    let err = write_match_with(&cfg(), 1, &dir, &ff, |_| {}).unwrap_err();
    let SynthError::FfmpegFailed { stderr_tail, .. } = &err else {
        panic!("{err}")
    };
    assert!(!stderr_tail.trim().is_empty(), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
