//! Per-frame camera tracker speed on real decoded video: raw RGB24 frames on stdin.
//!
//! ```text
//! ffmpeg -v error -i match.mp4 -f rawvideo -pix_fmt rgb24 - \
//!   | cargo run --release -p sportz-vision --example camera_speed -- 1280 720
//! ```
//! `--work-width N` reads frames at most N wide (0: as they are; default the tracker's).
//! `--verbose` prints each frame's camera source or why it has none. Prints the per-frame time of frame-to-frame tracking (median, p95, max), of
//! (re)initialisations, their totals, and how many frames had a camera.

use std::io::Read;
use std::time::Instant;

use sportz_vision::RgbImage;
use sportz_vision::camera::{CameraTracker, TrackerSettings};

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
    let mut tracker = CameraTracker::new(settings, None);
    let (mut follow, mut init) = (Vec::new(), Vec::new());
    let (mut frames, mut with_camera) = (0u64, 0u64);
    let mut stdin = std::io::stdin().lock();
    while stdin.read_exact(&mut buf).is_ok() {
        let img = RgbImage::new(&buf, w, h).expect("frame size");
        let t = Instant::now();
        let step = tracker.update(&img, &[]);
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
        if verbose {
            match (&step.estimate, &step.missing) {
                (Some(e), _) => {
                    eprintln!("{frames}: {:?} {:.2} ({ms:.1} ms)", e.source, e.confidence)
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
}
