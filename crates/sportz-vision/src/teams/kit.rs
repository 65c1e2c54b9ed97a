//! The kit colour a team is drawn in (radar, overlay): the dominant colour of its shirts' pixels,
//! not the mean torso colour the clustering uses. A mean mixes the shirt with the head, the skin,
//! the shorts and the grass bleeding into a player a few pixels wide (a red side published as tan
//! on a 360p broadcast); here each crop gives the shirt pixels least like the grass around the
//! player, each side pools them, and the published colour is the pool's dominant hue (or, for a
//! white, grey or black kit, the median of its unsaturated pixels).

use super::{Colour, is_grass};
use crate::{BBox, RgbImage};

/// Pixels one crop gives at most.
pub const KIT_SAMPLE: usize = 24;

/// Two sides whose kit colours lie closer than this (RGB distance, 0..=255 per channel) wear
/// one kit. Measured: one kit split in two by the clustering gives 0–2 (`sportz synth --one-kit`,
/// seed 13579); the synth's most alike pair of kits (red and orange) 111 apart, the shared real
/// clip's 115.
pub const ONE_KIT_RGB: f32 = 30.0;

/// Pixels a side's pool keeps (the most recent).
const POOL: usize = 16384;
/// Pixels a pool needs before it publishes a colour of its own.
const MIN_POOL: usize = 256;
/// New pixels between two recomputations of a pool's colour.
const REFRESH: usize = 512;

/// At most [`KIT_SAMPLE`] shirt pixels of one crop (a fixed array: no allocation per person).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KitPixels {
    px: [[u8; 3]; KIT_SAMPLE],
    len: usize,
}

impl Default for KitPixels {
    fn default() -> Self {
        Self {
            px: [[0; 3]; KIT_SAMPLE],
            len: 0,
        }
    }
}

impl KitPixels {
    #[must_use]
    pub fn as_slice(&self) -> &[[u8; 3]] {
        &self.px[..self.len]
    }
}

/// Candidates one crop reads at most (larger crops are read on a coarser grid).
const MAX_CANDIDATES: usize = 256;

/// The shirt pixels of a person's box: within the middle half across, the rows where the person
/// is (rows with at least a quarter non-grass: a detector's box often has grass above the head),
/// from 15 % to 55 % of that height; of their non-grass pixels, the half farthest from the mean
/// colour of the box's grass, at most [`KIT_SAMPLE`] spread evenly. Empty when the box is off
/// the image, has no grass to compare with, or shows too little of a person.
#[must_use]
pub fn kit_pixels(image: &RgbImage<'_>, bbox: &BBox) -> KitPixels {
    shirt_sample(image, bbox).1
}

