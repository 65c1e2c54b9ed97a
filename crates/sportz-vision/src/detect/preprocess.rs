//! Preprocessing per model family, as pure parameter maths plus one function that turns an RGB8
//! image into the model's NCHW input tensor, and the inverse mapping of boxes back to the source.

use crate::{BBox, RgbImage};

/// How the source is fitted into the model's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resize {
    /// Keep the aspect ratio, fill the rest with `pad`; centred (Ultralytics) or top-left (YOLOX).
    Letterbox { pad: u8, centred: bool },
    /// Stretch to the input size (RT-DETR, D-FINE).
    Stretch,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelOrder {
    Rgb,
    Bgr,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelScale {
    /// `value / 255`, in `0..=1`.
    Unit,
    /// `value` as is, in `0..=255`.
    Raw,
}

/// One family's preprocessing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preprocess {
    pub resize: Resize,
    pub order: ChannelOrder,
    pub scale: PixelScale,
}

impl Preprocess {
    /// Ultralytics YOLOv5/v8/v10/11: centred letterbox, pad 114, RGB, /255.
    pub const ULTRALYTICS: Self = Self {
        resize: Resize::Letterbox {
            pad: 114,
            centred: true,
        },
        order: ChannelOrder::Rgb,
        scale: PixelScale::Unit,
    };
    /// Official YOLOX exports: top-left letterbox, pad 114, BGR, 0–255.
    pub const YOLOX: Self = Self {
        resize: Resize::Letterbox {
            pad: 114,
            centred: false,
        },
        order: ChannelOrder::Bgr,
        scale: PixelScale::Raw,
    };
    /// RT-DETR / D-FINE: stretch, RGB, /255.
    pub const DETR: Self = Self {
        resize: Resize::Stretch,
        order: ChannelOrder::Rgb,
        scale: PixelScale::Unit,
    };
}

/// The affine map from source pixels to model-input pixels: `input = source · scale + pad`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InputTransform {
    pub scale_x: f64,
    pub scale_y: f64,
    pub pad_x: f64,
    pub pad_y: f64,
    pub source_width: u32,
    pub source_height: u32,
    pub input_width: u32,
    pub input_height: u32,
}

impl InputTransform {
    /// The transform `pre` applies to a `source` image for an `input`-sized model.
    #[must_use]
    pub fn new(pre: &Preprocess, source: (u32, u32), input: (u32, u32)) -> Self {
        let (sw, sh) = (f64::from(source.0.max(1)), f64::from(source.1.max(1)));
        let (iw, ih) = (f64::from(input.0), f64::from(input.1));
        let (scale_x, scale_y, pad_x, pad_y) = match pre.resize {
            Resize::Stretch => (iw / sw, ih / sh, 0.0, 0.0),
            Resize::Letterbox { centred, .. } => {
                let r = (iw / sw).min(ih / sh);
                let (nw, nh) = ((sw * r).round(), (sh * r).round());
                let (px, py) = if centred {
                    (((iw - nw) / 2.0).floor(), ((ih - nh) / 2.0).floor())
                } else {
                    (0.0, 0.0)
                };
                (nw / sw, nh / sh, px, py)
            }
        };
        Self {
            scale_x,
            scale_y,
            pad_x,
            pad_y,
            source_width: source.0,
            source_height: source.1,
            input_width: input.0,
            input_height: input.1,
        }
    }

    /// A source point in model-input pixels.
    #[must_use]
    pub fn to_input(&self, x: f64, y: f64) -> (f64, f64) {
        (x * self.scale_x + self.pad_x, y * self.scale_y + self.pad_y)
    }

    /// A model-input point in source pixels.
    #[must_use]
    pub fn to_source(&self, x: f64, y: f64) -> (f64, f64) {
        (
            (x - self.pad_x) / self.scale_x,
            (y - self.pad_y) / self.scale_y,
        )
    }

    /// A box in model-input pixels mapped to source pixels and clamped to the source frame.
    #[must_use]
    pub fn box_to_source(&self, b: &BBox) -> BBox {
        let (x1, y1) = self.to_source(f64::from(b.x1), f64::from(b.y1));
        let (x2, y2) = self.to_source(f64::from(b.x2), f64::from(b.y2));
        // pixel coordinates fit an f32
        BBox::new(x1 as f32, y1 as f32, x2 as f32, y2 as f32)
            .clamp_to(self.source_width as f32, self.source_height as f32)
    }
}

