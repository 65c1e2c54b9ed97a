//! The ball's box re-centred on the ball itself, at the image's own resolution.
//!
//! A detector with a stride-4 head sees a broadcast ball as a blob of 4–6 input pixels; its box
//! centre is often 2–5 image pixels off, which on a 10 px ball is the difference between IoU 0.7
//! and 0.3. The ball is the brightest compact blob in its box, so the centre is measured on the
//! pixels: the connected bright blob around the brightest pixel of the box (8-connected, above
//! background + 0.7 of the peak's contrast), its contrast-weighted centroid, averaged with the
//! detector's centre. The size stays the detector's (the labelled box includes the ball's blur,
//! which a threshold cannot see). A box whose blob is faint, spills far beyond the box or sits
//! more than a box away is left as it was.

use super::Detection;
use crate::{BBox, RgbImage};
use sportz_contract::ObjectClass;

/// Smallest peak-over-background luma contrast (0–255) taken for a ball.
const MIN_CONTRAST: f32 = 20.0;
/// Share of the peak's contrast a pixel needs to belong to the blob.
const BLOB_LEVEL: f32 = 0.7;
/// Weight of the measured centre against the detector's.
const MEASURED_WEIGHT: f64 = 0.5;
/// Ball detections below this confidence are left as they are (they are thousands, and none of
/// them is the ball that matters).
pub const RECENTRE_MIN_CONFIDENCE: f32 = 0.02;

fn luma(p: [u8; 3]) -> f32 {
    0.299 * f32::from(p[0]) + 0.587 * f32::from(p[1]) + 0.114 * f32::from(p[2])
}

/// The ball box `b` (image pixels) moved onto the bright blob it holds, or `None` when there is
/// no such blob (too faint, spilling far beyond the box, or more than a box away).
#[must_use]
pub fn recentre_ball(image: &RgbImage<'_>, b: BBox) -> Option<BBox> {
    let (w, h) = (f64::from(b.width()), f64::from(b.height()));
    if !(w > 0.0 && h > 0.0) {
        return None;
    }
    let (cx, cy) = (f64::from(b.x1 + b.x2) / 2.0, f64::from(b.y1 + b.y2) / 2.0);
    let (iw, ih) = (i64::from(image.width()), i64::from(image.height()));
    // the window: the box's centre ± 1.5 box sizes + 3 px
    let r = (1.5 * w.max(h)) as i64 + 3;
    let (x0, x1) = ((cx as i64 - r).max(0), (cx as i64 + r + 1).min(iw));
    let (y0, y1) = ((cy as i64 - r).max(0), (cy as i64 + r + 1).min(ih));
    if x1 - x0 < 3 || y1 - y0 < 3 {
        return None;
    }
    let (ww, wh) = ((x1 - x0) as usize, (y1 - y0) as usize);
    let mut win = Vec::with_capacity(ww * wh);
    for y in y0..y1 {
        for x in x0..x1 {
            win.push(luma(image.pixel(x as u32, y as u32)));
        }
    }
    let background = {
        let mut v = win.clone();
        let mid = v.len() / 2;
        *v.select_nth_unstable_by(mid, f32::total_cmp).1
    };
    // the brightest pixel of the box grown by a pixel (first in row order on ties)
    let clampx = |v: f64| (v as i64 - x0).clamp(0, ww as i64) as usize;
    let clampy = |v: f64| (v as i64 - y0).clamp(0, wh as i64) as usize;
    let (bx0, bx1) = (clampx(f64::from(b.x1) - 1.0), clampx(f64::from(b.x2) + 2.0));
    let (by0, by1) = (clampy(f64::from(b.y1) - 1.0), clampy(f64::from(b.y2) + 2.0));
    let mut peak: Option<(usize, usize, f32)> = None;
    for y in by0..by1 {
        for x in bx0..bx1 {
            let v = win[y * ww + x];
            if peak.is_none_or(|p| v > p.2) {
                peak = Some((x, y, v));
            }
        }
    }
    let (px, py, pv) = peak?;
    if pv - background < MIN_CONTRAST {
        return None;
    }
    let level = background + BLOB_LEVEL * (pv - background);
    // 8-connected flood fill from the peak; a blob much larger than the box is not the ball
    let limit = (4.0 * w.max(h).powi(2)) as usize;
    let mut seen = vec![false; ww * wh];
    let mut stack = vec![(px, py)];
    seen[py * ww + px] = true;
    let (mut n, mut sw, mut sx, mut sy) = (0usize, 0.0f64, 0.0f64, 0.0f64);
    while let Some((x, y)) = stack.pop() {
        n += 1;
        if n > limit {
            return None;
        }
        let wgt = f64::from(win[y * ww + x] - background);
        sw += wgt;
        sx += wgt * x as f64;
        sy += wgt * y as f64;
        for (dx, dy) in [
            (-1, -1),
            (0, -1),
            (1, -1),
            (-1, 0),
            (1, 0),
            (-1, 1),
            (0, 1),
            (1, 1),
        ] {
            let (nx, ny) = (x as i64 + dx, y as i64 + dy);
            if nx < 0 || ny < 0 || nx >= ww as i64 || ny >= wh as i64 {
                continue;
            }
            let k = ny as usize * ww + nx as usize;
            if !seen[k] && win[k] >= level {
                seen[k] = true;
                stack.push((nx as usize, ny as usize));
            }
        }
    }
    // pixel centres are at +0.5
    let mx = x0 as f64 + 0.5 + sx / sw;
    let my = y0 as f64 + 0.5 + sy / sw;
    if (mx - cx).abs() > w || (my - cy).abs() > h {
        return None;
    }
    let ncx = MEASURED_WEIGHT * mx + (1.0 - MEASURED_WEIGHT) * cx;
    let ncy = MEASURED_WEIGHT * my + (1.0 - MEASURED_WEIGHT) * cy;
    Some(BBox::from_cxcywh(
        ncx as f32, ncy as f32, w as f32, h as f32,
    ))
}

