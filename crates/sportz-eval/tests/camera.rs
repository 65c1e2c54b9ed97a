//! The camera part of `evaluate`: predicted `frame.data.camera` against real synth truth
//! cameras, with hand-computed answers (exact copies, known shifts, missing cameras, close-ups,
//! cuts, truth written before shots existed).

mod common;

use common::*;
use sportz_contract::{CameraSource, CoordinateMode, FrameCamera, FrameData};
use sportz_eval::{EvalOptions, Report, evaluate, parse_truth_jsonl};
use sportz_synth::{FrameTruth, Mat3, Shot, SynthConfig, SynthMatch};

const W: u32 = 320;
const H: u32 = 180;

/// `n` truth frames of a real match at 320×180, 5 fps.
fn synth(seed: u64, n: u64, cuts: bool) -> Vec<FrameTruth> {
    let cfg = SynthConfig {
        width: W,
        height: H,
        fps: 5,
        duration_secs: n as f64 / 5.0,
        scoreboard: false,
        motion_blur: false,
        noise: false,
        cuts,
        ..SynthConfig::default()
    };
    SynthMatch::new(seed, cfg)
        .unwrap()
        .map(|(_, t)| t)
        .collect()
}

fn flat(m: &Mat3) -> [f64; 9] {
    [
        m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[1][2], m[2][0], m[2][1], m[2][2],
    ]
}

/// The truth's `pitch_from_image` followed by a shift of the pitch by `(dx, dy)` metres.
fn shifted(t: &FrameTruth, dx: f64, dy: f64) -> [f64; 9] {
    let h = t.camera.pitch_from_image;
    let mut m = h;
    for c in 0..3 {
        m[0][c] = h[0][c] + dx * h[2][c];
        m[1][c] = h[1][c] + dy * h[2][c];
    }
    flat(&m)
}

/// A predicted frame (no players, no ball) aligned with truth frame `t`, with `camera`.
fn pred(t: &FrameTruth, camera: Option<[f64; 9]>) -> FrameData {
    let mut f = pred_frame_at(t.frame_number, 5.0, Vec::new(), None);
    f.width = W;
    f.height = H;
    f.camera = camera.map(|image_to_pitch| FrameCamera {
        image_to_pitch,
        source: CameraSource::Auto,
        confidence: 0.9,
    });
    if f.camera.is_none() {
        f.coordinate_mode = CoordinateMode::Pixel;
    }
    f
}

fn run(truth: &[FrameTruth], pred: &[FrameData]) -> Report {
    let (t, p) = load(truth, &[], pred, &[]);
    evaluate(&t, &p, &EvalOptions::default()).unwrap()
}

#[test]
fn the_truth_camera_scores_zero_metres_and_every_frame() {
    let truth = synth(7, 20, false);
    let p: Vec<_> = truth
        .iter()
        .map(|t| pred(t, Some(flat(&t.camera.pitch_from_image))))
        .collect();
    let c = run(&truth, &p).camera;
    assert_eq!(
        (
            c.pitch_visible_frames,
            c.calibrated_frames,
            c.error_frames,
            c.accurate_frames
        ),
        (20, 20, 20, 20)
    );
    assert_eq!(c.calibrated_share, Some(1.0));
    assert_eq!(c.accurate_share, Some(1.0));
    assert!(c.mean_error_m.unwrap() < 1e-6, "{c:?}");
    assert!(c.p95_error_m.unwrap() < 1e-6, "{c:?}");
    assert_eq!((c.no_pitch_frames, c.no_pitch_with_camera_share), (0, None));
    assert_eq!((c.cut_frames, c.cut_pixel_mode_share), (0, None));
}

#[test]
fn a_shifted_camera_scores_its_shift() {
    let truth = synth(7, 10, false);
    // 3-4-5: every grid point lands 5 m away.
    let p: Vec<_> = truth
        .iter()
        .map(|t| pred(t, Some(shifted(t, 3.0, 4.0))))
        .collect();
    let c = run(&truth, &p).camera;
    assert_close(c.mean_error_m.unwrap(), 5.0, "mean error");
    assert_close(c.p95_error_m.unwrap(), 5.0, "p95 error");
    assert_eq!(
        (c.calibrated_share, c.accurate_share),
        (Some(1.0), Some(0.0))
    );
    // Half the frames 0.5 m off, half 2 m off: the mean is 1.25 m, p95 2 m, half within 1 m.
    let p: Vec<_> = truth
        .iter()
        .enumerate()
        .map(|(k, t)| {
            let d = if k % 2 == 0 { 0.5 } else { 2.0 };
            pred(t, Some(shifted(t, 0.0, d)))
        })
        .collect();
    let c = run(&truth, &p).camera;
    assert_close(c.mean_error_m.unwrap(), 1.25, "mean error");
    assert_close(c.p95_error_m.unwrap(), 2.0, "p95 error");
    assert_eq!(c.accurate_frames, 5);
    assert_eq!(c.accurate_share, Some(0.5));
}

