//! The camera's working resolution: a frame wider than [`crate::camera::TrackerSettings::work_width`]
//! is shrunk (area average) before the camera reads it, and what the camera finds is scaled back
//! to the frame's pixels ([`WorkScale`]).
//!
//! The line tests, the search's mask and the motion's corners all measure in pixels; a 1280×720
//! or 1920×1080 broadcast read as it is has lines two or three times as wide as the 640-wide
//! frames they were tuned on, the search's "explained" test then refuses right cameras (the
//! shared real clip upscaled to 720p: a camera on 257 of 664 frames against 557 at 360p), and
//! every per-pixel step costs four to nine times as much.
//!
//! Pixel convention (as in [`crate::camera::lines`]): pixel `i` covers `[i, i + 1)`, so the
//! area average maps work pixel coordinates to frame coordinates by a pure scale.

use crate::image::LineModel;
use crate::pitch::{Calibration, Homography, PitchError};
use crate::{BBox, RgbImage};

use super::broadcast::{BroadcastCamera, Mat3};
use super::init::{InitConfig, InitFailure, initialise_with_lines};
use super::model::LineSample;
use super::refine::LineFit;

/// The width frames are read at by default (the width the line tests and the search were
/// tuned on, and the learned line model's input width).
pub const DEFAULT_WORK_WIDTH: u32 = 640;

/// The size a `width`×`height` frame is read at for at most `max_width` columns (0: no limit),
/// or `None` when it is read as it is.
#[must_use]
pub fn work_size(width: u32, height: u32, max_width: u32) -> Option<(u32, u32)> {
    if max_width == 0 || width <= max_width {
        return None;
    }
    let h = (f64::from(height) * f64::from(max_width) / f64::from(width)).round();
    // at least one row; `h` ≤ height, so it fits
    Some((max_width, (h as u32).max(1)))
}

/// Frame pixels per work pixel, across and down.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WorkScale {
    pub sx: f64,
    pub sy: f64,
}

impl WorkScale {
    /// From a frame's size and its work size.
    #[must_use]
    pub fn new(frame: (u32, u32), work: (u32, u32)) -> Self {
        Self {
            sx: f64::from(frame.0) / f64::from(work.0),
            sy: f64::from(frame.1) / f64::from(work.1),
        }
    }

    /// A frame box in work pixels.
    #[must_use]
    pub fn box_to_work(&self, b: &BBox) -> BBox {
        let (kx, ky) = ((1.0 / self.sx) as f32, (1.0 / self.sy) as f32);
        BBox {
            x1: b.x1 * kx,
            y1: b.y1 * ky,
            x2: b.x2 * kx,
            y2: b.y2 * ky,
        }
    }

    /// A work-pixel camera as the frame's camera: the same pose, the focal length and image
    /// size in frame pixels (exact when both axes scale alike; the width's scale otherwise).
    #[must_use]
    pub fn camera_to_frame(&self, c: &BroadcastCamera, frame: (u32, u32)) -> BroadcastCamera {
        BroadcastCamera {
            focal_px: c.focal_px * self.sx,
            width: frame.0,
            height: frame.1,
            ..*c
        }
    }

    /// `S · m`, where `S` maps work pixels to frame pixels.
    fn rows_to_frame(&self, m: Mat3) -> Mat3 {
        [m[0].map(|v| v * self.sx), m[1].map(|v| v * self.sy), m[2]]
    }

    /// `S⁻¹ · m`.
    fn rows_to_work(&self, m: Mat3) -> Mat3 {
        [m[0].map(|v| v / self.sx), m[1].map(|v| v / self.sy), m[2]]
    }

    /// A calibration in work pixels as one in frame pixels (its fit's error figures kept).
    ///
    /// # Errors
    /// The scaled homography is singular (it was not before: only for degenerate scales).
    pub fn calibration_to_frame(&self, cal: &Calibration) -> Result<Calibration, PitchError> {
        self.rescale(cal, Self::rows_to_frame)
    }

