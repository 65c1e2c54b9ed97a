//! Broadcast graphics: the scoreboard, the channel's logo, a "LIVE" badge — parts of the picture
//! that stay put while the scene under them moves. The detector sometimes calls a round glyph
//! of such a graphic "ball" (on the shared real clip the "LIVE" badge was published as the
//! ball for 100 frames of a close-up), and in a shot without a camera nothing else says it is
//! off the pitch.
//!
//! [`GraphicsMask`] divides the frame into a grid of cells and keeps, for each, how much
//! evidence says it is a graphic: a cell with texture (a graphic's edges; a flat cell — grass,
//! sky — could be anything) whose content stayed the same while the picture moved under it by
//! at least [`GraphicsConfig::min_shift_px`] (the camera's frame-to-frame motion), or across a
//! cut, gains evidence; a change of its content takes [`GraphicsConfig::per_change`] away, and
//! a flat cell has none. A graphic over a compressed broadcast is not bit-still: on the shared
//! real clip (640×360) the "LIVE" badge's cells changed by more than 6 levels in 13–17 % of
//! the frames (a translucent badge, compression), so one change must not clear them, while a
//! scene cell under a pan changes on most frames. A real object stays in the same pixels while
//! the camera pans only if the camera follows it exactly, and not for long: a cell is a graphic
//! only after [`GraphicsConfig::evidence`] of it (a second of panning, or a few cuts), and
//! evidence stops growing at twice that, so a graphic taken away is forgotten within a few
//! frames of the scene showing through. The ring of cells along the frame's edges is never a
//! graphic: broadcast graphics sit inside the title-safe area, and a dark edge of the picture
//! (the shared clip has one on its left) is as still as a badge — at 720p the ball by that edge
//! was refused with it.

use crate::Point;
use crate::camera::lines::luma;
use crate::image::RgbImage;
use crate::pitch::Homography;

/// Settings of the graphics mask.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GraphicsConfig {
    /// Grid columns across the frame (the rows follow the frame's aspect, cells square).
    pub cols: u32,
    /// A cell's content is unchanged while none of its four quarters' mean luma moved more than
    /// this (8-bit levels; compression noise on a still graphic is 1–3).
    pub still_levels: f32,
    /// A cell has texture from this mean absolute luma step between neighbouring samples on.
    pub texture_levels: f32,
    /// The picture moved under a cell when the camera's motion carried its centre this far,
    /// pixels.
    pub min_shift_px: f64,
    /// Evidence from one frame of motion under an unchanged cell, and from a cut it survived
    /// unchanged (a new shot replaces everything but the graphics).
    pub per_moved_frame: u32,
    pub per_cut: u32,
    /// Evidence a change of the cell's content takes away.
    pub per_change: u32,
    /// Evidence that makes a cell a graphic.
    pub evidence: u32,
}

impl Default for GraphicsConfig {
    fn default() -> Self {
        Self {
            cols: 80,
            still_levels: 6.0,
            texture_levels: 6.0,
            min_shift_px: 3.0,
            per_moved_frame: 1,
            per_cut: 10,
            per_change: 3,
            evidence: 25,
        }
    }
}

/// How the picture changed since the previous frame.
#[derive(Debug, Clone, Copy)]
pub enum PictureChange<'a> {
    /// A cut to another shot.
    Cut,
    /// The camera's motion (previous pixels → these pixels).
    Moved(&'a Homography),
    /// Not known (no motion measured).
    Unknown,
}

/// One cell's content: the mean luma of its four quarters, and its texture.
#[derive(Debug, Clone, Copy, Default)]
struct Cell {
    quarters: [f32; 4],
    texture: f32,
}

/// Which parts of the frame are broadcast graphics, learnt from the frames seen.
#[derive(Debug, Clone)]
pub struct GraphicsMask {
    cfg: GraphicsConfig,
    width: u32,
    height: u32,
    cell_px: u32,
    cols: u32,
    rows: u32,
    cells: Vec<Cell>,
    evidence: Vec<u32>,
}

impl GraphicsMask {
    #[must_use]
    pub fn new(cfg: GraphicsConfig) -> Self {
        Self {
            cfg,
            width: 0,
            height: 0,
            cell_px: 0,
            cols: 0,
            rows: 0,
            cells: Vec::new(),
            evidence: Vec::new(),
        }
    }