/// [`recentre_ball`] on every ball detection at or above [`RECENTRE_MIN_CONFIDENCE`] (boxes in
/// `image`'s pixels); returns how many moved.
pub fn recentre_balls(image: &RgbImage<'_>, detections: &mut [Detection]) -> usize {
    let mut moved = 0;
    for d in detections
        .iter_mut()
        .filter(|d| d.class == Some(ObjectClass::Ball) && d.confidence >= RECENTRE_MIN_CONFIDENCE)
    {
        if let Some(b) = recentre_ball(image, d.bbox) {
            d.bbox = b;
            moved += 1;
        }
    }
    moved
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A grass-green image with a white ball: a disc of radius `r` at `(cx, cy)`.
    fn pitch_with_ball(w: u32, h: u32, cx: f64, cy: f64, r: f64) -> Vec<u8> {
        let mut px = Vec::with_capacity((w * h * 3) as usize);
        for y in 0..h {
            for x in 0..w {
                let d = (f64::from(x) + 0.5 - cx).hypot(f64::from(y) + 0.5 - cy);
                px.extend_from_slice(if d <= r {
                    &[235, 235, 230]
                } else {
                    &[60, 120, 50]
                });
            }
        }
        px
    }

    #[test]
    fn an_offset_box_moves_halfway_to_the_ball() {
        let data = pitch_with_ball(64, 48, 30.0, 20.0, 4.0);
        let img = RgbImage::new(&data, 64, 48).unwrap();
        // detector box 10×10 centred 4 px right and 2 px below the ball
        let b = recentre_ball(&img, BBox::from_cxcywh(34.0, 22.0, 10.0, 10.0)).unwrap();
        let (cx, cy) = ((b.x1 + b.x2) / 2.0, (b.y1 + b.y2) / 2.0);
        assert!(
            (cx - 32.0).abs() < 0.05 && (cy - 21.0).abs() < 0.05,
            "{b:?}"
        );
        assert!((b.width() - 10.0).abs() < 1e-4 && (b.height() - 10.0).abs() < 1e-4);
    }

    #[test]
    fn a_box_without_a_bright_blob_or_with_a_huge_one_stays() {
        // plain grass: nothing to centre on
        let grass = pitch_with_ball(64, 48, -100.0, -100.0, 1.0);
        let img = RgbImage::new(&grass, 64, 48).unwrap();
        assert_eq!(
            recentre_ball(&img, BBox::from_cxcywh(30.0, 20.0, 8.0, 8.0)),
            None
        );
        // a white area far larger than the box (a shirt, the boards): not a ball
        let white = pitch_with_ball(64, 48, 30.0, 20.0, 30.0);
        let img = RgbImage::new(&white, 64, 48).unwrap();
        assert_eq!(
            recentre_ball(&img, BBox::from_cxcywh(30.0, 20.0, 4.0, 4.0)),
            None
        );
    }

    #[test]
    fn only_confident_enough_ball_detections_move() {
        let data = pitch_with_ball(64, 48, 30.0, 20.0, 4.0);
        let img = RgbImage::new(&data, 64, 48).unwrap();
        let det = |class, confidence| Detection {
            class: Some(class),
            confidence,
            ..Detection::new(BBox::from_cxcywh(34.0, 20.0, 10.0, 10.0), confidence, 0)
        };
        let mut dets = [
            det(ObjectClass::Ball, 0.5),
            det(ObjectClass::Ball, 0.01),
            det(ObjectClass::Player, 0.9),
        ];
        assert_eq!(recentre_balls(&img, &mut dets), 1);
        assert!((dets[0].bbox.x1 - 27.0).abs() < 0.05, "{:?}", dets[0].bbox);
        assert!((dets[1].bbox.x1 - 29.0).abs() < 1e-4);
        assert!((dets[2].bbox.x1 - 29.0).abs() < 1e-4);
    }
}