/// One read of a person's box for both of its shirt figures: the torso colour the clustering
/// uses ([`super::torso_colour`]) and the kit pixels ([`kit_pixels`]), from the same pass over
/// the box's middle half.
#[must_use]
pub fn shirt_sample(image: &RgbImage<'_>, bbox: &BBox) -> (Option<Colour>, KitPixels) {
    let mut out = KitPixels::default();
    let b = bbox.clamp_to(image.width() as f32, image.height() as f32);
    let (w, bh) = (b.width(), b.height());
    let (x0, x1) = (
        (b.x1 + 0.25 * w) as u32,
        ((b.x1 + 0.75 * w).ceil() as u32).min(image.width()),
    );
    let (y0, y1) = (b.y1 as u32, (b.y2.ceil() as u32).min(image.height()));
    // the torso band of the clustering's colour: 15–50 % of the box
    let (t0, t1) = (
        (b.y1 + 0.15 * bh) as u32,
        ((b.y1 + 0.5 * bh).ceil() as u32).min(image.height()),
    );
    let (mut torso, mut kept, mut total) = ([0.0f32; 3], 0u32, 0u32);
    let cols = x1.saturating_sub(x0);
    let (mut grass, mut grass_n) = ([0u32; 3], 0u32);
    let (mut top, mut bottom) = (None, 0);
    for y in y0..y1 {
        let in_torso = (t0..t1).contains(&y);
        let mut person = 0;
        for x in x0..x1 {
            let p = image.pixel(x, y);
            total += u32::from(in_torso);
            if is_grass(p) {
                grass_n += 1;
                for (s, v) in grass.iter_mut().zip(p) {
                    *s += u32::from(v);
                }
            } else {
                person += 1;
                if in_torso {
                    kept += 1;
                    for (s, v) in torso.iter_mut().zip(p) {
                        *s += f32::from(v) / 255.0;
                    }
                }
            }
        }
        if cols > 0 && person * 4 >= cols {
            top.get_or_insert(y);
            bottom = y + 1;
        }
    }
    let torso = (total > 0 && kept * 4 >= total).then(|| torso.map(|s| s / kept as f32));
    let Some(top) = top else {
        return (torso, out);
    };
    if grass_n < 3 || bottom < top + 4 {
        return (torso, out);
    }
    let grass = grass.map(|s| s as f32 / grass_n as f32);
    let h = (bottom - top) as f32;
    let (band0, band1) = (
        top + (0.15 * h) as u32,
        (top + (0.55 * h).ceil() as u32).min(bottom),
    );
    // a coarser grid on large crops, so a close-up costs no more than a distant player
    let area = ((band1 - band0) * cols) as usize;
    let step = (area / MAX_CANDIDATES + 1).isqrt().max(1) as u32;
    let mut candidates = [([0u8; 3], 0.0f32); MAX_CANDIDATES];
    let mut n = 0;
    'rows: for y in (band0..band1).step_by(step as usize) {
        for x in (x0..x1).step_by(step as usize) {
            let p = image.pixel(x, y);
            if is_grass(p) {
                continue;
            }
            if n == MAX_CANDIDATES {
                break 'rows;
            }
            let d: f32 = p
                .iter()
                .zip(grass)
                .map(|(&v, g)| (f32::from(v) - g).powi(2))
                .sum();
            candidates[n] = (p, d);
            n += 1;
        }
    }
    if n == 0 {
        return (torso, out);
    }
    let candidates = &candidates[..n];
    // the farther half: at and above the median distance, in reading order
    let mut d = [0.0f32; MAX_CANDIDATES];
    for (d, c) in d.iter_mut().zip(candidates) {
        *d = c.1;
    }
    let median = *d[..n].select_nth_unstable_by(n / 2, f32::total_cmp).1;
    let far = candidates.iter().filter(|c| c.1 >= median);
    let count = far.clone().count();
    let take = count.min(KIT_SAMPLE);
    // every (count / take)-th of them
    let mut next = 0;
    for (i, c) in far.enumerate() {
        if next < take && i == next * count / take {
            out.px[next] = c.0;
            next += 1;
        }
    }
    out.len = take;
    (torso, out)
}

/// Hue in degrees (0..360), saturation and value (0..=1) of an RGB pixel.
fn hsv(p: [u8; 3]) -> (f32, f32, f32) {
    let [r, g, b] = p.map(|v| f32::from(v) / 255.0);
    let max = r.max(g).max(b);
    let min = r.min(g).min(b);
    let c = max - min;
    let s = if max > 0.0 { c / max } else { 0.0 };
    let h = if c == 0.0 {
        0.0
    } else if max == r {
        60.0 * ((g - b) / c).rem_euclid(6.0)
    } else if max == g {
        60.0 * ((b - r) / c + 2.0)
    } else {
        60.0 * ((r - g) / c + 4.0)
    };
    (h, s, max)
}

/// A pixel counts as coloured (its hue means something) at this saturation and brightness.
const MIN_SATURATION: f32 = 0.3;
const MIN_VALUE: f32 = 0.15;
/// A kit is coloured when at least this share of its pixels are.
const MIN_COLOURED_SHARE: f32 = 0.4;
/// Pixels within this many degrees of the dominant hue make the colour.
const HUE_WINDOW: f32 = 15.0;

