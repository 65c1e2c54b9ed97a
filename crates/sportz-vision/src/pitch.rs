//! The pitch: a 105×68 model with named landmarks, homographies fitted from point pairs
//! (normalised DLT; RANSAC when more than four are given), and pixel → metre mapping.
//!
//! Pitch coordinates are metres with the origin at a corner, x along the length (0..=105) and y
//! across (0..=68); the left goal is on x = 0, the right one on x = 105, both centred on y = 34.

use thiserror::Error;

use crate::rng::SplitMix64;
use crate::{BBox, Point};

/// Pitch length (x), metres.
pub const LENGTH_M: f64 = sportz_contract::PITCH_LENGTH_M;
/// Pitch width (y), metres.
pub const WIDTH_M: f64 = sportz_contract::PITCH_WIDTH_M;
/// Half the distance between the goal posts, metres (the goal is 7.32 m wide).
pub const GOAL_HALF_WIDTH_M: f64 = 3.66;

/// A named point of the pitch markings.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Landmark {
    pub name: &'static str,
    pub pitch: Point,
}

const fn lm(name: &'static str, x: f64, y: f64) -> Landmark {
    Landmark {
        name,
        pitch: Point::new(x, y),
    }
}

const MID_Y: f64 = WIDTH_M / 2.0;
const PA_HALF: f64 = 20.16; // penalty area: 40.32 wide, 16.5 deep
const GA_HALF: f64 = 9.16; // goal area: 18.32 wide, 5.5 deep
const CIRCLE_R: f64 = 9.15;

/// Every landmark of the standard pitch ("top" is y = 0, "left" is x = 0).
pub const LANDMARKS: [Landmark; 33] = [
    lm("corner_top_left", 0.0, 0.0),
    lm("corner_bottom_left", 0.0, WIDTH_M),
    lm("corner_top_right", LENGTH_M, 0.0),
    lm("corner_bottom_right", LENGTH_M, WIDTH_M),
    lm("halfway_top", LENGTH_M / 2.0, 0.0),
    lm("halfway_bottom", LENGTH_M / 2.0, WIDTH_M),
    lm("centre_spot", LENGTH_M / 2.0, MID_Y),
    lm("centre_circle_top", LENGTH_M / 2.0, MID_Y - CIRCLE_R),
    lm("centre_circle_bottom", LENGTH_M / 2.0, MID_Y + CIRCLE_R),
    lm("centre_circle_left", LENGTH_M / 2.0 - CIRCLE_R, MID_Y),
    lm("centre_circle_right", LENGTH_M / 2.0 + CIRCLE_R, MID_Y),
    lm("left_penalty_spot", 11.0, MID_Y),
    lm("right_penalty_spot", LENGTH_M - 11.0, MID_Y),
    lm("left_penalty_area_top_goal_line", 0.0, MID_Y - PA_HALF),
    lm("left_penalty_area_top", 16.5, MID_Y - PA_HALF),
    lm("left_penalty_area_bottom", 16.5, MID_Y + PA_HALF),
    lm("left_penalty_area_bottom_goal_line", 0.0, MID_Y + PA_HALF),
    lm(
        "right_penalty_area_top_goal_line",
        LENGTH_M,
        MID_Y - PA_HALF,
    ),
    lm("right_penalty_area_top", LENGTH_M - 16.5, MID_Y - PA_HALF),
    lm(
        "right_penalty_area_bottom",
        LENGTH_M - 16.5,
        MID_Y + PA_HALF,
    ),
    lm(
        "right_penalty_area_bottom_goal_line",
        LENGTH_M,
        MID_Y + PA_HALF,
    ),
    lm("left_goal_area_top_goal_line", 0.0, MID_Y - GA_HALF),
    lm("left_goal_area_top", 5.5, MID_Y - GA_HALF),
    lm("left_goal_area_bottom", 5.5, MID_Y + GA_HALF),
    lm("left_goal_area_bottom_goal_line", 0.0, MID_Y + GA_HALF),
    lm("right_goal_area_top_goal_line", LENGTH_M, MID_Y - GA_HALF),
    lm("right_goal_area_top", LENGTH_M - 5.5, MID_Y - GA_HALF),
    lm("right_goal_area_bottom", LENGTH_M - 5.5, MID_Y + GA_HALF),
    lm(
        "right_goal_area_bottom_goal_line",
        LENGTH_M,
        MID_Y + GA_HALF,
    ),
    lm("left_goal_post_top", 0.0, MID_Y - GOAL_HALF_WIDTH_M),
    lm("left_goal_post_bottom", 0.0, MID_Y + GOAL_HALF_WIDTH_M),
    lm("right_goal_post_top", LENGTH_M, MID_Y - GOAL_HALF_WIDTH_M),
    lm(
        "right_goal_post_bottom",
        LENGTH_M,
        MID_Y + GOAL_HALF_WIDTH_M,
    ),
];

