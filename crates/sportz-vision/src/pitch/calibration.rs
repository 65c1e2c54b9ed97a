//! [`Calibration`]: an image ↔ pitch mapping fitted from point pairs, refusing pairs that cannot
//! work (too few, repeated, collinear, bunched), with its reprojection error; pixel → metre and
//! foot-point mapping.

use super::PitchError;
use super::homography::{Homography, fit_homography};
use super::ransac::{RansacConfig, ransac_inliers};
use crate::{BBox, Point};

/// One correspondence: a pixel of the image and the pitch point (metres) it shows.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointPair {
    pub image: Point,
    pub pitch: Point,
}

/// The contract's calibration pair (`pixel`, `pitch`) as the fitter's (`image`, `pitch`): the one
/// place the two meet.
impl From<&sportz_contract::worker::PointPair> for PointPair {
    fn from(p: &sportz_contract::worker::PointPair) -> Self {
        Self {
            image: Point::new(p.pixel.x, p.pixel.y),
            pitch: Point::new(p.pitch.x, p.pitch.y),
        }
    }
}

/// How well a calibration fits its pairs (over the inliers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReprojectionError {
    /// Image → pitch, metres.
    pub rms_m: f64,
    pub max_m: f64,
    /// Pitch → image, pixels.
    pub rms_px: f64,
    pub max_px: f64,
}
/// A fitted image ↔ pitch calibration.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibration {
    pub pitch_from_image: Homography,
    pub image_from_pitch: Homography,
    pub error: ReprojectionError,
    /// Indices of the pairs the final fit used.
    pub inliers: Vec<usize>,
}

impl Calibration {
    /// Fits from ≥ 4 pairs: a plain normalised DLT for exactly four, RANSAC then a DLT over the
    /// inliers when more are given. Degenerate input is refused with the reason.
    pub fn fit(pairs: &[PointPair], ransac: &RansacConfig) -> Result<Self, PitchError> {
        check_pairs(pairs)?;
        let image: Vec<Point> = pairs.iter().map(|p| p.image).collect();
        let pitch: Vec<Point> = pairs.iter().map(|p| p.pitch).collect();
        let inliers: Vec<usize> = if pairs.len() == 4 {
            (0..4).collect()
        } else {
            ransac_inliers(&image, &pitch, ransac)?
        };
        let subset = |idx: &[usize]| -> (Vec<Point>, Vec<Point>) {
            (
                idx.iter().map(|&i| image[i]).collect(),
                idx.iter().map(|&i| pitch[i]).collect(),
            )
        };
        let (mut src, mut dst) = subset(&inliers);
        let mut pitch_from_image = fit_homography(&src, &dst)?;
        let mut inliers = inliers;
        if pairs.len() > 4 {
            // the refined model may accept pairs the sample's model did not: refit until stable
            for _ in 0..5 {
                let again: Vec<usize> = (0..pairs.len())
                    .filter(|&i| {
                        pitch_from_image
                            .apply(image[i])
                            .is_some_and(|p| p.distance(&pitch[i]) <= ransac.threshold_m)
                    })
                    .collect();
                if again == inliers || again.len() < 4 {
                    break;
                }
                let (s2, d2) = subset(&again);
                let Ok(h) = fit_homography(&s2, &d2) else {
                    break;
                };
                (inliers, src, dst, pitch_from_image) = (again, s2, d2, h);
            }
        }
        let image_from_pitch = pitch_from_image.inverse()?;
        let error = reprojection_error(&pitch_from_image, &image_from_pitch, &src, &dst)
            .ok_or(PitchError::Singular)?;
        Ok(Self {
            pitch_from_image,
            image_from_pitch,
            error,
            inliers,
        })
    }

    /// The calibration of a known ground homography (pitch → pixels), e.g. a camera's: no pairs,
    /// so no inliers and a zero reprojection error.
    ///
    /// # Errors
    /// [`PitchError::Singular`]: the matrix has no inverse.
    pub fn from_image_from_pitch(image_from_pitch: Homography) -> Result<Self, PitchError> {
        Ok(Self {
            pitch_from_image: image_from_pitch.inverse()?,
            image_from_pitch,
            error: ReprojectionError {
                rms_m: 0.0,
                max_m: 0.0,
                rms_px: 0.0,
                max_px: 0.0,
            },
            inliers: Vec::new(),
        })
    }

    /// [`Calibration::fit`] on the contract's pairs (a session's or a match's calibration) with
    /// the default RANSAC settings.
    pub fn fit_contract(pairs: &[sportz_contract::worker::PointPair]) -> Result<Self, PitchError> {
        let pairs: Vec<PointPair> = pairs.iter().map(PointPair::from).collect();
        Self::fit(&pairs, &RansacConfig::default())
    }

    /// A pixel on the ground plane, in metres.
    #[must_use]
    pub fn to_pitch(&self, pixel: Point) -> Option<Point> {
        self.pitch_from_image.apply(pixel)
    }