/// The dominant colour of a kit's pixels: when enough of them are coloured, the per-channel
/// median of the coloured pixels near the most common hue (10° bins weighted by saturation,
/// neighbours at half weight);
/// otherwise (white, grey, black kits) the median of the unsaturated ones. `None` for no pixels.
#[must_use]
pub fn dominant_colour(pixels: &[[u8; 3]]) -> Option<Colour> {
    if pixels.is_empty() {
        return None;
    }
    let hsv: Vec<(f32, f32, f32)> = pixels.iter().map(|&p| hsv(p)).collect();
    let coloured = |(_, s, v): (f32, f32, f32)| s >= MIN_SATURATION && v >= MIN_VALUE;
    let n_coloured = hsv.iter().filter(|&&x| coloured(x)).count();
    let chosen: Vec<[u8; 3]> = if n_coloured as f32 >= MIN_COLOURED_SHARE * pixels.len() as f32 {
        // weighted by saturation: a shirt's colour is more saturated than the skin and the
        // grass-mixed edges that share its hue range
        let mut bins = [0f32; 36];
        for &(h, s, _) in hsv.iter().filter(|&&x| coloured(x)) {
            bins[(h / 10.0) as usize % 36] += s;
        }
        // neighbours at half weight: a hue on a bin edge is not split in two, and two hues
        // two bins apart do not make a mode between them
        let smoothed = |i: usize| 0.5 * (bins[(i + 35) % 36] + bins[(i + 1) % 36]) + bins[i];
        let mode = (0..36).max_by(|&a, &b| smoothed(a).total_cmp(&smoothed(b)).then(b.cmp(&a)))?;
        let centre = mode as f32 * 10.0 + 5.0;
        pixels
            .iter()
            .zip(&hsv)
            .filter(|&(_, &x)| {
                let dh = (x.0 - centre + 180.0).rem_euclid(360.0) - 180.0;
                coloured(x) && dh.abs() <= HUE_WINDOW
            })
            .map(|(&p, _)| p)
            .collect()
    } else {
        pixels
            .iter()
            .zip(&hsv)
            .filter(|&(_, &x)| !coloured(x))
            .map(|(&p, _)| p)
            .collect()
    };
    let median = |c: usize| {
        let mut v: Vec<u8> = chosen.iter().map(|p| p[c]).collect();
        let mid = v.len() / 2;
        f32::from(*v.select_nth_unstable(mid).1) / 255.0
    };
    (!chosen.is_empty()).then(|| [median(0), median(1), median(2)])
}

/// One side's recent shirt pixels and the colour they give.
#[derive(Debug, Clone, Default)]
pub(super) struct KitPool {
    pixels: Vec<[u8; 3]>,
    /// Where the next pixel goes once the pool is full (the oldest).
    next: usize,
    /// Pixels added since `colour` was computed.
    fresh: usize,
    colour: Option<Colour>,
}

impl KitPool {
    pub(super) fn add(&mut self, pixels: &[[u8; 3]]) {
        for &p in pixels {
            if self.pixels.len() < POOL {
                self.pixels.push(p);
            } else {
                self.pixels[self.next] = p;
                self.next = (self.next + 1) % POOL;
            }
        }
        self.fresh += pixels.len();
        let due = if self.colour.is_some() {
            REFRESH
        } else {
            MIN_POOL
        };
        if self.fresh >= due && self.pixels.len() >= MIN_POOL {
            self.colour = dominant_colour(&self.pixels);
            self.fresh = 0;
        }
    }

    /// The pool's colour once it holds enough pixels.
    pub(super) const fn colour(&self) -> Option<Colour> {
        self.colour
    }
}

#[cfg(test)]
mod tests;