/// The landmark called `name`.
pub fn landmark(name: &str) -> Result<Point, PitchError> {
    LANDMARKS
        .iter()
        .find(|l| l.name == name)
        .map(|l| l.pitch)
        .ok_or_else(|| PitchError::UnknownLandmark(name.to_owned()))
}

/// Whether a pitch point lies inside the lines, with `margin_m` of slack.
#[must_use]
pub fn is_inside(p: Point, margin_m: f64) -> bool {
    (-margin_m..=LENGTH_M + margin_m).contains(&p.x)
        && (-margin_m..=WIDTH_M + margin_m).contains(&p.y)
}

/// Why a homography cannot be built.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PitchError {
    #[error("need at least 4 point pairs, got {0}")]
    TooFewPairs(usize),
    #[error("point pair {0} is not finite")]
    NotFinite(usize),
    #[error("{space} points {a} and {b} coincide, expected distinct points")]
    Duplicate {
        space: &'static str,
        a: usize,
        b: usize,
    },
    #[error("{space} points {detail} are collinear, expected no three of four on a line")]
    Collinear { space: &'static str, detail: String },
    #[error("all {space} points lie on one line, expected them spread over the plane")]
    AllCollinear { space: &'static str },
    #[error("the point pairs do not determine a unique homography (rank-deficient system)")]
    RankDeficient,
    #[error("the homography is singular or not finite, expected an invertible matrix")]
    Singular,
    #[error(
        "ransac found no model with at least 4 inliers within {threshold_m} m among {pairs} pairs"
    )]
    NoConsensus { threshold_m: f64, pairs: usize },
    #[error("unknown landmark `{0}`")]
    UnknownLandmark(String),
}

/// A plane-to-plane projective map, as a 3×3 matrix acting on homogeneous points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Homography {
    m: [[f64; 3]; 3],
}

fn det3(m: &[[f64; 3]; 3]) -> f64 {
    m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
}

fn mul3(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    std::array::from_fn(|i| std::array::from_fn(|j| (0..3).map(|k| a[i][k] * b[k][j]).sum()))
}

impl Homography {
    /// A matrix, scaled so its largest entry is 1; refused when singular or not finite.
    pub fn from_matrix(m: [[f64; 3]; 3]) -> Result<Self, PitchError> {
        let max = m.iter().flatten().fold(0.0_f64, |a, v| a.max(v.abs()));
        if !max.is_finite() || max == 0.0 {
            return Err(PitchError::Singular);
        }
        let m = m.map(|r| r.map(|v| v / max));
        let d = det3(&m);
        if !d.is_finite() || d.abs() < 1e-14 {
            return Err(PitchError::Singular);
        }
        Ok(Self { m })
    }

    #[must_use]
    pub const fn matrix(&self) -> [[f64; 3]; 3] {
        self.m
    }

