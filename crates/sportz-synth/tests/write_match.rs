//! `write_match` against the real ffmpeg: the video has the right size and frame count, the
//! truth one line per frame, and the calibration file reads as the contract's point pairs.

use std::path::{Path, PathBuf};

use sportz_contract::worker::PointPair;
use sportz_synth::{
    EventTruth, FfmpegOptions, FrameTruth, SynthConfig, SynthError, SynthMatch, write_match,
    write_match_with,
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
        cuts: true,
        ..SynthConfig::default()
    }
}

fn ffprobe(video: &Path) -> String {
    let v = sportz_testkit::video_facts(video);
    format!(
        "{},{},{},{},{}",
        v.codec, v.width, v.height, v.pix_fmt, v.frames
    )
}

fn same_json(a: &serde_json::Value, b: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * x.abs().max(y.abs()).max(1.0),
                "{at}: {x} vs {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                same_json(p, q, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            assert_eq!(
                x.keys().collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, p) in x {
                same_json(p, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(a, b, "{at}"),
    }
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

    // The files read back to what the in-memory renderer gives (serde_json parses floats to
    // within an ulp, so numbers are compared with a tolerance).
    let in_memory: Vec<FrameTruth> = SynthMatch::new(42, cfg())
        .unwrap()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(in_memory.len(), frames.len());
    for (line, t) in truth.lines().zip(&in_memory) {
        let file: serde_json::Value = serde_json::from_str(line).unwrap();
        same_json(
            &file,
            &serde_json::to_value(t).unwrap(),
            &format!("frame {}", t.frame_number),
        );
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
