//! Frame-to-frame camera motion: corners on the pitch (grass around them, away from players),
//! followed into the next frame by pyramidal Lucas–Kanade, and a RANSAC homography between the
//! two frames. A camera that only turns and zooms moves every pixel by one homography, so the
//! result chains onto the previous frame's ground homography.

use crate::pitch::{Homography, solve};
use crate::rng::SplitMix64;
use crate::{BBox, Point, RgbImage};

use super::lines::is_grass;

/// A grey image, f32, row-major.
#[derive(Debug, Clone)]
pub struct Gray {
    pub width: usize,
    pub height: usize,
    pub data: Vec<f32>,
}

impl Gray {
    fn get(&self, x: usize, y: usize) -> f32 {
        self.data[y * self.width + x]
    }

    /// Bilinear sample; `None` outside.
    fn sample(&self, x: f64, y: f64) -> Option<f32> {
        if !(x >= 0.0 && y >= 0.0 && x < (self.width - 1) as f64 && y < (self.height - 1) as f64) {
            return None;
        }
        // non-negative here, so truncation is the floor
        let (x0, y0) = (x as usize, y as usize);
        let (fx, fy) = ((x - x0 as f64) as f32, (y - y0 as f64) as f32);
        let i = y0 * self.width + x0;
        let d = &self.data;
        let top = d[i] + (d[i + 1] - d[i]) * fx;
        let bot = d[i + self.width] + (d[i + self.width + 1] - d[i + self.width]) * fx;
        Some(top + (bot - top) * fy)
    }

    /// Half the size, 2×2 averages, into `data`'s memory (its contents are replaced).
    fn half(&self, mut data: Vec<f32>) -> Self {
        let (w, h) = (self.width / 2, self.height / 2);
        data.clear();
        data.reserve(w * h);
        for y in 0..h {
            let top = &self.data[2 * y * self.width..(2 * y + 1) * self.width];
            let bot = &self.data[(2 * y + 1) * self.width..(2 * y + 2) * self.width];
            for (a, b) in top.chunks_exact(2).zip(bot.chunks_exact(2)).take(w) {
                data.push((a[0] + a[1] + b[0] + b[1]) * 0.25);
            }
        }
        Self {
            width: w,
            height: h,
            data,
        }
    }
}

/// An image pyramid: level 0 is the frame at `1/scale`, each next level half the previous.
#[derive(Debug, Clone)]
pub struct Pyramid {
    pub scale: usize,
    pub levels: Vec<Gray>,
    /// Grass mask of every other level-0 pixel each way (entry (u, v) is level-0 pixel
    /// (2u, 2v)): where corners look for grass, a quarter of the pixel tests.
    pub grass: Vec<bool>,
    grass_width: usize,
    grass_height: usize,
}

/// Integer luma ×1000 of one RGB pixel.
fn luma_1000(p: &[u8]) -> u32 {
    299 * u32::from(p[0]) + 587 * u32::from(p[1]) + 114 * u32::from(p[2])
}

impl Pyramid {
    /// Grey levels of `img` at `1/scale` (box-averaged), `levels` deep.
    #[must_use]
    pub fn build(img: &RgbImage<'_>, scale: usize, levels: usize) -> Self {
        Self::build_reusing(img, scale, levels, None)
    }

