//! Shot cuts: a change of camera shows as a jump in the frame's colour distribution (a coarse
//! RGB histogram of every 4th pixel, compared by total variation with the previous frame's).

use crate::RgbImage;

const BINS: usize = 4 * 4 * 4;

/// The colour histogram of a frame, normalised to sum 1.
#[must_use]
pub fn histogram(img: &RgbImage<'_>) -> [f32; BINS] {
    let mut h = [0.0_f32; BINS];
    let (w, ht) = (img.width(), img.height());
    let mut n = 0u32;
    for y in (0..ht).step_by(4) {
        for x in (0..w).step_by(4) {
            let [r, g, b] = img.pixel(x, y);
            let i = usize::from(r >> 6) * 16 + usize::from(g >> 6) * 4 + usize::from(b >> 6);
            h[i] += 1.0;
            n += 1;
        }
    }
    let k = 1.0 / n.max(1) as f32;
    h.map(|v| v * k)
}

/// Half the L1 distance of two histograms: 0 (same colours) to 1 (nothing in common).
#[must_use]
pub fn change(a: &[f32; BINS], b: &[f32; BINS]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum::<f32>() / 2.0
}

/// Remembers the previous frame's histogram and says when a new shot starts.
#[derive(Debug, Clone)]
pub struct CutDetector {
    prev: Option<[f32; BINS]>,
    /// A change above this is a cut.
    pub threshold: f32,
}

impl Default for CutDetector {
    fn default() -> Self {
        Self {
            prev: None,
            threshold: 0.3,
        }
    }
}

impl CutDetector {
    /// Whether `img` starts a new shot (never on the first frame); also returns the change.
    pub fn update(&mut self, img: &RgbImage<'_>) -> (bool, f32) {
        let h = histogram(img);
        let c = self.prev.as_ref().map_or(0.0, |p| change(p, &h));
        self.prev = Some(h);
        (c > self.threshold, c)
    }
}