    /// A calibration in frame pixels as one in work pixels.
    ///
    /// # Errors
    /// As [`Self::calibration_to_frame`].
    pub fn calibration_to_work(&self, cal: &Calibration) -> Result<Calibration, PitchError> {
        self.rescale(cal, Self::rows_to_work)
    }

    fn rescale(
        &self,
        cal: &Calibration,
        rows: fn(&Self, Mat3) -> Mat3,
    ) -> Result<Calibration, PitchError> {
        let image_from_pitch = Homography::from_matrix(rows(self, cal.image_from_pitch.matrix()))?;
        Ok(Calibration {
            pitch_from_image: image_from_pitch.inverse()?,
            image_from_pitch,
            ..cal.clone()
        })
    }

    /// A picture motion between work frames (previous → this, in work pixels) in frame pixels:
    /// `S · m · S⁻¹`.
    #[must_use]
    pub fn motion_to_frame(&self, m: Mat3) -> Mat3 {
        let sm = self.rows_to_frame(m);
        sm.map(|r| [r[0] / self.sx, r[1] / self.sy, r[2]])
    }
}

/// [`initialise_with_lines`] on `img` read at most `max_width` wide (0: as it is): the found
/// camera (and a refused one's best) in `img`'s pixels, the fit's RMS distance too. What a
/// still's calibration and the live tracker's searches have in common.
///
/// # Errors
/// As [`initialise_with_lines`].
pub fn initialise_at_work_width(
    model: Option<&dyn LineModel>,
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    cfg: &InitConfig,
    max_width: u32,
) -> Result<LineFit, InitFailure> {
    let frame = (img.width(), img.height());
    let Some(size) = work_size(frame.0, frame.1, max_width) else {
        return initialise_with_lines(model, img, boxes, samples, coarse, cfg);
    };
    let work = WorkFrame::of(img, boxes, max_width);
    let scale = WorkScale::new(frame, size);
    match initialise_with_lines(model, &work.image(), &work.boxes, samples, coarse, cfg) {
        Ok(fit) => Ok(LineFit {
            camera: scale.camera_to_frame(&fit.camera, frame),
            rms_px: fit.rms_px * scale.sx,
            ..fit
        }),
        Err(mut e) => {
            if let InitFailure::NoFit { best, .. } = &mut e {
                *best = best
                    .take()
                    .map(|c| Box::new(scale.camera_to_frame(&c, frame)));
            }
            Err(e)
        }
    }
}

/// A still's camera: [`initialise_with_lines`] on the image as it is, and when that finds none
/// and the image is wider than `max_width`, on the image read at that width (what the
/// tracker reads). A still has time for both, and the full resolution places lines more
/// precisely: on `pitch-keypoints-dfl/valid` (1138×640 after `--aspect 16:9`) the 640-wide
/// search alone calibrated the same 30 of 34 images but with a mean grid error of 0.79 m (one
/// 7.8 m off) against 0.40 m; as a fallback it calibrates 3 more that the full-size search
/// refused (wider lines than the tests were tuned on). The reason given for an image neither
/// finds a camera on is the full-size search's.
///
/// # Errors
/// As [`initialise_with_lines`].
pub fn initialise_still(
    model: Option<&dyn LineModel>,
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    cfg: &InitConfig,
    max_width: u32,
) -> Result<LineFit, InitFailure> {
    let full = initialise_with_lines(model, img, boxes, samples, coarse, cfg);
    if full.is_ok() || work_size(img.width(), img.height(), max_width).is_none() {
        return full;
    }
    initialise_at_work_width(model, img, boxes, samples, coarse, cfg, max_width).or(full)
}

/// One axis of an area-average resampling: for each output pixel, its first source pixel and
/// the weights of it and the following ones (summing to 1).
#[derive(Debug, Clone, Default, PartialEq)]
struct Spans {
    n_src: u32,
    first: Vec<usize>,
    weights: Vec<Vec<f32>>,
}

