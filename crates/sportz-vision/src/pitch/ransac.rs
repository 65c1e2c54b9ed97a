//! RANSAC over point pairs: seeded minimal four-pair fits, keeping the largest inlier set within
//! [`RansacConfig::threshold_m`] metres.

use super::PitchError;
use super::calibration::collinear;
use super::homography::fit_dlt;
use crate::Point;
use crate::rng::SplitMix64;

/// RANSAC settings; the seed makes fits reproducible.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RansacConfig {
    /// A pair is an inlier when it maps within this many metres of its pitch point.
    pub threshold_m: f64,
    pub iterations: usize,
    pub seed: u64,
}

impl Default for RansacConfig {
    fn default() -> Self {
        Self {
            threshold_m: 3.0,
            iterations: 500,
            seed: 0x5EED,
        }
    }
}
pub(super) fn ransac_inliers(
    image: &[Point],
    pitch: &[Point],
    cfg: &RansacConfig,
) -> Result<Vec<usize>, PitchError> {
    let n = image.len();
    let mut rng = SplitMix64::new(cfg.seed);
    let mut best: (usize, f64, Vec<usize>) = (0, f64::INFINITY, Vec::new());
    for _ in 0..cfg.iterations {
        let mut sample = [0usize; 4];
        let mut k = 0;
        while k < 4 {
            let i = rng.below(n);
            if !sample[..k].contains(&i) {
                sample[k] = i;
                k += 1;
            }
        }
        let degenerate = |pts: &[Point]| {
            [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)]
                .iter()
                .any(|&(a, b, c)| collinear(pts[sample[a]], pts[sample[b]], pts[sample[c]], 0.02))
        };
        if degenerate(image) || degenerate(pitch) {
            continue;
        }
        let src = sample.map(|i| image[i]);
        let dst = sample.map(|i| pitch[i]);
        let Ok(h) = fit_dlt(&src, &dst) else { continue };
        let mut inliers = Vec::new();
        let mut total = 0.0;
        for i in 0..n {
            if let Some(p) = h.apply(image[i]) {
                let e = p.distance(&pitch[i]);
                if e <= cfg.threshold_m {
                    inliers.push(i);
                    total += e;
                }
            }
        }
        if inliers.len() > best.0 || (inliers.len() == best.0 && total < best.1) {
            best = (inliers.len(), total, inliers);
        }
    }
    if best.0 < 4 {
        return Err(PitchError::NoConsensus {
            threshold_m: cfg.threshold_m,
            pairs: n,
        });
    }
    Ok(best.2)
}