    /// The image of `p`, or `None` when it maps to infinity (on the horizon line).
    #[must_use]
    pub fn apply(&self, p: Point) -> Option<Point> {
        let m = &self.m;
        let w = m[2][0] * p.x + m[2][1] * p.y + m[2][2];
        if w.abs() < 1e-12 {
            return None;
        }
        let x = (m[0][0] * p.x + m[0][1] * p.y + m[0][2]) / w;
        let y = (m[1][0] * p.x + m[1][1] * p.y + m[1][2]) / w;
        (x.is_finite() && y.is_finite()).then_some(Point::new(x, y))
    }

    /// The inverse map.
    pub fn inverse(&self) -> Result<Self, PitchError> {
        let m = &self.m;
        let cof = |r0: usize, r1: usize, c0: usize, c1: usize| {
            m[r0][c0] * m[r1][c1] - m[r0][c1] * m[r1][c0]
        };
        // adjugate (the inverse up to scale)
        let adj = [
            [cof(1, 2, 1, 2), -cof(0, 2, 1, 2), cof(0, 1, 1, 2)],
            [-cof(1, 2, 0, 2), cof(0, 2, 0, 2), -cof(0, 1, 0, 2)],
            [cof(1, 2, 0, 1), -cof(0, 2, 0, 1), cof(0, 1, 0, 1)],
        ];
        Self::from_matrix(adj)
    }
}

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
        Self::fit_impl(pairs, ransac)
    }

    /// [`Calibration::fit`] on the contract's pairs (a session's or a match's calibration) with
    /// the default RANSAC settings.
    pub fn fit_contract(pairs: &[sportz_contract::worker::PointPair]) -> Result<Self, PitchError> {
        let pairs: Vec<PointPair> = pairs.iter().map(PointPair::from).collect();
        Self::fit_impl(&pairs, &RansacConfig::default())
    }

    fn fit_impl(pairs: &[PointPair], ransac: &RansacConfig) -> Result<Self, PitchError> {
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
fn collinear(a: Point, b: Point, c: Point, tol: f64) -> bool {
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

/// Similarity that moves the centroid to the origin and the mean distance to √2 (Hartley).
fn normaliser(pts: &[Point]) -> [[f64; 3]; 3] {
    let n = pts.len() as f64;
    let (cx, cy) = (
        pts.iter().map(|p| p.x).sum::<f64>() / n,
        pts.iter().map(|p| p.y).sum::<f64>() / n,
    );
    let mean = pts.iter().map(|p| (p.x - cx).hypot(p.y - cy)).sum::<f64>() / n;
    let s = if mean > 0.0 {
        std::f64::consts::SQRT_2 / mean
    } else {
        1.0
    };
    [[s, 0.0, -s * cx], [0.0, s, -s * cy], [0.0, 0.0, 1.0]]
}

fn apply_raw(m: &[[f64; 3]; 3], p: Point) -> Point {
    let w = m[2][0] * p.x + m[2][1] * p.y + m[2][2];
    Point::new(
        (m[0][0] * p.x + m[0][1] * p.y + m[0][2]) / w,
        (m[1][0] * p.x + m[1][1] * p.y + m[1][2]) / w,
    )
}

/// The homography mapping `src` onto `dst` by the normalised direct linear transform: the
/// null vector of the stacked constraints (the eigenvector of AᵀA with the smallest eigenvalue).
pub fn fit_dlt(src: &[Point], dst: &[Point]) -> Result<Homography, PitchError> {
    if src.len() < 4 || src.len() != dst.len() {
        return Err(PitchError::TooFewPairs(src.len().min(dst.len())));
    }
    let (ts, td) = (normaliser(src), normaliser(dst));
    let mut ata = [[0.0; 9]; 9];
    for (s, d) in src.iter().zip(dst) {
        let (p, q) = (apply_raw(&ts, *s), apply_raw(&td, *d));
        let rows = [
            [-p.x, -p.y, -1.0, 0.0, 0.0, 0.0, q.x * p.x, q.x * p.y, q.x],
            [0.0, 0.0, 0.0, -p.x, -p.y, -1.0, q.y * p.x, q.y * p.y, q.y],
        ];
        for r in &rows {
            for i in 0..9 {
                for j in 0..9 {
                    ata[i][j] += r[i] * r[j];
                }
            }
        }
    }
    let (values, vectors) = jacobi_eigen(ata);
    let mut order: Vec<usize> = (0..9).collect();
    order.sort_by(|&a, &b| values[a].total_cmp(&values[b]));
    let (smallest, second, largest) = (order[0], order[1], order[8]);
    if values[second] <= 1e-10 * values[largest] {
        return Err(PitchError::RankDeficient);
    }
    let h: [f64; 9] = std::array::from_fn(|i| vectors[i][smallest]);
    let hn = [[h[0], h[1], h[2]], [h[3], h[4], h[5]], [h[6], h[7], h[8]]];
    // H = Td⁻¹ · Hn · Ts; Td⁻¹ of a similarity is again a similarity
    Homography::from_matrix(mul3(&similarity_inverse(&td), &mul3(&hn, &ts)))
}

/// The homography mapping `src` onto `dst` with the least squared distance in `dst` units (the
/// "gold standard" fit): a normalised DLT, then Levenberg–Marquardt on the transfer error.
pub fn fit_homography(src: &[Point], dst: &[Point]) -> Result<Homography, PitchError> {
    let initial = fit_dlt(src, dst)?;
    Ok(refine(&initial, src, dst).unwrap_or(initial))
}

/// Levenberg–Marquardt on Σ‖H(src) − dst‖², in Hartley-normalised coordinates (a similarity in
/// `dst` scales every residual alike, so the minimiser is the same) with `h33` held at 1.
fn refine(h: &Homography, src: &[Point], dst: &[Point]) -> Option<Homography> {
    let (ts, td) = (normaliser(src), normaliser(dst));
    let ts_inv = similarity_inverse(&ts);
    let hn = mul3(&td, &mul3(&h.m, &ts_inv));
    if hn[2][2].abs() < 1e-9 {
        return None;
    }
    let mut params: [f64; 8] = std::array::from_fn(|i| hn[i / 3][i % 3] / hn[2][2]);
    let s: Vec<Point> = src.iter().map(|p| apply_raw(&ts, *p)).collect();
    let d: Vec<Point> = dst.iter().map(|p| apply_raw(&td, *p)).collect();
    let cost = |h: &[f64; 8]| -> f64 {
        s.iter()
            .zip(&d)
            .map(|(p, q)| {
                let w = h[6] * p.x + h[7] * p.y + 1.0;
                let u = (h[0] * p.x + h[1] * p.y + h[2]) / w;
                let v = (h[3] * p.x + h[4] * p.y + h[5]) / w;
                (u - q.x).powi(2) + (v - q.y).powi(2)
            })
            .sum()
    };
    let mut current = cost(&params);
    let mut lambda = 1e-3;
    for _ in 0..100 {
        let mut jtj = [[0.0; 8]; 8];
        let mut jtr = [0.0; 8];
        for (p, q) in s.iter().zip(&d) {
            let w = params[6] * p.x + params[7] * p.y + 1.0;
            let u = (params[0] * p.x + params[1] * p.y + params[2]) / w;
            let v = (params[3] * p.x + params[4] * p.y + params[5]) / w;
            let ju = [
                p.x / w,
                p.y / w,
                1.0 / w,
                0.0,
                0.0,
                0.0,
                -u * p.x / w,
                -u * p.y / w,
            ];
            let jv = [
                0.0,
                0.0,
                0.0,
                p.x / w,
                p.y / w,
                1.0 / w,
                -v * p.x / w,
                -v * p.y / w,
            ];
            for (j, r) in [(ju, u - q.x), (jv, v - q.y)] {
                for a in 0..8 {
                    jtr[a] += j[a] * r;
                    for b in 0..8 {
                        jtj[a][b] += j[a] * j[b];
                    }
                }
            }
        }
        let mut improved = false;
        while lambda < 1e12 {
            let mut m = jtj;
            for (a, row) in m.iter_mut().enumerate() {
                row[a] += lambda * jtj[a][a].max(1e-12);
            }
            let Some(step) = solve(m, jtr.map(|v| -v)) else {
                break;
            };
            let trial: [f64; 8] = std::array::from_fn(|i| params[i] + step[i]);
            let c = cost(&trial);
            if c.is_finite() && c < current {
                let gain = current - c;
                params = trial;
                current = c;
                lambda = (lambda / 10.0).max(1e-12);
                improved = gain > 1e-15 * current.max(1e-300);
                break;
            }
            lambda *= 10.0;
        }
        if !improved {
            break;
        }
    }
    let hn = [
        [params[0], params[1], params[2]],
        [params[3], params[4], params[5]],
        [params[6], params[7], 1.0],
    ];
    Homography::from_matrix(mul3(&similarity_inverse(&td), &mul3(&hn, &ts))).ok()
}

fn similarity_inverse(t: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
    let s = t[0][0];
    [
        [1.0 / s, 0.0, -t[0][2] / s],
        [0.0, 1.0 / s, -t[1][2] / s],
        [0.0, 0.0, 1.0],
    ]
}

/// Solves `a · x = b` by Gaussian elimination with partial pivoting; `None` when singular.
fn solve<const N: usize>(mut a: [[f64; N]; N], mut b: [f64; N]) -> Option<[f64; N]> {
    for col in 0..N {
        let pivot = (col..N).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[pivot][col].abs() < 1e-300 {
            return None;
        }
        a.swap(col, pivot);
        b.swap(col, pivot);
        for row in col + 1..N {
            let f = a[row][col] / a[col][col];
            let pivot_row = a[col];
            for (v, p) in a[row].iter_mut().zip(pivot_row).skip(col) {
                *v -= f * p;
            }
            b[row] -= f * b[col];
        }
    }
    let mut x = [0.0; N];
    for row in (0..N).rev() {
        let sum: f64 = (row + 1..N).map(|k| a[row][k] * x[k]).sum();
        x[row] = (b[row] - sum) / a[row][row];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// Eigenvalues and eigenvectors (columns) of a symmetric matrix, by cyclic Jacobi rotations.
fn jacobi_eigen<const N: usize>(mut a: [[f64; N]; N]) -> ([f64; N], [[f64; N]; N]) {
    let mut v: [[f64; N]; N] =
        std::array::from_fn(|i| std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 }));
    for _sweep in 0..100 {
        let off: f64 = (0..N)
            .flat_map(|i| (0..N).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        let diag: f64 = (0..N).map(|i| a[i][i] * a[i][i]).sum();
        if off <= 1e-30 * diag.max(1e-300) {
            break;
        }
        for p in 0..N {
            for q in p + 1..N {
                if a[p][q].abs() < 1e-300 {
                    continue;
                }
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + theta.hypot(1.0));
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / t.hypot(1.0);
                let s = t * c;
                for row in a.iter_mut() {
                    let (akp, akq) = (row[p], row[q]);
                    row[p] = c * akp - s * akq;
                    row[q] = s * akp + c * akq;
                }
                let (mut row_p, mut row_q) = (a[p], a[q]);
                for (x, y) in row_p.iter_mut().zip(row_q.iter_mut()) {
                    let (apk, aqk) = (*x, *y);
                    *x = c * apk - s * aqk;
                    *y = s * apk + c * aqk;
                }
                (a[p], a[q]) = (row_p, row_q);
                for row in v.iter_mut() {
                    let (vkp, vkq) = (row[p], row[q]);
                    row[p] = c * vkp - s * vkq;
                    row[q] = s * vkp + c * vkq;
                }
            }
        }
    }
    (std::array::from_fn(|i| a[i][i]), v)
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

fn ransac_inliers(
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

#[cfg(test)]
mod tests;
