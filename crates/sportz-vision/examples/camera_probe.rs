//! Why a synthetic clip's frames have no camera, or a wrong one: the true camera is scored on
//! each probed frame's lines, then the frame is searched as the tracker's alternate-angle step
//! would (around where the main camera last looked), from the true position, and from the
//! main-camera stands, and the cameras found are compared with the truth.
//!
//! ```text
//! ffmpeg -v error -i s5151/match.mp4 -f rawvideo -pix_fmt rgb24 - \
//!   | cargo run --release -p sportz-vision --example camera_probe -- 1280 720 s5151/truth.jsonl [SHOT] [EVERY]
//! ```
//! `SHOT`: `alternate` (default), `main` or `all`; `EVERY`: probe every n-th frame of such shots
//! (default 10); `PROBE_FROM`/`PROBE_TO`: only frames in that range; `--no-boxes`: search without masking the people's true boxes. One line a frame: the true camera, then each search's camera and its grid error
//! in metres, or why it found none.

mod common;

use std::io::{BufRead, Read};

use sportz_vision::camera::init::{explained_by, looks_at};
use sportz_vision::camera::model::samples;
use sportz_vision::camera::tracker::alternate_config;
use sportz_vision::camera::{
    BroadcastCamera, InitConfig, LineFit, RefineConfig, fit_to_lines, initialise,
};
use sportz_vision::pitch::Homography;
use sportz_vision::{BBox, Point, RgbImage};

struct Truth {
    shot: String,
    image_from_pitch: [[f64; 3]; 3],
    position: [f64; 3],
    fov: f64,
    target: (f64, f64),
    /// The people's drawn boxes (the tracker masks detections the same way).
    boxes: Vec<BBox>,
}

fn read_truth(path: &str) -> Vec<Truth> {
    let f = std::fs::File::open(path).expect("truth.jsonl");
    std::io::BufReader::new(f)
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(&l.expect("line")).expect("json");
            let c = &v["camera"];
            let p = |i: usize| c["position_m"][i].as_f64().expect("position");
            Truth {
                shot: c["shot"].as_str().unwrap_or("main").to_owned(),
                image_from_pitch: common::matrix(&c["image_from_pitch"]).expect("matrix"),
                position: [p(0), p(1), p(2)],
                fov: c["fov_deg"].as_f64().unwrap_or(0.0),
                target: (
                    c["target"]["x"].as_f64().unwrap_or(0.0),
                    c["target"]["y"].as_f64().unwrap_or(0.0),
                ),
                boxes: v["objects"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|o| common::bbox(&o["bbox"]))
                    .collect(),
            }
        })
        .collect()
}

/// The true camera: level, at its position, aimed at its target on the ground.
fn aimed(t: &Truth, w: u32, h: u32) -> BroadcastCamera {
    let pos = t.position;
    let (dx, dy) = (t.target.0 - pos[0], t.target.1 - pos[1]);
    BroadcastCamera {
        position: pos,
        pan: dx.atan2(-dy),
        tilt: pos[2].atan2(dx.hypot(dy)),
        roll: 0.0,
        focal_px: f64::from(w) / 2.0 / (t.fov.to_radians() / 2.0).tan(),
        width: w,
        height: h,
    }
}

/// Mean distance (m) over the pitch grid points the true camera shows.
fn grid_error(truth: &Truth, fit: &LineFit, w: u32, h: u32) -> f64 {
    let Ok(truth_h) = Homography::from_matrix(truth.image_from_pitch) else {
        return f64::NAN;
    };
    let Some(pitch_from_image) = fit
        .camera
        .image_from_pitch()
        .ok()
        .and_then(|m| m.inverse().ok())
    else {
        return f64::INFINITY;
    };
    common::grid_error(&truth_h, &pitch_from_image, w, h).unwrap_or(f64::NAN)
}