    /// A player's foot point (bottom centre of the box), in metres.
    #[must_use]
    pub fn foot_to_pitch(&self, bbox: &BBox) -> Option<Point> {
        let (x, y) = bbox.foot();
        self.to_pitch(Point::new(f64::from(x), f64::from(y)))
    }

    /// A box's foot point in metres and the camera's scale there: metres on the ground per
    /// pixel across the picture (the direction in which an upright object's width is seen).
    #[must_use]
    pub fn foot_and_scale(&self, bbox: &BBox) -> Option<(Point, f64)> {
        let (x, y) = bbox.foot();
        self.ground_and_scale(Point::new(f64::from(x), f64::from(y)))
    }

    /// An image point on the ground in metres and the camera's scale there (as
    /// [`foot_and_scale`](Self::foot_and_scale)).
    #[must_use]
    pub fn ground_and_scale(&self, image: Point) -> Option<(Point, f64)> {
        let (p, j) = self.pitch_from_image.apply_with_jacobian(image)?;
        Some((p, j[0][0].hypot(j[1][0])))
    }

    /// A pitch point in pixels.
    #[must_use]
    pub fn to_image(&self, pitch: Point) -> Option<Point> {
        self.image_from_pitch.apply(pitch)
    }
}

fn check_pairs(pairs: &[PointPair]) -> Result<(), PitchError> {
    if pairs.len() < 4 {
        return Err(PitchError::TooFewPairs(pairs.len()));
    }
    if let Some(i) = pairs.iter().position(|p| {
        ![p.image.x, p.image.y, p.pitch.x, p.pitch.y]
            .iter()
            .all(|v| v.is_finite())
    }) {
        return Err(PitchError::NotFinite(i));
    }
    for (space, pts) in [
        ("image", pairs.iter().map(|p| p.image).collect::<Vec<_>>()),
        ("pitch", pairs.iter().map(|p| p.pitch).collect()),
    ] {
        let scale = spread(&pts);
        for a in 0..pts.len() {
            for b in a + 1..pts.len() {
                if pts[a].distance(&pts[b]) <= 1e-9 * scale.max(1e-300) {
                    return Err(PitchError::Duplicate { space, a, b });
                }
            }
        }
        if pts.len() == 4 {
            for (i, j, k) in [(0, 1, 2), (0, 1, 3), (0, 2, 3), (1, 2, 3)] {
                if collinear(pts[i], pts[j], pts[k], 1e-6) {
                    return Err(PitchError::Collinear {
                        space,
                        detail: format!("{i}, {j} and {k}"),
                    });
                }
            }
        } else if all_collinear(&pts) {
            return Err(PitchError::AllCollinear { space });
        }
    }
    Ok(())
}

/// The largest distance from the centroid (a scale for tolerances).
fn spread(pts: &[Point]) -> f64 {
    let n = pts.len() as f64;
    let (cx, cy) = (
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    pts.iter()
        .map(|p| (p.x - cx).hypot(p.y - cy))
        .fold(0.0, f64::max)
}

/// Whether three points lie on a line: the sine of the angle at `a` is below `tol`.
pub(super) fn collinear(a: Point, b: Point, c: Point, tol: f64) -> bool {
    let (ux, uy, vx, vy) = (b.x - a.x, b.y - a.y, c.x - a.x, c.y - a.y);
    let cross = (ux * vy - uy * vx).abs();
    let norms = ux.hypot(uy) * vx.hypot(vy);
    norms == 0.0 || cross <= tol * norms
}

/// Whether every point lies on one line: the smaller principal axis of their scatter is ~0.
fn all_collinear(pts: &[Point]) -> bool {
    let n = pts.len() as f64;
    let (cx, cy) = (
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    let (mut sxx, mut sxy, mut syy) = (0.0, 0.0, 0.0);
    for p in pts {
        let (dx, dy) = (p.x - cx, p.y - cy);
        sxx += dx * dx;
        sxy += dx * dy;
        syy += dy * dy;
    }
    let tr = sxx + syy;
    let det = sxx * syy - sxy * sxy;
    let disc = ((tr * tr / 4.0) - det).max(0.0).sqrt();
    let (big, small) = (tr / 2.0 + disc, tr / 2.0 - disc);
    small <= 1e-12 * big
}
fn reprojection_error(
    fwd: &Homography,
    back: &Homography,
    src: &[Point],
    dst: &[Point],
) -> Option<ReprojectionError> {
    let (mut sum_m, mut max_m, mut sum_px, mut max_px) = (0.0, 0.0_f64, 0.0, 0.0_f64);
    for (s, d) in src.iter().zip(dst) {
        let em = fwd.apply(*s)?.distance(d);
        let ep = back.apply(*d)?.distance(s);
        sum_m += em * em;
        sum_px += ep * ep;
        max_m = max_m.max(em);
        max_px = max_px.max(ep);
    }
    let n = src.len() as f64;
    Some(ReprojectionError {
        rms_m: (sum_m / n).sqrt(),
        max_m,
        rms_px: (sum_px / n).sqrt(),
        max_px,
    })
}
