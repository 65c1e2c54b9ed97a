//! White pitch-line pixels: a pixel is on a line when it is brighter, by a margin, than the
//! pixels a little way to both sides across the line, and those are grass (the classic top-hat
//! test of broadcast line detectors). Two ways to ask: along one direction from a predicted
//! point ([`search_normal`], what tracking uses, a few hundred short walks per frame), or over the
//! whole frame ([`LineMask`], what initialisation uses).

use crate::{BBox, Point, RgbImage};

/// Thresholds of the line test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineTest {
    /// A line pixel is at least this much brighter (0–255 luma) than both sides.
    pub min_contrast: f32,
    /// A line pixel's colour spread (max − min channel) at most this.
    pub max_chroma: f32,
}

impl Default for LineTest {
    fn default() -> Self {
        Self {
            min_contrast: 18.0,
            max_chroma: 90.0,
        }
    }
}

/// Luma (0–255) of a pixel.
#[must_use]
pub fn luma(px: [u8; 3]) -> f32 {
    0.299 * f32::from(px[0]) + 0.587 * f32::from(px[1]) + 0.114 * f32::from(px[2])
}

/// Whether a pixel looks like grass: green the strongest channel, not too dark or grey.
#[must_use]
pub fn is_grass(px: [u8; 3]) -> bool {
    let [r, g, b] = px.map(i32::from);
    g >= 30 && g > r + 4 && g > b + 4 && g - r.min(b) >= 12
}

/// The pixel at `p` (rounded), if inside.
fn at(img: &RgbImage<'_>, x: f64, y: f64) -> Option<[u8; 3]> {
    if !(x >= 0.0 && y >= 0.0 && x < f64::from(img.width()) && y < f64::from(img.height())) {
        return None;
    }
    // non-negative here, so truncation is the floor
    Some(img.pixel(x as u32, y as u32))
}

/// A learned line map's probability at or above which a point is on a line.
pub const LINE_PROBABILITY: f32 = 0.5;

/// The line response at `p` across direction `n`. With a learned [`crate::image::LineMap`] on
/// the image: the map's probability (×100) where it says "line", else 0. Without: the top-hat —
/// how much brighter `p` is than the pixels `half_width` away on both sides, when both sides are
/// grass and `p` is whitish; 0 otherwise.
fn response(img: &RgbImage<'_>, p: Point, n: (f64, f64), half_width: f64, t: &LineTest) -> f32 {
    if let Some(map) = img.lines() {
        let v = map.at(p.x, p.y);
        return if v >= LINE_PROBABILITY {
            v * 100.0
        } else {
            0.0
        };
    }
    let Some(c) = at(img, p.x, p.y) else {
        return 0.0;
    };
    let chroma =
        f32::from(*c.iter().max().unwrap_or(&0)) - f32::from(*c.iter().min().unwrap_or(&0));
    if chroma > t.max_chroma {
        return 0.0;
    }
    let side = |k: f64| at(img, p.x + k * n.0 * half_width, p.y + k * n.1 * half_width);
    let (Some(a), Some(b)) = (side(-1.0), side(1.0)) else {
        return 0.0;
    };
    if !(is_grass(a) && is_grass(b)) {
        return 0.0;
    }
    let r = luma(c) - luma(a).max(luma(b));
    if r >= t.min_contrast { r } else { 0.0 }
}

/// Walks from `p` along the unit normal `n`, up to `reach` pixels either way, and returns the
/// signed offset (sub-pixel) of the strongest line response, or `None` when no pixel passes the
/// line test. `half_width` is how far beside the line the grass is looked for.
#[must_use]
pub fn search_normal(
    img: &RgbImage<'_>,
    p: Point,
    n: (f64, f64),
    reach: f64,
    half_width: f64,
    test: &LineTest,
) -> Option<f64> {
    let steps = reach.max(1.0).ceil() as i32;
    let mut best = (0.0_f32, 0_i32);
    let mut resp = Vec::with_capacity((2 * steps + 1) as usize);
    for k in -steps..=steps {
        let q = Point::new(p.x + n.0 * f64::from(k), p.y + n.1 * f64::from(k));
        let r = response(img, q, n, half_width, test);
        resp.push(r);
        // prefer the nearest of equally strong responses
        if r > best.0 || (r == best.0 && r > 0.0 && k.abs() < best.1.abs()) {
            best = (r, k);
        }
    }
    if best.0 <= 0.0 {
        return None;
    }
    // the middle of the run of line pixels around the peak (lines are several pixels wide)
    let i = (best.1 + steps) as usize;
    let (mut lo, mut hi) = (i, i);
    while lo > 0 && resp[lo - 1] > 0.0 {
        lo -= 1;
    }
    while hi + 1 < resp.len() && resp[hi + 1] > 0.0 {
        hi += 1;
    }
    let (mut sum, mut wsum) = (0.0_f64, 0.0_f64);
    for (j, r) in resp.iter().enumerate().take(hi + 1).skip(lo) {
        sum += f64::from(*r) * (j as f64 - f64::from(steps));
        wsum += f64::from(*r);
    }
    Some(sum / wsum)
}