/// The model's input tensor `[1, 3, input_h, input_w]` (NCHW, f32) for `image`, and the transform
/// that maps its boxes back. Resampling is bilinear with pixel centres aligned (as OpenCV's
/// `INTER_LINEAR`).
#[must_use]
pub fn preprocess(
    image: &RgbImage<'_>,
    pre: &Preprocess,
    input: (u32, u32),
) -> (Vec<f32>, InputTransform) {
    let t = InputTransform::new(pre, (image.width(), image.height()), input);
    let (iw, ih) = (input.0 as usize, input.1 as usize);
    let plane = iw * ih;
    let pad = match pre.resize {
        Resize::Letterbox { pad, .. } => pad,
        Resize::Stretch => 0,
    };
    let k_scale = match pre.scale {
        PixelScale::Unit => 255.0,
        PixelScale::Raw => 1.0,
    };
    let channel_of = |c: usize| match pre.order {
        ChannelOrder::Rgb => c,
        ChannelOrder::Bgr => 2 - c,
    };
    let mut out = vec![f32::from(pad) / k_scale; 3 * plane];
    let (sw, sh) = (f64::from(image.width()), f64::from(image.height()));
    // the covered region of the input, in whole pixels
    let x_end = ((sw * t.scale_x + t.pad_x).round() as usize).min(iw);
    let y_end = ((sh * t.scale_y + t.pad_y).round() as usize).min(ih);
    let (x_start, y_start) = (t.pad_x as usize, t.pad_y as usize);
    let max_x = image.width() - 1;
    let max_y = image.height() - 1;
    let sample_axis = |d: usize, pad: f64, scale: f64, max: u32| {
        let s = ((d as f64 + 0.5 - pad) / scale - 0.5).max(0.0);
        let i0 = (s.floor() as u32).min(max);
        let i1 = (i0 + 1).min(max);
        let f = (s - f64::from(i0)).clamp(0.0, 1.0);
        (i0, i1, f)
    };
    // the horizontal taps are the same on every row: byte offsets of both source columns and
    // the weight, computed once
    let columns: Vec<(usize, usize, f64)> = (x_start..x_end)
        .map(|dx| {
            let (x0, x1, fx) = sample_axis(dx, t.pad_x, t.scale_x, max_x);
            (x0 as usize * 3, x1 as usize * 3, fx)
        })
        .collect();
    // a 1280-wide frame into a 640-wide input: every column halves
    let halving = columns
        .iter()
        .all(|&(x0, x1, fx)| fx == 0.5 && x1 == x0 + 3);
    let data = image.data();
    let stride = image.width() as usize * 3;
    let planes: [usize; 3] = [0, 1, 2].map(|c| channel_of(c) * plane);
    let n = columns.len();
    let mut rows = RowCache::new(3 * n);
    for dy in y_start..y_end {
        let (y0, y1, fy) = sample_axis(dy, t.pad_y, t.scale_y, max_y);
        let row0 = &data[y0 as usize * stride..][..stride];
        let row1 = &data[y1 as usize * stride..][..stride];
        let at = dy * iw + x_start;
        if halving && fy == 0.5 && y1 == y0 + 1 {
            // exactly half size: every tap weighs ½, so the bilinear value is the 2×2 mean
            // (the same f32 as the general formula, whose products and sums are all exact here)
            for (k, &(x0, _, _)) in columns.iter().enumerate() {
                for (c, plane_at) in planes.iter().enumerate() {
                    let sum = u16::from(row0[x0 + c])
                        + u16::from(row0[x0 + 3 + c])
                        + u16::from(row1[x0 + c])
                        + u16::from(row1[x0 + 3 + c]);
                    out[plane_at + at + k] = f32::from(sum) * 0.25 / k_scale;
                }
            }
            continue;
        }
        // separable: each source row's horizontal taps are computed once (planar, f64) and
        // shared by the output rows that read it; the vertical blend is then a plain loop per
        // channel. The same products and sums as the formula, so the same floats.
        let (top, bottom) = rows.pair(y0, y1, |y, buf| {
            horizontal(&data[y as usize * stride..][..stride], &columns, buf);
        });
        let (wt, wb) = (1.0 - fy, fy);
        for (c, plane_at) in planes.iter().enumerate() {
            let dst = &mut out[plane_at + at..][..n];
            let (a, b) = (&top[c * n..][..n], &bottom[c * n..][..n]);
            for ((o, &t), &bt) in dst.iter_mut().zip(a).zip(b) {
                // 0..=255 fits an f32
                *o = (t * wt + bt * wb) as f32 / k_scale;
            }
        }
    }
    (out, t)
}