    /// [`Self::build`] in the memory of a pyramid no longer needed (a frame's pyramid is a few
    /// MB: fresh allocations each frame cost page faults and zeroing).
    #[must_use]
    pub fn build_reusing(
        img: &RgbImage<'_>,
        scale: usize,
        levels: usize,
        old: Option<Self>,
    ) -> Self {
        let (mut spare, mut grass) = match old {
            Some(p) => (p.levels.into_iter().map(|g| g.data).collect(), p.grass),
            None => (Vec::new(), Vec::new()),
        };
        let scale = scale.max(1);
        let (w, h) = (img.width() as usize / scale, img.height() as usize / scale);
        let mut data = spare.pop().unwrap_or_default();
        data.clear();
        data.resize(w * h, 0.0_f32);
        let (gw, gh) = (w.div_ceil(2), h.div_ceil(2));
        grass.clear();
        grass.resize(gw * gh, false);
        let raw = img.data();
        let stride = img.width() as usize * 3;
        // integer luma (×1000) summed over each block, one division per output pixel
        let norm = 1.0 / (1000 * scale * scale) as f32;
        for (y, out) in data.chunks_exact_mut(w.max(1)).enumerate().take(h) {
            let top = &raw[y * scale * stride..(y * scale + 1) * stride];
            if y % 2 == 0 {
                // the grass of level-0 pixel (2u, y): the block's top-left source pixel
                let row = &mut grass[(y / 2) * gw..(y / 2 + 1) * gw];
                for (u, g) in row.iter_mut().enumerate() {
                    let i = 2 * u * scale * 3;
                    *g = is_grass([top[i], top[i + 1], top[i + 2]]);
                }
            }
            if scale == 2 {
                let bot = &raw[(y * 2 + 1) * stride..(y * 2 + 2) * stride];
                for ((o, a), b) in out
                    .iter_mut()
                    .zip(top.chunks_exact(6))
                    .zip(bot.chunks_exact(6))
                {
                    let sum = luma_1000(&a[..3])
                        + luma_1000(&a[3..])
                        + luma_1000(&b[..3])
                        + luma_1000(&b[3..]);
                    *o = sum as f32 * norm;
                }
                continue;
            }
            for (x, o) in out.iter_mut().enumerate() {
                let mut sum = 0u32;
                for dy in 0..scale {
                    let row = &raw[(y * scale + dy) * stride..(y * scale + dy + 1) * stride];
                    for px in row[x * scale * 3..(x + 1) * scale * 3].chunks_exact(3) {
                        sum += luma_1000(px);
                    }
                }
                *o = sum as f32 * norm;
            }
        }
        let mut pyr = vec![Gray {
            width: w,
            height: h,
            data,
        }];
        while pyr.len() < levels.max(1) {
            let next = pyr[pyr.len() - 1].half(spare.pop().unwrap_or_default());
            if next.width < 16 || next.height < 16 {
                break;
            }
            pyr.push(next);
        }
        Self {
            scale,
            levels: pyr,
            grass,
            grass_width: gw,
            grass_height: gh,
        }
    }

    /// Whether level-0 pixel (2u, 2v) is grass (`false` outside).
    fn grass_at_even(&self, u: usize, v: usize) -> bool {
        u < self.grass_width && v < self.grass_height && self.grass[v * self.grass_width + u]
    }
}

/// Motion estimation settings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MotionConfig {
    /// Source pixels per level-0 pixel.
    pub scale: usize,
    pub levels: usize,
    /// Feature grid (columns, rows): at most one corner per cell.
    pub grid: (usize, usize),
    /// Lucas–Kanade window half-size, level-0 pixels.
    pub window: usize,
    /// RANSAC inlier threshold, source pixels.
    pub threshold_px: f64,
    /// A corner needs this much structure (smaller eigenvalue of the gradient tensor).
    pub min_eigen: f32,
}

impl Default for MotionConfig {
    fn default() -> Self {
        Self {
            scale: 2,
            levels: 4,
            grid: (16, 9),
            window: 3,
            threshold_px: 2.0,
            min_eigen: 3.0,
        }
    }
}

/// The homography from the previous frame's pixels to this frame's, with its support.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    /// Source pixels (previous frame) → source pixels (this frame), row-major.
    pub h: [[f64; 3]; 3],
    /// Corners followed into this frame.
    pub tracked: usize,
    /// Of those, the ones the homography explains.
    pub inliers: usize,
}

/// Integral images of the gradient products Ix², IxIy, Iy² of a grey image: the structure
/// tensor over any window in O(1).
#[derive(Debug, Clone, Default)]
struct Structure {
    w: usize,
    sums: [Vec<f64>; 3],
}

impl Structure {
    /// The integral images of `g`, in `self`'s memory.
    fn build(&mut self, g: &Gray) {
        let (w, h) = (g.width, g.height);
        let stride = w + 1;
        self.w = stride;
        let sums = &mut self.sums;
        for v in sums.iter_mut() {
            // every entry but the first row and column is written below
            v.resize(stride * (h + 1), 0.0);
            v[..stride].fill(0.0);
            for y in 1..=h {
                v[y * stride] = 0.0;
            }
        }
        for y in 0..h {
            let mut row = [0.0_f64; 3];
            for x in 0..w {
                let (ix, iy) = if x == 0 || y == 0 || x + 1 == w || y + 1 == h {
                    (0.0, 0.0)
                } else {
                    (
                        f64::from(g.get(x + 1, y) - g.get(x - 1, y)) * 0.5,
                        f64::from(g.get(x, y + 1) - g.get(x, y - 1)) * 0.5,
                    )
                };
                let v = [ix * ix, ix * iy, iy * iy];
                for k in 0..3 {
                    row[k] += v[k];
                    sums[k][(y + 1) * stride + x + 1] = sums[k][y * stride + x + 1] + row[k];
                }
            }
        }
    }