/// A binary map of line pixels over the whole frame at `1/step` resolution, and the grass around
/// them, for initialisation.
#[derive(Debug, Clone)]
pub struct LineMask {
    pub width: usize,
    pub height: usize,
    /// Source pixels per mask cell.
    pub step: usize,
    pub line: Vec<bool>,
    pub grass: Vec<bool>,
}

impl LineMask {
    /// Tests every `step`-th pixel horizontally and vertically (top-hat of `half_width` source
    /// pixels); pixels inside `exclude` boxes (players, in source pixels) are never line pixels.
    #[must_use]
    pub fn build(
        img: &RgbImage<'_>,
        step: usize,
        half_width: f64,
        exclude: &[BBox],
        test: &LineTest,
    ) -> Self {
        let step = step.max(1);
        let (w, h) = (img.width() as usize / step, img.height() as usize / step);
        let mut line = vec![false; w * h];
        let mut grass = vec![false; w * h];
        for y in 0..h {
            for x in 0..w {
                let p = Point::new((x * step) as f64 + 0.5, (y * step) as f64 + 0.5);
                let px = img.pixel((x * step) as u32, (y * step) as u32);
                grass[y * w + x] = is_grass(px);
                let inside_box = exclude.iter().any(|b| {
                    let (bx, by) = (p.x as f32, p.y as f32);
                    bx >= b.x1 && bx <= b.x2 && by >= b.y1 && by <= b.y2
                });
                if inside_box {
                    continue;
                }
                // a line pixel in either direction; sample the best of a few sub-steps so thin
                // lines between sampled rows/columns are not missed
                let mut hit = false;
                for o in 0..step {
                    let o = o as f64;
                    if response(img, Point::new(p.x + o, p.y), (1.0, 0.0), half_width, test) > 0.0
                        || response(img, Point::new(p.x, p.y + o), (0.0, 1.0), half_width, test)
                            > 0.0
                    {
                        hit = true;
                        break;
                    }
                }
                line[y * w + x] = hit;
            }
        }
        Self {
            width: w,
            height: h,
            step,
            line,
            grass,
        }
    }

    /// The share of cells that are grass.
    #[must_use]
    pub fn grass_share(&self) -> f64 {
        self.grass.iter().filter(|g| **g).count() as f64 / self.grass.len().max(1) as f64
    }

    /// The number of line cells.
    #[must_use]
    pub fn line_count(&self) -> usize {
        self.line.iter().filter(|l| **l).count()
    }
}

/// Distance (in mask cells) from every cell to the nearest line cell, exact Euclidean
/// (Felzenszwalb–Huttenlocher, two passes of the 1-D lower envelope), capped at `cap`.
#[must_use]
pub fn distance_to_lines(mask: &LineMask, cap: f32) -> Vec<f32> {
    let (w, h) = (mask.width, mask.height);
    let inf = 1e12_f64;
    let mut g: Vec<f64> = mask
        .line
        .iter()
        .map(|&l| if l { 0.0 } else { inf })
        .collect();
    let mut f = vec![0.0; w.max(h)];
    let mut d = vec![0.0; w.max(h)];
    let mut v = vec![0usize; w.max(h)];
    let mut z = vec![0.0; w.max(h) + 1];
    // columns
    for x in 0..w {
        for y in 0..h {
            f[y] = g[y * w + x];
        }
        envelope(&f[..h], &mut d[..h], &mut v, &mut z);
        for y in 0..h {
            g[y * w + x] = d[y];
        }
    }
    // rows
    for y in 0..h {
        f[..w].copy_from_slice(&g[y * w..(y + 1) * w]);
        envelope(&f[..w], &mut d[..w], &mut v, &mut z);
        g[y * w..(y + 1) * w].copy_from_slice(&d[..w]);
    }
    g.iter().map(|&s| (s.sqrt() as f32).min(cap)).collect()
}

/// The 1-D squared distance transform of sampled function `f` into `d`.
fn envelope(f: &[f64], d: &mut [f64], v: &mut [usize], z: &mut [f64]) {
    let n = f.len();
    if n == 0 {
        return;
    }
    let mut k = 0usize;
    v[0] = 0;
    z[0] = f64::NEG_INFINITY;
    z[1] = f64::INFINITY;
    for q in 1..n {
        loop {
            let p = v[k];
            let s = ((f[q] + (q * q) as f64) - (f[p] + (p * p) as f64)) / (2.0 * (q - p) as f64);
            if s <= z[k] && k > 0 {
                k -= 1;
                continue;
            }
            if s <= z[k] {
                // k == 0 and the new parabola is lower everywhere to the left
                v[0] = q;
                z[0] = f64::NEG_INFINITY;
                z[1] = f64::INFINITY;
                break;
            }
            k += 1;
            v[k] = q;
            z[k] = s;
            z[k + 1] = f64::INFINITY;
            break;
        }
    }
    k = 0;
    for (q, out) in d.iter_mut().enumerate() {
        while z[k + 1] < q as f64 {
            k += 1;
        }
        let p = v[k];
        let dq = q as f64 - p as f64;
        *out = dq * dq + f[p];
    }
}