impl Spans {
    fn new(n_src: u32, n_out: u32) -> Self {
        let s = f64::from(n_src) / f64::from(n_out);
        let (mut first, mut weights) = (Vec::new(), Vec::new());
        for o in 0..n_out {
            let a = f64::from(o) * s;
            let b = (f64::from(o + 1) * s).min(f64::from(n_src));
            // non-negative and below n_src
            let lo = a.floor() as usize;
            let hi = (b.ceil() as usize).min(n_src as usize);
            first.push(lo);
            weights.push(
                (lo..hi)
                    .map(|i| {
                        let i = i as f64;
                        ((b.min(i + 1.0) - a.max(i)) / (b - a)) as f32
                    })
                    .collect(),
            );
        }
        Self {
            n_src,
            first,
            weights,
        }
    }
}

/// Area-average shrinking of RGB8 frames, keeping its tables and buffers from frame to frame.
/// Rows first (a streaming weighted sum of whole source rows), then across the shorter
/// result.
#[derive(Debug, Clone, Default)]
pub struct Shrinker {
    across: Spans,
    down: Spans,
    /// One output row's source rows summed, RGB, the source's width.
    acc: Vec<f32>,
    /// The same for a whole-number factor.
    acc_int: Vec<u16>,
}

/// The largest whole-number factor [`Shrinker`] sums in `u16`: 16² × 255 < 65,536.
const MAX_WHOLE_FACTOR: usize = 16;

impl Shrinker {
    /// `img` shrunk to `size` (each dimension at most the image's) into `out`, RGB8.
    pub fn shrink(&mut self, img: &RgbImage<'_>, size: (u32, u32), out: &mut Vec<u8>) {
        let (w, h) = (img.width(), img.height());
        let (wo, ho) = (size.0.clamp(1, w), size.1.clamp(1, h));
        if self.across.n_src != w || self.across.first.len() != wo as usize {
            self.across = Spans::new(w, wo);
        }
        if self.down.n_src != h || self.down.first.len() != ho as usize {
            self.down = Spans::new(h, ho);
        }
        let (wo, ho, w, h) = (wo as usize, ho as usize, w as usize, h as usize);
        let src = img.data();
        out.clear();
        out.resize(wo * ho * 3, 0);
        let out = out.as_mut_slice();
        let k = w / wo;
        if k == 2 && 2 * wo == w && 2 * ho == h {
            halve(src, w, wo, out);
        } else if k * wo == w && k * ho == h && k <= MAX_WHOLE_FACTOR {
            self.shrink_whole(src, w, k, wo, out);
        } else {
            self.shrink_general(src, w, wo, out);
        }
    }

    /// Any factors, with the area weights of [`Spans`].
    fn shrink_general(&mut self, src: &[u8], w: usize, wo: usize, out: &mut [u8]) {
        self.acc.resize(w * 3, 0.0);
        for (o, row) in out.chunks_exact_mut(wo * 3).enumerate() {
            let first = self.down.first[o];
            self.acc.fill(0.0);
            for (k, &wt) in self.down.weights[o].iter().enumerate() {
                let line = &src[(first + k) * w * 3..(first + k + 1) * w * 3];
                for (a, &v) in self.acc.iter_mut().zip(line) {
                    *a += wt * f32::from(v);
                }
            }
            for (x, px) in row.chunks_exact_mut(3).enumerate() {
                let first = self.across.first[x];
                let mut sum = [0.0f32; 3];
                for (k, &wt) in self.across.weights[x].iter().enumerate() {
                    let p = &self.acc[(first + k) * 3..(first + k) * 3 + 3];
                    for c in 0..3 {
                        sum[c] += wt * p[c];
                    }
                }
                for c in 0..3 {
                    // 0..=255 after the weights' convex combination, up to rounding
                    px[c] = sum[c].round().clamp(0.0, 255.0) as u8;
                }
            }
        }
    }