/// One source row's horizontal taps, planar: `buf[c·n + k]` is channel `c` at output column `k`.
fn horizontal(row: &[u8], columns: &[(usize, usize, f64)], buf: &mut [f64]) {
    let n = columns.len();
    let (r, rest) = buf.split_at_mut(n);
    let (g, b) = rest.split_at_mut(n);
    for (k, &(x0, x1, fx)) in columns.iter().enumerate() {
        let wl = 1.0 - fx;
        r[k] = f64::from(row[x0]) * wl + f64::from(row[x1]) * fx;
        g[k] = f64::from(row[x0 + 1]) * wl + f64::from(row[x1 + 1]) * fx;
        b[k] = f64::from(row[x0 + 2]) * wl + f64::from(row[x1 + 2]) * fx;
    }
}

/// The horizontal taps of the last two source rows read (output rows walk down the source, so
/// consecutive output rows mostly share one or both).
struct RowCache {
    rows: [(Option<u32>, Vec<f64>); 2],
}

impl RowCache {
    fn new(len: usize) -> Self {
        Self {
            rows: [(None, vec![0.0; len]), (None, vec![0.0; len])],
        }
    }

    /// The taps of source rows `y0` and `y1` (`y0 ≤ y1`), computing with `fill` those not held.
    fn pair(
        &mut self,
        y0: u32,
        y1: u32,
        mut fill: impl FnMut(u32, &mut [f64]),
    ) -> (&[f64], &[f64]) {
        // moving down one source row: the old bottom row is the new top row
        if self.rows[0].0 != Some(y0) && self.rows[1].0 == Some(y0) {
            self.rows.swap(0, 1);
        }
        if self.rows[0].0 != Some(y0) {
            fill(y0, &mut self.rows[0].1);
            self.rows[0].0 = Some(y0);
        }
        if self.rows[1].0 != Some(y1) {
            let [top, bottom] = &mut self.rows;
            if y1 == y0 {
                bottom.1.copy_from_slice(&top.1);
            } else {
                fill(y1, &mut bottom.1);
            }
            bottom.0 = Some(y1);
        }
        (&self.rows[0].1, &self.rows[1].1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_transform(
        pre: Preprocess,
        source: (u32, u32),
        input: (u32, u32),
        expected: (f64, f64, f64, f64),
    ) {
        let t = InputTransform::new(&pre, source, input);
        let got = (t.scale_x, t.scale_y, t.pad_x, t.pad_y);
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(
            close(got.0, expected.0)
                && close(got.1, expected.1)
                && close(got.2, expected.2)
                && close(got.3, expected.3),
            "{pre:?} {source:?}→{input:?}: {got:?} != {expected:?}"
        );
        // the inverse really inverts
        let (x, y) = t.to_input(123.0, 45.0);
        let (bx, by) = t.to_source(x, y);
        assert!(close(bx, 123.0) && close(by, 45.0));
    }

    #[test]
    fn transforms_per_family() {
        // 640×360 into 640×640: scale 1, centred pad (640-360)/2 = 140 on y
        check_transform(
            Preprocess::ULTRALYTICS,
            (640, 360),
            (640, 640),
            (1.0, 1.0, 0.0, 140.0),
        );
        // YOLOX pads at the bottom/right: 640×360 into 416×416 → 416×234
        check_transform(
            Preprocess::YOLOX,
            (640, 360),
            (416, 416),
            (0.65, 0.65, 0.0, 0.0),
        );
        // tall image, centred: 100×200 into 64×64 → 32×64, pad 16 on x
        check_transform(
            Preprocess::ULTRALYTICS,
            (100, 200),
            (64, 64),
            (0.32, 0.32, 16.0, 0.0),
        );
        // stretch has independent scales
        check_transform(
            Preprocess::DETR,
            (640, 360),
            (640, 640),
            (1.0, 640.0 / 360.0, 0.0, 0.0),
        );
    }

    #[test]
    fn boxes_map_back_and_clamp() {
        let t = InputTransform::new(&Preprocess::ULTRALYTICS, (640, 360), (640, 640));
        let b = t.box_to_source(&BBox::new(10.0, 150.0, 50.0, 600.0));
        assert_eq!(b, BBox::new(10.0, 10.0, 50.0, 360.0));
    }

    fn solid(w: u32, h: u32, rgb: [u8; 3]) -> Vec<u8> {
        (0..w * h).flat_map(|_| rgb).collect()
    }

    #[test]
    fn letterbox_fills_pad_and_orders_channels() {
        let data = solid(4, 2, [10, 20, 30]);
        let img = RgbImage::new(&data, 4, 2).unwrap();
        // YOLOX: BGR, raw, top-left: rows 0..2 carry the image, rows 2..4 the pad 114
        let (t, _) = preprocess(&img, &Preprocess::YOLOX, (4, 4));
        let plane = 16;
        assert_eq!(t.len(), 3 * plane);
        assert_eq!(&t[0..8], &[30.0; 8], "channel 0 is blue");
        assert_eq!(&t[8..16], &[114.0; 8], "bottom rows are pad");
        assert_eq!(t[plane], 20.0);
        assert_eq!(t[2 * plane], 10.0, "channel 2 is red");
        // Ultralytics: RGB, /255, centred: row 0 pad, rows 1..3 image, row 3 pad
        let (u, _) = preprocess(&img, &Preprocess::ULTRALYTICS, (4, 4));
        let p = 114.0 / 255.0;
        assert_eq!(&u[0..4], &[p; 4]);
        assert_eq!(&u[4..12], &[10.0 / 255.0; 8]);
        assert_eq!(&u[12..16], &[p; 4]);
    }

    #[test]
    fn bilinear_downscale_averages_neighbours() {
        // 2×1 image black|white, stretched to 1×1: the centre sample is their mean
        let data = [0, 0, 0, 255, 255, 255];
        let img = RgbImage::new(&data, 2, 1).unwrap();
        let (t, _) = preprocess(&img, &Preprocess::DETR, (1, 1));
        assert!((t[0] - 0.5).abs() < 1e-6, "{t:?}");
        // upscale 2×1 → 4×1: edges keep the source values, inner samples interpolate
        let (u, _) = preprocess(
            &img,
            &Preprocess {
                scale: PixelScale::Raw,
                ..Preprocess::DETR
            },
            (4, 1),
        );
        assert_eq!(&u[0..4], &[0.0, 63.75, 191.25, 255.0]);
    }

    /// Halving (1280 wide into 640, the built-in model on 720p) takes a fast path: it gives
    /// the general bilinear formula's values exactly, pads and edges included; an odd-height
    /// source that is not an exact half in y takes the general rows.
    #[test]
    fn both_paths_are_the_bilinear_formula() {
        for (w, h, input) in [
            (16u32, 9u32, (8u32, 6u32)),
            (16, 7, (8, 8)),
            (12, 10, (6, 6)),
            // the separable path: ¾ (1280×720 → 960×540), odd factors, an upscale
            (20, 12, (15, 12)),
            (13, 11, (9, 7)),
            (8, 5, (16, 16)),
            (1, 1, (4, 4)),
        ] {
            let data: Vec<u8> = (0..w * h * 3).map(|i| (i * 37 % 251) as u8).collect();
            let img = RgbImage::new(&data, w, h).unwrap();
            for pre in [Preprocess::ULTRALYTICS, Preprocess::YOLOX] {
                let (got, t) = preprocess(&img, &pre, input);
                let (iw, ih) = (input.0 as usize, input.1 as usize);
                let k = if pre.scale == PixelScale::Unit {
                    255.0
                } else {
                    1.0
                };
                let tap = |d: usize, pad: f64, scale: f64, n: u32| {
                    let s = ((d as f64 + 0.5 - pad) / scale - 0.5).max(0.0);
                    let i0 = (s.floor() as u32).min(n - 1);
                    (i0, (i0 + 1).min(n - 1), (s - f64::from(i0)).clamp(0.0, 1.0))
                };
                let x_end = ((f64::from(w) * t.scale_x + t.pad_x).round() as usize).min(iw);
                let y_end = ((f64::from(h) * t.scale_y + t.pad_y).round() as usize).min(ih);
                for dy in 0..ih {
                    for dx in 0..iw {
                        for c in 0..3 {
                            let src_c = if pre.order == ChannelOrder::Bgr {
                                2 - c
                            } else {
                                c
                            };
                            let inside = dx >= t.pad_x as usize
                                && dx < x_end
                                && dy >= t.pad_y as usize
                                && dy < y_end;
                            let want = if inside {
                                let (x0, x1, fx) = tap(dx, t.pad_x, t.scale_x, w);
                                let (y0, y1, fy) = tap(dy, t.pad_y, t.scale_y, h);
                                let px = |x: u32, y: u32| f64::from(img.pixel(x, y)[src_c]);
                                let top = px(x0, y0) * (1.0 - fx) + px(x1, y0) * fx;
                                let bottom = px(x0, y1) * (1.0 - fx) + px(x1, y1) * fx;
                                (top * (1.0 - fy) + bottom * fy) as f32 / k
                            } else {
                                114.0 / k
                            };
                            let v = got[c * iw * ih + dy * iw + dx];
                            assert_eq!(v, want, "{w}x{h}→{input:?} {pre:?} at ({dx}, {dy}, {c})");
                        }
                    }
                }
            }
        }
    }
}
