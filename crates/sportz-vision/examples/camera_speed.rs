//! Per-frame camera tracker speed on real decoded video: raw RGB24 frames on stdin.
//!
//! ```text
//! ffmpeg -v error -i match.mp4 -f rawvideo -pix_fmt rgb24 - \
//!   | cargo run --release -p sportz-vision --example camera_speed -- 1280 720
//! ```
//! `--work-width N` reads frames at most N wide (0: as they are; default the tracker's).
//! `--verbose` prints each frame's camera source or why it has none. `--boxes FILE` masks each
//! frame's people as the tracker does in `track` (boxes from a synth `truth.jsonl` or a `track`
//! JSONL); `--truth truth.jsonl` scores each frame's camera against the synth's (mean distance
//! of the pitch points every 5 m in view) and sums up how many frames were over 1 and 2 m off.
//! Prints the per-frame time of frame-to-frame tracking (median, p95, max), of
//! (re)initialisations, their totals, and how many frames had a camera. It runs without the
//! line model (`track` has it), so a frame's camera can differ from `track`'s.

mod common;

use std::io::Read;
use std::time::Instant;

use sportz_vision::RgbImage;
use sportz_vision::camera::{CameraTracker, TrackerSettings};
use sportz_vision::pitch::Homography;

fn pct(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (w, h): (u32, u32) = match (args.get(1), args.get(2)) {
        (Some(w), Some(h)) => (w.parse().expect("width"), h.parse().expect("height")),
        _ => {
            eprintln!("usage: camera_speed WIDTH HEIGHT < frames.rgb24");
            std::process::exit(2);
        }
    };
    let verbose = args.iter().any(|a| a == "--verbose");
    let mut buf = vec![0u8; (w * h * 3) as usize];
    let mut settings = TrackerSettings::default();
    if let Some(i) = args.iter().position(|a| a == "--work-width") {
        settings.work_width = args
            .get(i + 1)
            .and_then(|v| v.parse().ok())
            .expect("--work-width takes a number of pixels");
    }
    let boxes: Vec<Vec<sportz_vision::BBox>> = args
        .iter()
        .position(|a| a == "--boxes")
        .map(|i| read_boxes(args.get(i + 1).expect("--boxes takes a JSONL file")))
        .unwrap_or_default();
    let truth: Vec<Option<Homography>> = args
        .iter()
        .position(|a| a == "--truth")
        .map(|i| read_truth(args.get(i + 1).expect("--truth takes a synth truth.jsonl")))
        .unwrap_or_default();
    let mut errors: Vec<f64> = Vec::new();
    let mut tracker = CameraTracker::new(settings, None);
    let (mut follow, mut init) = (Vec::new(), Vec::new());
    let (mut frames, mut with_camera) = (0u64, 0u64);
    let mut stdin = std::io::stdin().lock();
    while stdin.read_exact(&mut buf).is_ok() {
        let img = RgbImage::new(&buf, w, h).expect("frame size");
        let t = Instant::now();
        let step = tracker.update(&img, boxes.get(frames as usize).map_or(&[], Vec::as_slice));
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        let initialised = step
            .estimate
            .as_ref()
            .is_some_and(|e| e.source == sportz_contract::CameraSource::Auto)
            || matches!(step.missing, Some(sportz_vision::camera::NoCamera::Init(_)));
        if initialised {
            init.push(ms)
        } else {
            follow.push(ms)
        }
        let error = match (&step.estimate, truth.get(frames as usize)) {
            (Some(e), Some(Some(t))) => {
                common::grid_error(t, &e.calibration.pitch_from_image, w, h)
            }
            _ => None,
        };
        errors.extend(error);
        if verbose {
            let off = error.map_or(String::new(), |e| format!(", {e:.2} m off"));
            match (&step.estimate, &step.missing) {
                (Some(e), _) => {
                    eprintln!(
                        "{frames}: {:?} {:.2} ({ms:.1} ms{off})",
                        e.source, e.confidence
                    )
                }
                (None, Some(why)) => eprintln!("{frames}: none: {why} ({ms:.1} ms)"),
                (None, None) => eprintln!("{frames}: none"),
            }
        }
        frames += 1;
        with_camera += u64::from(step.estimate.is_some());
    }
    let (follow_s, init_s) = (
        follow.iter().sum::<f64>() / 1000.0,
        init.iter().sum::<f64>() / 1000.0,
    );
    println!(
        "{frames} frames {w}x{h}, {with_camera} with a camera; camera time {:.2} s in all ({follow_s:.2} s following, {init_s:.2} s in searches)",
        follow_s + init_s
    );
    println!(
        "frame-to-frame: median {:.2} ms, p95 {:.2} ms, max {:.2} ms over {} frames\ninitialisation: median {:.1} ms, max {:.1} ms over {} attempts",
        pct(&mut follow.clone(), 0.5),
        pct(&mut follow.clone(), 0.95),
        pct(&mut follow, 1.0),
        follow.len(),
        pct(&mut init.clone(), 0.5),
        pct(&mut init.clone(), 1.0),
        init.len()
    );
    if !truth.is_empty() {
        let n = errors.len();
        let over = |m: f64| errors.iter().filter(|e| **e > m).count();
        println!(
            "against the truth: {n} frames scored, mean {:.2} m, p95 {:.2} m, {} over 1 m, {} over 2 m",
            errors.iter().sum::<f64>() / n.max(1) as f64,
            pct(&mut errors.clone(), 0.95),
            over(1.0),
            over(2.0)
        );
    }
}

/// Each frame's true pitch → image mapping from a synth `truth.jsonl` (`None`: no pitch).
fn read_truth(path: &str) -> Vec<Option<Homography>> {
    let text = std::fs::read_to_string(path).expect("--truth: a readable truth.jsonl");
    text.lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).expect("--truth: JSON lines");
            Homography::from_matrix(common::matrix(&v["camera"]["image_from_pitch"])?).ok()
        })
        .collect()
}

/// Each frame's people boxes from a JSONL: a synth `truth.jsonl` (`objects[].bbox`, `null` when
/// not drawn) or a `track` output (`data.players[].bbox` of its frame messages), in frame order.
fn read_boxes(path: &str) -> Vec<Vec<sportz_vision::BBox>> {
    let text = std::fs::read_to_string(path).expect("--boxes: a readable JSONL file");
    let mut frames: Vec<Vec<sportz_vision::BBox>> = Vec::new();
    for line in text.lines() {
        let v: serde_json::Value = serde_json::from_str(line).expect("--boxes: one JSON a line");
        let (n, people) = if let Some(objects) = v["objects"].as_array() {
            (v["frame_number"].as_u64(), objects.clone())
        } else if v["type"] == "frame" {
            let d = &v["data"];
            (
                d["frame_number"].as_u64(),
                d["players"].as_array().cloned().unwrap_or_default(),
            )
        } else {
            continue;
        };
        let Some(n) = n else { continue };
        let n = n as usize;
        if frames.len() <= n {
            frames.resize_with(n + 1, Vec::new);
        }
        frames[n] = people
            .iter()
            .filter_map(|o| common::bbox(&o["bbox"]))
            .collect();
    }
    frames
}