    /// The same by a whole-number factor `k` on both axes (720p and 1080p to 640×360): `k`×`k`
    /// blocks summed in integers, rounded half up like the general path.
    fn shrink_whole(&mut self, src: &[u8], w: usize, k: usize, wo: usize, out: &mut [u8]) {
        self.acc_int.resize(w * 3, 0);
        // k ≤ 16: the sum of k² bytes fits, and so does the divisor
        let div = (k * k) as u16;
        let by_div = Reciprocal::new(div);
        for (o, row) in out.chunks_exact_mut(wo * 3).enumerate() {
            self.acc_int.fill(0);
            for line in src[o * k * w * 3..(o + 1) * k * w * 3].chunks_exact(w * 3) {
                for (a, &v) in self.acc_int.iter_mut().zip(line) {
                    *a += u16::from(v);
                }
            }
            for (px, block) in row
                .chunks_exact_mut(3)
                .zip(self.acc_int.chunks_exact(3 * k))
            {
                let mut sum = [0u16; 3];
                for p in block.chunks_exact(3) {
                    for c in 0..3 {
                        sum[c] += p[c];
                    }
                }
                for c in 0..3 {
                    // at most 255 after the division
                    px[c] = by_div.of(sum[c] + div / 2) as u8;
                }
            }
        }
    }
}

/// Division of a `u16` by a fixed divisor ≤ 256 as a multiply and a shift: a division per
/// channel of every output pixel was most of a 1080p shrink (each one tens of cycles).
#[derive(Debug, Clone, Copy)]
struct Reciprocal(u64);

impl Reciprocal {
    fn new(div: u16) -> Self {
        debug_assert!((1..=256).contains(&div));
        Self((1u64 << 32) / u64::from(div) + 1)
    }

    /// `x / div`, rounded down, exact for every `u16`: the multiplier overshoots `2³²/div` by
    /// less than 1, which adds less than `x/2³² < 1/div` to the quotient — never enough to
    /// carry its fraction (at most `1 − 1/div`) past a whole number.
    fn of(self, x: u16) -> u16 {
        // the quotient is at most x
        ((u64::from(x) * self.0) >> 32) as u16
    }
}

/// Halving (720p to 640×360, the common case): each output pixel the rounded mean of a 2×2
/// block, as [`Shrinker::shrink_whole`] computes it, two rows at a time.
fn halve(src: &[u8], w: usize, wo: usize, out: &mut [u8]) {
    for (row, pair) in out
        .chunks_exact_mut(wo * 3)
        .zip(src.chunks_exact(2 * w * 3))
    {
        let (top, bottom) = pair.split_at(w * 3);
        for ((px, a), b) in row
            .chunks_exact_mut(3)
            .zip(top.chunks_exact(6))
            .zip(bottom.chunks_exact(6))
        {
            for c in 0..3 {
                let sum =
                    u16::from(a[c]) + u16::from(a[c + 3]) + u16::from(b[c]) + u16::from(b[c + 3]);
                // at most 255 after the division
                px[c] = ((sum + 2) >> 2) as u8;
            }
        }
    }
}

/// A frame at the camera's working resolution, owned (for a search run on another thread).
#[derive(Debug, Clone, PartialEq)]
pub struct WorkFrame {
    pub rgb: Vec<u8>,
    pub width: u32,
    pub height: u32,
    /// The frame's player boxes in work pixels.
    pub boxes: Vec<BBox>,
}

impl WorkFrame {
    /// `img` and its `boxes` at most `max_width` wide (0: as they are).
    #[must_use]
    pub fn of(img: &RgbImage<'_>, boxes: &[BBox], max_width: u32) -> Self {
        let (w, h) = (img.width(), img.height());
        match work_size(w, h, max_width) {
            None => Self {
                rgb: img.data().to_vec(),
                width: w,
                height: h,
                boxes: boxes.to_vec(),
            },
            Some(size) => {
                let mut rgb = Vec::new();
                Shrinker::default().shrink(img, size, &mut rgb);
                let scale = WorkScale::new((w, h), size);
                Self {
                    rgb,
                    width: size.0,
                    height: size.1,
                    boxes: boxes.iter().map(|b| scale.box_to_work(b)).collect(),
                }
            }
        }
    }

    /// The frame as an image.
    ///
    /// # Panics
    /// Never: the buffer is sized by construction.
    #[must_use]
    pub fn image(&self) -> RgbImage<'_> {
        RgbImage::new(&self.rgb, self.width, self.height).expect("sized by construction")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Point;