#[test]
fn frames_without_a_camera_count_as_uncalibrated() {
    let truth = synth(7, 10, false);
    let p: Vec<_> = truth
        .iter()
        .enumerate()
        .map(|(k, t)| pred(t, (k < 4).then(|| flat(&t.camera.pitch_from_image))))
        .collect();
    let c = run(&truth, &p).camera;
    assert_eq!(
        (c.pitch_visible_frames, c.calibrated_frames, c.error_frames),
        (10, 4, 4)
    );
    assert_eq!(c.calibrated_share, Some(0.4));
    assert_eq!(c.accurate_share, Some(0.4));
    assert!(c.mean_error_m.unwrap() < 1e-6);
    // No camera at all: nothing calibrated, no error to average.
    let p: Vec<_> = truth.iter().map(|t| pred(t, None)).collect();
    let c = run(&truth, &p).camera;
    assert_eq!(
        (c.calibrated_share, c.accurate_share),
        (Some(0.0), Some(0.0))
    );
    assert_eq!((c.mean_error_m, c.p95_error_m), (None, None));
}

#[test]
fn close_ups_given_a_camera_are_wrong_and_cuts_left_in_pixel_mode_are_counted() {
    // A real match with cuts: the predictor copies the truth camera on every frame but drops
    // to pixel mode (no camera) on cut frames.
    let truth = synth(6, 500, true);
    let close = truth
        .iter()
        .filter(|t| t.camera.shot == Shot::CloseUp)
        .count() as u64;
    let cuts = truth.iter().filter(|t| t.camera.cut).count() as u64;
    assert!(close > 0 && cuts >= 4, "close-ups {close}, cuts {cuts}");
    let p: Vec<_> = truth
        .iter()
        .map(|t| pred(t, (!t.camera.cut).then(|| flat(&t.camera.pitch_from_image))))
        .collect();
    let r = run(&truth, &p);
    let c = &r.camera;
    let close_cuts = truth
        .iter()
        .filter(|t| t.camera.cut && t.camera.shot == Shot::CloseUp)
        .count() as u64;
    assert_eq!(c.no_pitch_frames, close);
    assert_eq!(c.no_pitch_with_camera, close - close_cuts);
    assert_eq!(c.pitch_visible_frames, 500 - close);
    assert_eq!(c.calibrated_frames, 500 - close - (cuts - close_cuts));
    assert_eq!(c.accurate_frames, c.calibrated_frames);
    assert_eq!((c.cut_frames, c.cut_frames_pixel_mode), (cuts, cuts));
    assert_eq!(c.cut_pixel_mode_share, Some(1.0));
    // A predictor that knows close-ups have no pitch: none wrongly calibrated.
    let p: Vec<_> = truth
        .iter()
        .map(|t| {
            pred(
                t,
                t.camera
                    .pitch_visible
                    .then(|| flat(&t.camera.pitch_from_image)),
            )
        })
        .collect();
    let c = run(&truth, &p).camera;
    assert_eq!(
        (c.no_pitch_with_camera, c.no_pitch_with_camera_share),
        (0, Some(0.0))
    );
    assert_eq!(
        (c.calibrated_share, c.accurate_share),
        (Some(1.0), Some(1.0))
    );
    assert_eq!(c.cut_frames_pixel_mode, close_cuts);
    // The table and the JSON name them.
    let table = r.table();
    for heading in [
        "camera",
        "pitch-visible frames",
        "p95 error",
        "within 1 m",
        "close-up frames",
        "in pixel mode",
    ] {
        assert!(table.contains(heading), "{heading} in\n{table}");
    }
    let json = serde_json::to_value(&r).unwrap();
    for key in [
        "pitch_visible_frames",
        "calibrated_share",
        "mean_error_m",
        "p95_error_m",
        "accurate_share",
        "no_pitch_with_camera_share",
        "cut_pixel_mode_share",
    ] {
        assert!(json["camera"].get(key).is_some(), "camera.{key} in {json}");
    }
}

#[test]
fn truth_written_before_shots_existed_counts_every_frame_as_pitch_visible() {
    let truth = synth(6, 500, true);
    let old: String = truth
        .iter()
        .map(|t| {
            let mut v = serde_json::to_value(t).unwrap();
            let cam = v["camera"].as_object_mut().unwrap();
            for key in ["shot", "cut", "pitch_visible"] {
                cam.remove(key);
            }
            v.to_string() + "\n"
        })
        .collect();
    let frames = parse_truth_jsonl(old.as_bytes(), "truth.jsonl").unwrap();
    let p: Vec<_> = frames.iter().map(|t| pred(t, None)).collect();
    let c = run(&frames, &p).camera;
    assert_eq!(
        (c.pitch_visible_frames, c.no_pitch_frames, c.cut_frames),
        (500, 0, 0)
    );
    assert_eq!(c.calibrated_share, Some(0.0));
}
