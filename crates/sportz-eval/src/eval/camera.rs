//! Camera scoring: how well each predicted frame's own camera (`frame.data.camera`, its
//! `image_to_pitch`) maps the picture onto the pitch, against the truth camera.
//!
//! For a truth frame with `pitch_visible`, the pitch points of a grid ([`GRID_STEP_M`] over
//! 0..=105 × 0..=68) that the true camera sees inside the image (projected with the truth
//! `image_from_pitch` into `[0, width) × [0, height)` of the predicted frame) are mapped back
//! through the predicted `image_to_pitch`; the frame's error is the mean distance in metres to
//! the grid points (each distance capped at [`POINT_ERROR_CAP_M`], which is also the distance of
//! a point the prediction sends to infinity). A frame without a predicted camera is
//! uncalibrated. Truth without the shot fields (written before shots existed) reads as
//! `pitch_visible` everywhere and no cuts.

use sportz_contract::{CoordinateMode, FrameData, PITCH_LENGTH_M, PITCH_WIDTH_M};
use sportz_synth::{FrameTruth, Mat3, apply};

use super::{CameraMetrics, ratio};

/// Spacing of the pitch grid the camera error is measured on, metres.
pub(crate) const GRID_STEP_M: f64 = 5.0;
/// A frame is accurately calibrated when its mean error is at most this many metres.
pub(crate) const ACCURATE_M: f64 = 1.0;
/// The most one grid point can add to a frame's error, metres (about the pitch diagonal).
pub(crate) const POINT_ERROR_CAP_M: f64 = 125.0;

fn mat(m: &[f64; 9]) -> Mat3 {
    [[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]]
}

/// The grid points the true camera sees inside a `width`×`height` image, with their pixels.
fn visible_grid(truth: &FrameTruth, width: u32, height: u32) -> Vec<((f64, f64), (f64, f64))> {
    let (w, h) = (f64::from(width), f64::from(height));
    let nx = (PITCH_LENGTH_M / GRID_STEP_M).round() as u32;
    let ny = (PITCH_WIDTH_M / GRID_STEP_M).floor() as u32;
    let m = &truth.camera.image_from_pitch;
    let w_of = |x: f64, y: f64| m[2][0] * x + m[2][1] * y + m[2][2];
    // The ground point at the image centre is in front of the camera: points whose homogeneous
    // w has the other sign are behind it (and would project through it, mirrored).
    let front = w_of(truth.camera.target.x, truth.camera.target.y).signum();
    let mut out = Vec::new();
    for i in 0..=nx {
        for j in 0..=ny {
            let (x, y) = (f64::from(i) * GRID_STEP_M, f64::from(j) * GRID_STEP_M);
            if w_of(x, y) * front <= 0.0 {
                continue;
            }
            if let Some((u, v)) = apply(m, x, y)
                && (0.0..w).contains(&u)
                && (0.0..h).contains(&v)
            {
                out.push(((x, y), (u, v)));
            }
        }
    }
    out
}

/// The mean distance, metres, between the grid points the true camera sees and where the
/// predicted `image_to_pitch` puts their pixels; `None` when no grid point is in view.
pub(crate) fn frame_error_m(
    truth: &FrameTruth,
    image_to_pitch: &[f64; 9],
    width: u32,
    height: u32,
) -> Option<f64> {
    let grid = visible_grid(truth, width, height);
    if grid.is_empty() {
        return None;
    }
    let h = mat(image_to_pitch);
    let sum: f64 = grid
        .iter()
        .map(|&((x, y), (u, v))| {
            apply(&h, u, v)
                .map(|(px, py)| (px - x).hypot(py - y))
                .filter(|d| d.is_finite())
                .map_or(POINT_ERROR_CAP_M, |d| d.min(POINT_ERROR_CAP_M))
        })
        .sum();
    Some(sum / grid.len() as f64)
}

/// The `q` quantile (nearest rank) of sorted values.
pub(super) fn quantile(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q * sorted.len() as f64).ceil().max(1.0) as usize;
    Some(sorted[rank.min(sorted.len()) - 1])
}

pub(super) fn camera(
    truth: &[FrameTruth],
    pred: &[FrameData],
    pairs: &[(usize, usize)],
) -> CameraMetrics {
    let mut m = CameraMetrics {
        grid_step_m: GRID_STEP_M,
        accurate_within_m: ACCURATE_M,
        pitch_visible_frames: 0,
        calibrated_frames: 0,
        calibrated_share: None,
        error_frames: 0,
        mean_error_m: None,
        p95_error_m: None,
        accurate_frames: 0,
        accurate_share: None,
        no_pitch_frames: 0,
        no_pitch_with_camera: 0,
        no_pitch_with_camera_share: None,
        cut_frames: 0,
        cut_frames_pixel_mode: 0,
        cut_pixel_mode_share: None,
    };
    let mut errors = Vec::new();
    for &(i, j) in pairs {
        let (t, p) = (&truth[i], &pred[j]);
        if t.camera.cut {
            m.cut_frames += 1;
            m.cut_frames_pixel_mode += u64::from(p.coordinate_mode == CoordinateMode::Pixel);
        }
        if !t.camera.pitch_visible {
            m.no_pitch_frames += 1;
            m.no_pitch_with_camera += u64::from(p.camera.is_some());
            continue;
        }
        m.pitch_visible_frames += 1;
        let Some(cam) = &p.camera else { continue };
        m.calibrated_frames += 1;
        if let Some(e) = frame_error_m(t, &cam.image_to_pitch, p.width, p.height) {
            errors.push(e);
            m.accurate_frames += u64::from(e <= ACCURATE_M + 1e-9);
        }
    }
    m.error_frames = errors.len() as u64;
    m.calibrated_share = ratio(m.calibrated_frames, m.pitch_visible_frames);
    m.accurate_share = ratio(m.accurate_frames, m.pitch_visible_frames);
    m.no_pitch_with_camera_share = ratio(m.no_pitch_with_camera, m.no_pitch_frames);
    m.cut_pixel_mode_share = ratio(m.cut_frames_pixel_mode, m.cut_frames);
    if !errors.is_empty() {
        m.mean_error_m = Some(errors.iter().sum::<f64>() / errors.len() as f64);
        errors.sort_by(f64::total_cmp);
        m.p95_error_m = quantile(&errors, 0.95);
    }
    m
}