    #[test]
    fn frames_at_most_the_work_width_are_read_as_they_are() {
        assert_eq!(work_size(640, 360, 640), None);
        assert_eq!(work_size(1280, 720, 0), None);
        assert_eq!(work_size(1280, 720, 640), Some((640, 360)));
        assert_eq!(work_size(1920, 1080, 640), Some((640, 360)));
        assert_eq!(work_size(1366, 768, 640), Some((640, 360)));
        assert_eq!(work_size(1138, 640, 640), Some((640, 360)));
    }

    #[test]
    fn halving_averages_each_two_by_two_block() {
        // 4×2 image: blocks (0,0)-(1,1) and (2,0)-(3,1)
        let px: Vec<u8> = [
            [0, 10, 20],
            [4, 14, 24],
            [100, 0, 0],
            [200, 0, 0],
            [8, 18, 28],
            [12, 22, 32],
            [50, 0, 0],
            [50, 0, 0],
        ]
        .concat();
        let img = RgbImage::new(&px, 4, 2).unwrap();
        let mut out = Vec::new();
        Shrinker::default().shrink(&img, (2, 1), &mut out);
        assert_eq!(out, vec![6, 16, 26, 100, 0, 0]);
    }

    #[test]
    fn a_third_weighs_partial_pixels_by_their_overlap() {
        // 3 → 2 across: output 0 covers [0, 1.5): pixel 0 whole, half of pixel 1
        let px: Vec<u8> = [[0, 0, 0], [90, 90, 90], [30, 30, 30]].concat();
        let img = RgbImage::new(&px, 3, 1).unwrap();
        let mut out = Vec::new();
        Shrinker::default().shrink(&img, (2, 1), &mut out);
        // (0 · 1 + 90 · 0.5) / 1.5 = 30; (90 · 0.5 + 30) / 1.5 = 50
        assert_eq!(out, vec![30, 30, 30, 50, 50, 50]);
    }

    #[test]
    fn the_reciprocal_divides_every_u16_exactly() {
        for div in 1..=256u16 {
            let r = Reciprocal::new(div);
            for x in 0..=u16::MAX {
                assert_eq!(r.of(x), x / div, "{x} / {div}");
            }
        }
    }

    #[test]
    fn whole_factors_match_the_general_weights() {
        let (w, h) = (48u32, 18u32);
        let px: Vec<u8> = (0..w * h * 3).map(|i| (i * 37 % 251) as u8).collect();
        let img = RgbImage::new(&px, w, h).unwrap();
        for k in [2u32, 3] {
            let (wo, ho) = (w / k, h / k);
            let mut whole = Vec::new();
            let mut s = Shrinker::default();
            s.shrink(&img, (wo, ho), &mut whole);
            if k == 2 {
                // the halving shortcut and the whole-number path agree exactly
                let mut by_blocks = vec![0u8; whole.len()];
                s.shrink_whole(&px, w as usize, 2, wo as usize, &mut by_blocks);
                assert_eq!(whole, by_blocks);
            }
            let mut general = vec![0u8; (wo * ho * 3) as usize];
            let mut g = Shrinker {
                across: Spans::new(w, wo),
                down: Spans::new(h, ho),
                ..Shrinker::default()
            };
            g.shrink_general(&px, w as usize, wo as usize, &mut general);
            // float sums of k² equal weights may land a hair either side of a half
            let worst = whole
                .iter()
                .zip(&general)
                .map(|(a, b)| a.abs_diff(*b))
                .max()
                .unwrap();
            assert!(worst <= 1, "factor {k}: paths differ by {worst}");
            assert!(whole.iter().zip(&general).filter(|(a, b)| a != b).count() * 50 < whole.len());
        }
    }

    #[test]
    fn a_uniform_frame_stays_uniform_at_any_scale() {
        let px = vec![77u8; 1366 * 768 * 3];
        let img = RgbImage::new(&px, 1366, 768).unwrap();
        let mut out = Vec::new();
        let size = work_size(1366, 768, 640).unwrap();
        Shrinker::default().shrink(&img, size, &mut out);
        assert_eq!(out.len(), 640 * 360 * 3);
        assert!(out.iter().all(|&v| v == 77));
    }