    /// The smaller eigenvalue of the structure tensor (mean over the window) around (x, y).
    fn min_eigen(&self, x: usize, y: usize, r: usize) -> f32 {
        let (x0, y0, x1, y1) = (x - r, y - r, x + r + 1, y + r + 1);
        let s = |k: usize| {
            let t = &self.sums[k];
            t[y1 * self.w + x1] - t[y0 * self.w + x1] - t[y1 * self.w + x0] + t[y0 * self.w + x0]
        };
        let n = ((2 * r + 1) * (2 * r + 1)) as f64;
        let (a, b, c) = (s(0) / n, s(1) / n, s(2) / n);
        let tr = a + c;
        let det = a * c - b * b;
        (tr / 2.0 - (tr * tr / 4.0 - det).max(0.0).sqrt()) as f32
    }
}

/// Corners of level 0, one per grid cell, on grass and outside `exclude` (source pixels).
#[must_use]
pub fn corners(p: &Pyramid, exclude: &[BBox], cfg: &MotionConfig) -> Vec<Point> {
    corners_with(p, exclude, cfg, &mut Structure::default())
}

/// [`corners`] with the structure tensor's integral images in `st`'s memory.
fn corners_with(
    p: &Pyramid,
    exclude: &[BBox],
    cfg: &MotionConfig,
    st: &mut Structure,
) -> Vec<Point> {
    // chosen on level 1 (a quarter of the pixels), returned in level-0 pixels
    let Some(g) = p.levels.get(1) else {
        return Vec::new();
    };
    let r = cfg.window.div_ceil(2).max(1);
    let margin = r + 2;
    if g.width <= 2 * margin || g.height <= 2 * margin {
        return Vec::new();
    }
    st.build(g);
    let (gx, gy) = (cfg.grid.0.max(1), cfg.grid.1.max(1));
    let (cw, ch) = ((g.width - 2 * margin) / gx, (g.height - 2 * margin) / gy);
    let s = p.scale as f32;
    let mut out = Vec::new();
    for j in 0..gy {
        for i in 0..gx {
            let mut best = (cfg.min_eigen, None);
            let mut y = margin + j * ch;
            while y < margin + (j + 1) * ch {
                let mut x = margin + i * cw;
                while x < margin + (i + 1) * cw {
                    let e = st.min_eigen(x, y, r);
                    if e > best.0 {
                        let (fx, fy) = (x as f32 * 2.0 * s, y as f32 * 2.0 * s);
                        let near_player = exclude.iter().any(|b| {
                            fx >= b.x1 - 4.0
                                && fx <= b.x2 + 4.0
                                && fy >= b.y1 - 4.0
                                && fy <= b.y2 + 4.0
                        });
                        // grass on all four corners of the window (level-0 pixels
                        // 2(x ± r), 2(y ± r)): not a broadcast graphic
                        let on_pitch = p.grass_at_even(x - r, y - r)
                            && p.grass_at_even(x + r, y - r)
                            && p.grass_at_even(x - r, y + r)
                            && p.grass_at_even(x + r, y + r);
                        if on_pitch && !near_player {
                            best = (e, Some((x, y)));
                        }
                    }
                    x += 1;
                }
                y += 1;
            }
            if let (_, Some((x, y))) = best {
                out.push(Point::new(2.0 * x as f64 + 0.5, 2.0 * y as f64 + 0.5));
            }
        }
    }
    out
}