fn describe(
    r: &Result<LineFit, sportz_vision::camera::InitFailure>,
    t: &Truth,
    w: u32,
    h: u32,
) -> String {
    match r {
        Ok(fit) => {
            let c = &fit.camera;
            let view = looks_at(c).map_or((f64::NAN, f64::NAN), |p| (p.x, p.y));
            format!(
                "at [{:.0} {:.0} {:.0}] fov {:.0} looks ({:.0},{:.0}) support {:.2} -> {:.2} m",
                c.position[0],
                c.position[1],
                c.position[2],
                c.fov_deg(),
                view.0,
                view.1,
                fit.observed_support(),
                grid_error(t, fit, w, h)
            )
        }
        Err(e) => format!("none: {e}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(w), Some(h), Some(truth)) = (args.get(1), args.get(2), args.get(3)) else {
        eprintln!("usage: camera_probe WIDTH HEIGHT truth.jsonl [alternate|main|all] [EVERY]");
        std::process::exit(2);
    };
    let (w, h): (u32, u32) = (w.parse().expect("width"), h.parse().expect("height"));
    let no_boxes = args.iter().any(|a| a == "--no-boxes");
    let args: Vec<&String> = args.iter().filter(|a| *a != "--no-boxes").collect();
    let shot = args.get(4).map_or("alternate", |s| s.as_str());
    let every: usize = args.get(5).map_or(10, |s| s.parse().expect("EVERY"));
    let boxes_of = |t: &Truth| {
        if no_boxes {
            Vec::new()
        } else {
            t.boxes.clone()
        }
    };
    let truth = read_truth(truth);
    let (fine, coarse) = (samples(1.0), samples(2.0));
    let mut buf = vec![0u8; (w * h * 3) as usize];
    let mut stdin = std::io::stdin().lock();
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let (from, to) = (env("PROBE_FROM", 0), env("PROBE_TO", usize::MAX));
    let mut in_shot = 0usize;
    let mut last_main = Point::new(52.5, 34.0);
    for (n, t) in truth.iter().enumerate() {
        if stdin.read_exact(&mut buf).is_err() {
            break;
        }
        if t.shot == "main" {
            last_main = Point::new(t.target.0, t.target.1);
        }
        if !(from..=to).contains(&n) {
            continue;
        }
        if shot != "all" && t.shot != shot {
            in_shot = 0;
            continue;
        }
        in_shot += 1;
        if !(in_shot - 1).is_multiple_of(every) {
            continue;
        }
        let img = RgbImage::new(&buf, w, h).expect("frame size");
        let stands = alternate_config(last_main, &InitConfig::default());
        // the true position, the finer grid of the alternate search
        let exact = InitConfig {
            positions: vec![t.position],
            position_slack: [1.0, 1.0, 1.0],
            grid_steps: 10.0,
            ..InitConfig::default()
        };
        let main = InitConfig::default();
        let truth_cam = aimed(t, w, h);
        let scored = fit_to_lines(
            &img,
            &truth_cam,
            &fine,
            &boxes_of(t),
            &RefineConfig {
                iterations: 0,
                ..RefineConfig::default()
            },
        );
        let explained = explained_by(&img, &boxes_of(t), &truth_cam, &main);
        println!(
            "{n} {} true [{:.0} {:.0} {:.0}] fov {:.0} looks ({:.0},{:.0})",
            t.shot, t.position[0], t.position[1], t.position[2], t.fov, t.target.0, t.target.1
        );
        println!(
            "  truth camera: {} of {} observable samples on lines ({:.2}), {} markings, explains {:.0} % of the line pixels",
            scored.matched_observable,
            scored.observable,
            scored.observed_support(),
            scored.markings,
            explained * 100.0
        );
        for (name, cfg) in [("stands", &stands), ("exact", &exact), ("main", &main)] {
            let started = std::time::Instant::now();
            let r = initialise(&img, &boxes_of(t), &fine, &coarse, cfg);
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            println!("  {name} ({ms:.0} ms): {}", describe(&r, t, w, h));
        }
    }
}