    #[test]
    fn a_bright_square_lands_where_the_scale_puts_it() {
        // an 8×8 white square at (400, 200) in a 1280×720 frame → (200, 100) at 640×360
        let (w, h) = (1280u32, 720u32);
        let mut px = vec![0u8; (w * h * 3) as usize];
        for y in 200..208 {
            for x in 400..408 {
                let i = ((y * w + x) * 3) as usize;
                px[i..i + 3].copy_from_slice(&[255, 255, 255]);
            }
        }
        let img = RgbImage::new(&px, w, h).unwrap();
        let f = WorkFrame::of(&img, &[BBox::new(400.0, 200.0, 408.0, 208.0)], 640);
        assert_eq!((f.width, f.height), (640, 360));
        let small = f.image();
        for y in 100..104 {
            for x in 200..204 {
                assert_eq!(small.pixel(x, y), [255, 255, 255], "({x}, {y})");
            }
        }
        assert_eq!(small.pixel(199, 100), [0, 0, 0]);
        assert_eq!(small.pixel(204, 104), [0, 0, 0]);
        assert_eq!(f.boxes, vec![BBox::new(200.0, 100.0, 204.0, 104.0)]);
    }

    #[test]
    fn a_work_camera_scaled_up_is_the_frame_camera() {
        let frame_cam = BroadcastCamera {
            position: [52.5, 110.0, 22.0],
            pan: 0.2,
            tilt: 0.35,
            roll: 0.01,
            focal_px: 1800.0,
            width: 1280,
            height: 720,
        };
        let work_cam = BroadcastCamera {
            focal_px: 900.0,
            width: 640,
            height: 360,
            ..frame_cam
        };
        let s = WorkScale::new((1280, 720), (640, 360));
        assert_eq!(s.camera_to_frame(&work_cam, (1280, 720)), frame_cam);
        // and its calibration: a pitch point lands at twice the work pixel
        let work_cal =
            Calibration::from_image_from_pitch(work_cam.image_from_pitch().unwrap()).unwrap();
        let up = s.calibration_to_frame(&work_cal).unwrap();
        for p in [Point::new(30.0, 20.0), Point::new(70.0, 50.0)] {
            let a = work_cal.to_image(p).unwrap();
            let b = up.to_image(p).unwrap();
            assert!((b.x - 2.0 * a.x).abs() < 1e-6 && (b.y - 2.0 * a.y).abs() < 1e-6);
            let fp = frame_cam.project(p).unwrap();
            assert!((b.x - fp.x).abs() < 1e-6 && (b.y - fp.y).abs() < 1e-6);
        }
        // down and up again is the identity
        let back = s
            .calibration_to_work(&s.calibration_to_frame(&work_cal).unwrap())
            .unwrap();
        let p = Point::new(40.0, 30.0);
        let (a, b) = (work_cal.to_image(p).unwrap(), back.to_image(p).unwrap());
        assert!((a.x - b.x).abs() < 1e-9 && (a.y - b.y).abs() < 1e-9);
    }

    #[test]
    fn a_work_motion_scaled_up_moves_frame_pixels() {
        // work motion: shift by (3, −2) work pixels → (6, −4) frame pixels at scale 2
        let m = [[1.0, 0.0, 3.0], [0.0, 1.0, -2.0], [0.0, 0.0, 1.0]];
        let s = WorkScale::new((1280, 720), (640, 360));
        let up = s.motion_to_frame(m);
        assert_eq!(up, [[1.0, 0.0, 6.0], [0.0, 1.0, -4.0], [0.0, 0.0, 1.0]]);
        // a zoom about the work origin stays a zoom about the frame origin
        let z = [[1.1, 0.0, 0.0], [0.0, 1.1, 0.0], [0.0, 0.0, 1.0]];
        assert_eq!(s.motion_to_frame(z), z);
    }
}