/// Pyramidal Lucas–Kanade: where `pt` (level-0 pixels of `a`) is in `b`; `None` when lost.
fn track_point(a: &Pyramid, b: &Pyramid, pt: Point, r: usize) -> Option<Point> {
    let levels = a.levels.len().min(b.levels.len());
    let mut guess = (0.0_f64, 0.0_f64);
    let ri = r as i32;
    let mut patch = Vec::with_capacity((2 * r + 3) * (2 * r + 3));
    for l in (0..levels).rev() {
        let (ga, gb) = (&a.levels[l], &b.levels[l]);
        let k = f64::from(1u32 << l);
        let (px, py) = (pt.x / k, pt.y / k);
        // the template's patch with a one-pixel rim (its corners unused), each pixel sampled
        // once; (the points sit on exact binary fractions, so px + dx ± 1 is exact either way)
        let side = 2 * r + 3;
        patch.clear();
        for j in 0..side {
            for i in 0..side {
                let corner = (i == 0 || i == side - 1) && (j == 0 || j == side - 1);
                let (x, y) = (
                    px + (i as f64 - f64::from(ri + 1)),
                    py + (j as f64 - f64::from(ri + 1)),
                );
                patch.push(if corner { 0.0 } else { ga.sample(x, y)? });
            }
        }
        let at = |dx: i32, dy: i32| patch[((dy + ri + 1) as usize) * side + (dx + ri + 1) as usize];
        // gradients of the template once per level
        let mut tmpl = Vec::with_capacity((2 * r + 1) * (2 * r + 1));
        let (mut sxx, mut sxy, mut syy) = (0.0_f64, 0.0_f64, 0.0_f64);
        for dy in -ri..=ri {
            for dx in -ri..=ri {
                let (c, xl, xr, yu, yd) = (
                    at(dx, dy),
                    at(dx - 1, dy),
                    at(dx + 1, dy),
                    at(dx, dy - 1),
                    at(dx, dy + 1),
                );
                let ix = f64::from(xr - xl) * 0.5;
                let iy = f64::from(yd - yu) * 0.5;
                sxx += ix * ix;
                sxy += ix * iy;
                syy += iy * iy;
                tmpl.push((f64::from(dx), f64::from(dy), f64::from(c), ix, iy));
            }
        }
        let det = sxx * syy - sxy * sxy;
        if det.abs() < 1e-6 {
            return None;
        }
        let mut d = guess;
        for _ in 0..6 {
            let (mut bx, mut by) = (0.0, 0.0);
            for &(dx, dy, c, ix, iy) in &tmpl {
                let v = gb.sample(px + d.0 + dx, py + d.1 + dy)?;
                let e = f64::from(v) - c;
                bx += e * ix;
                by += e * iy;
            }
            let ux = -(syy * bx - sxy * by) / det;
            let uy = -(sxx * by - sxy * bx) / det;
            d = (d.0 + ux, d.1 + uy);
            if ux * ux + uy * uy < 1e-4 {
                break;
            }
        }
        guess = if l > 0 { (d.0 * 2.0, d.1 * 2.0) } else { d };
    }
    Some(Point::new(pt.x + guess.0, pt.y + guess.1))
}

/// The homography through four point pairs exactly (h₃₃ = 1); `None` when degenerate.
fn four_point(src: &[Point; 4], dst: &[Point; 4]) -> Option<[[f64; 3]; 3]> {
    let mut a = [[0.0; 8]; 8];
    let mut b = [0.0; 8];
    for i in 0..4 {
        let (x, y, u, v) = (src[i].x, src[i].y, dst[i].x, dst[i].y);
        a[2 * i] = [x, y, 1.0, 0.0, 0.0, 0.0, -u * x, -u * y];
        b[2 * i] = u;
        a[2 * i + 1] = [0.0, 0.0, 0.0, x, y, 1.0, -v * x, -v * y];
        b[2 * i + 1] = v;
    }
    let h = solve(a, b)?;
    Some([[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], 1.0]])
}

/// RANSAC homography from `src` to `dst` (seeded, adaptive iteration count), refitted by least
/// squares on the inliers; `None` with fewer than 8 pairs or no consensus.
#[must_use]
pub fn ransac_homography(
    src: &[Point],
    dst: &[Point],
    threshold: f64,
    seed: u64,
) -> Option<([[f64; 3]; 3], Vec<usize>)> {
    let n = src.len();
    if n < 8 {
        return None;
    }
    let mut rng = SplitMix64::new(seed);
    let mut best: Vec<usize> = Vec::new();
    let mut needed = 200usize;
    let mut it = 0;
    while it < needed.min(400) {
        it += 1;
        let idx: [usize; 4] = std::array::from_fn(|_| rng.below(n));
        if (0..4).any(|i| (i + 1..4).any(|j| idx[i] == idx[j])) {
            continue;
        }
        let Some(h) = four_point(&idx.map(|i| src[i]), &idx.map(|i| dst[i]))
            .and_then(|m| Homography::from_matrix(m).ok())
        else {
            continue;
        };
        let inl: Vec<usize> = (0..n)
            .filter(|&i| {
                h.apply(src[i])
                    .is_some_and(|q| q.distance(&dst[i]) <= threshold)
            })
            .collect();
        if inl.len() > best.len() {
            best = inl;
            let w = best.len() as f64 / n as f64;
            let p_fail = (1.0 - w.powi(4)).max(1e-12);
            needed = ((0.01_f64).ln() / p_fail.ln()).ceil().max(8.0) as usize;
        }
    }
    if best.len() < 8 {
        return None;
    }
    let s: Vec<Point> = best.iter().map(|&i| src[i]).collect();
    let d: Vec<Point> = best.iter().map(|&i| dst[i]).collect();
    let h = crate::pitch::fit_dlt(&s, &d).ok()?.matrix();
    Some((h, best))
}