    /// Reads a frame; `change` says how the picture moved since the previous one.
    pub fn observe(&mut self, img: &RgbImage<'_>, change: PictureChange<'_>) {
        let cells = if img.width() == self.width && img.height() == self.height {
            self.measure(img)
        } else {
            // the first frame, or another frame size: start over
            self.width = img.width();
            self.height = img.height();
            // 4 × 4 samples a cell, `cell_px / 4` apart
            self.cell_px = (img.width() / self.cfg.cols.max(1) / 4).max(1) * 4;
            self.cols = img.width() / self.cell_px;
            self.rows = img.height() / self.cell_px;
            self.evidence = vec![0; (self.cols * self.rows) as usize];
            self.cells = self.measure(img);
            return;
        };
        let cfg = self.cfg;
        for (i, (now, before)) in cells.iter().zip(&self.cells).enumerate() {
            let textured =
                now.texture >= cfg.texture_levels && before.texture >= cfg.texture_levels;
            let still = now
                .quarters
                .iter()
                .zip(&before.quarters)
                .all(|(a, b)| (a - b).abs() <= cfg.still_levels);
            if !textured {
                self.evidence[i] = 0;
                continue;
            }
            if !still {
                self.evidence[i] = self.evidence[i].saturating_sub(cfg.per_change);
                continue;
            }
            let gain = match change {
                PictureChange::Cut => cfg.per_cut,
                PictureChange::Moved(h) => {
                    let c = self.centre(i);
                    let moved = h
                        .apply(c)
                        .is_some_and(|p| p.distance(&c) >= cfg.min_shift_px);
                    if moved { cfg.per_moved_frame } else { 0 }
                }
                PictureChange::Unknown => 0,
            };
            self.evidence[i] = (self.evidence[i] + gain).min(2 * cfg.evidence);
        }
        self.cells = cells;
    }

    /// Whether the pixel `p` lies on a graphic.
    #[must_use]
    pub fn covers(&self, p: Point) -> bool {
        self.cell_at(p).is_some_and(|i| self.graphic(i))
    }

    /// Whether cell `i` is a graphic: enough evidence, and not on the frame's edge.
    fn graphic(&self, i: usize) -> bool {
        let (c, r) = (i as u32 % self.cols, i as u32 / self.cols);
        let inside = c > 0 && r > 0 && c + 1 < self.cols && r + 1 < self.rows;
        inside && self.evidence[i] >= self.cfg.evidence
    }

    /// The share of the frame's cells that are graphics (0 before a frame is seen).
    #[must_use]
    pub fn share(&self) -> f64 {
        if self.evidence.is_empty() {
            return 0.0;
        }
        let n = (0..self.evidence.len())
            .filter(|&i| self.graphic(i))
            .count();
        n as f64 / self.evidence.len() as f64
    }

    fn cell_at(&self, p: Point) -> Option<usize> {
        if !(p.x >= 0.0 && p.y >= 0.0) || self.cell_px == 0 {
            return None;
        }
        let (c, r) = (
            (p.x / f64::from(self.cell_px)) as u32,
            (p.y / f64::from(self.cell_px)) as u32,
        );
        (c < self.cols && r < self.rows).then(|| (r * self.cols + c) as usize)
    }

    fn centre(&self, i: usize) -> Point {
        let (c, r) = (i as u32 % self.cols, i as u32 / self.cols);
        let s = f64::from(self.cell_px);
        Point::new((f64::from(c) + 0.5) * s, (f64::from(r) + 0.5) * s)
    }

    /// Every cell's content, from 4 × 4 samples `cell_px / 4` apart (a row's samples read
    /// once, then summed per cell).
    fn measure(&self, img: &RgbImage<'_>) -> Vec<Cell> {
        let (w, s) = (img.width() as usize, self.cell_px as usize);
        let (cols, rows) = (self.cols as usize, self.rows as usize);
        let data = img.data();
        let (step, per_cell, first_half) = (s / 4, 4, 2);
        let half = s / 2;
        let mut sums = vec![[0.0f32; 4]; cols * rows];
        let mut steps = vec![0.0f32; cols * rows];
        let mut lum = vec![0.0f32; cols * per_cell];
        for y in (0..rows * s).step_by(step) {
            let row = &data[y * w * 3..(y + 1) * w * 3];
            for (l, px) in lum.iter_mut().zip(row.chunks_exact(3 * step)) {
                *l = luma([px[0], px[1], px[2]]);
            }
            let (r, q) = (y / s, 2 * usize::from(y % s >= half));
            for (c, cell) in lum.chunks_exact(per_cell).enumerate() {
                let k = r * cols + c;
                let (left, right) = cell.split_at(first_half);
                sums[k][q] += left.iter().sum::<f32>();
                sums[k][q + 1] += right.iter().sum::<f32>();
                steps[k] += cell.windows(2).map(|p| (p[0] - p[1]).abs()).sum::<f32>();
            }
        }
        // each quarter holds 2 × 2 samples; each cell 4 rows of 3 steps
        let n_steps = (per_cell * (per_cell - 1)) as f32;
        sums.iter()
            .zip(&steps)
            .map(|(q, &st)| {
                let mut quarters = [0.0f32; 4];
                for (v, sum) in quarters.iter_mut().zip(q) {
                    *v = sum / 4.0;
                }
                Cell {
                    quarters,
                    texture: st / n_steps,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
