//! [`Homography`]: a plane-to-plane projective map, and fitting one to point pairs: the
//! normalised DLT (Hartley normalisation, the smallest eigenvector of AᵀA) refined by
//! Levenberg–Marquardt on the reprojection error, with the small dense linear algebra they need.

use super::PitchError;
use crate::Point;

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

pub(crate) fn mul3(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3]) -> [[f64; 3]; 3] {
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

    /// The image of `p` and the map's 2×2 derivative there (`d(x', y') / d(x, y)`, row-major),
    /// or `None` on the horizon line.
    #[must_use]
    pub fn apply_with_jacobian(&self, p: Point) -> Option<(Point, [[f64; 2]; 2])> {
        let q = self.apply(p)?;
        let m = &self.m;
        let w = m[2][0] * p.x + m[2][1] * p.y + m[2][2];
        // d(u / w) = (du - (u / w) dw) / w
        let jac = [
            [(m[0][0] - q.x * m[2][0]) / w, (m[0][1] - q.x * m[2][1]) / w],
            [(m[1][0] - q.y * m[2][0]) / w, (m[1][1] - q.y * m[2][1]) / w],
        ];
        jac.iter()
            .flatten()
            .all(|v| v.is_finite())
            .then_some((q, jac))
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
pub(crate) fn solve<const N: usize>(mut a: [[f64; N]; N], mut b: [f64; N]) -> Option<[f64; N]> {
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