/// Follows the camera from frame to frame; keeps the previous frame's pyramid.
#[derive(Debug, Clone, Default)]
pub struct MotionTracker {
    cfg: MotionConfig,
    prev: Option<(Pyramid, Vec<BBox>)>,
    frames: u64,
    /// Memory reused from frame to frame: the pyramid before the previous one, the corners'
    /// integral images.
    spare: Option<Pyramid>,
    structure: Structure,
}

impl MotionTracker {
    #[must_use]
    pub fn new(cfg: MotionConfig) -> Self {
        Self {
            cfg,
            prev: None,
            frames: 0,
            spare: None,
            structure: Structure::default(),
        }
    }

    /// Forgets the previous frame (after a cut).
    pub fn reset(&mut self) {
        self.spare = self.prev.take().map(|(p, _)| p);
    }

    /// The motion from the previous frame to `img`; `None` on the first frame or when too few
    /// corners could be followed. `boxes` (players, source pixels) are kept out of the corners.
    pub fn update(&mut self, img: &RgbImage<'_>, boxes: &[BBox]) -> Option<Motion> {
        let cur = Pyramid::build_reusing(img, self.cfg.scale, self.cfg.levels, self.spare.take());
        self.frames += 1;
        let structure = &mut self.structure;
        let out = self.prev.as_ref().and_then(|(prev, prev_boxes)| {
            let pts = corners_with(prev, prev_boxes, &self.cfg, structure);
            let mut src = Vec::with_capacity(pts.len());
            let mut dst = Vec::with_capacity(pts.len());
            let s = self.cfg.scale as f64;
            for p in pts {
                if let Some(q) = track_point(prev, &cur, p, self.cfg.window) {
                    // level-0 index coordinates → source pixel coordinates (centres at +0.5)
                    src.push(Point::new((p.x + 0.5) * s, (p.y + 0.5) * s));
                    dst.push(Point::new((q.x + 0.5) * s, (q.y + 0.5) * s));
                }
            }
            let tracked = src.len();
            let (h, inl) = ransac_homography(&src, &dst, self.cfg.threshold_px, self.frames)?;
            Some(Motion {
                h,
                tracked,
                inliers: inl.len(),
            })
        });
        if let Some((old, _)) = self.prev.take() {
            self.spare = Some(old);
        }
        self.prev = Some((cur, boxes.to_vec()));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pyramid's grass mask (every other level-0 pixel) is the grass test of the source
    /// pixel each entry stands for, on odd sizes and scales too; its level 0 is the block mean.
    #[test]
    fn the_pyramid_grass_mask_is_the_source_pixels_grass() {
        for (w, h, scale) in [
            (64u32, 36u32, 2usize),
            (67, 41, 2),
            (61, 37, 3),
            (40, 30, 1),
        ] {
            let mut rgb = Vec::new();
            for y in 0..h {
                for x in 0..w {
                    // grass, white line and crowd in an irregular pattern
                    rgb.extend_from_slice(match (x * 7 + y * 3) % 5 {
                        0 | 1 => &[40u8, 130, 45],
                        2 => &[230, 235, 228],
                        3 => &[120, 60, 90],
                        _ => &[60, 150, 50],
                    });
                }
            }
            let img = RgbImage::new(&rgb, w, h).unwrap();
            let p = Pyramid::build(&img, scale, 3);
            let g = &p.levels[0];
            assert_eq!(
                (g.width, g.height),
                (w as usize / scale, h as usize / scale)
            );
            for v in 0..g.height.div_ceil(2) + 1 {
                for u in 0..g.width.div_ceil(2) + 1 {
                    let (x, y) = (2 * u * scale, 2 * v * scale);
                    let want = 2 * u < g.width
                        && 2 * v < g.height
                        && is_grass(img.pixel(x as u32, y as u32));
                    assert_eq!(p.grass_at_even(u, v), want, "{w}x{h}/{scale} at ({u}, {v})");
                }
            }
            let mean: f32 = (0..scale)
                .flat_map(|dy| (0..scale).map(move |dx| (dx, dy)))
                .map(|(dx, dy)| {
                    let [r, g, b] = img.pixel((scale + dx) as u32, (scale + dy) as u32);
                    (299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b)) as f32
                })
                .sum::<f32>()
                / (1000 * scale * scale) as f32;
            assert!(
                (g.get(1, 1) - mean).abs() < 1e-3,
                "{} vs {mean}",
                g.get(1, 1)
            );
        }
    }
}
