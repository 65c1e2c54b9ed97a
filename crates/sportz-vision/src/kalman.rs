//! Constant-velocity Kalman filters.
//!
//! Every filter here (the box filter of the player tracker, the point filter of the ball) has
//! block-diagonal transition, process noise and measurement noise: each coordinate evolves with its
//! own velocity and nothing couples the axes. The covariance then stays block-diagonal too, so a
//! filter over `n` coordinates is exactly `n` independent 1-D position/velocity filters ([`Cv1`]),
//! with 2×2 covariances and no matrix inversion.

use crate::Point;
use crate::pitch::Homography;

/// A 1-D constant-velocity filter: state `[position, velocity]` with its 2×2 covariance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cv1 {
    pub pos: f64,
    pub vel: f64,
    pub cov: [[f64; 2]; 2],
}

impl Cv1 {
    /// A filter at `pos`, moving at `vel`, with independent variances.
    #[must_use]
    pub const fn new(pos: f64, vel: f64, var_pos: f64, var_vel: f64) -> Self {
        Self {
            pos,
            vel,
            cov: [[var_pos, 0.0], [0.0, var_vel]],
        }
    }

    /// Moves the state `dt` ahead and adds the process noise `q` (a 2×2 covariance).
    pub fn predict(&mut self, dt: f64, q: [[f64; 2]; 2]) {
        self.pos += dt * self.vel;
        let [[p00, p01], [p10, p11]] = self.cov;
        self.cov = [
            [
                p00 + dt * (p01 + p10) + dt * dt * p11 + q[0][0],
                p01 + dt * p11 + q[0][1],
            ],
            [p10 + dt * p11 + q[1][0], p11 + q[1][1]],
        ];
    }

    /// The variance of the innovation for a measurement with variance `r`.
    #[must_use]
    pub fn innovation_var(&self, r: f64) -> f64 {
        self.cov[0][0] + r
    }

    /// Squared Mahalanobis distance of a measurement `z` with variance `r`.
    #[must_use]
    pub fn mahalanobis_sq(&self, z: f64, r: f64) -> f64 {
        let y = z - self.pos;
        y * y / self.innovation_var(r)
    }

    /// Folds in a position measurement `z` with variance `r`.
    pub fn update(&mut self, z: f64, r: f64) {
        let s = self.innovation_var(r);
        let [[p00, p01], [p10, p11]] = self.cov;
        let (k0, k1) = (p00 / s, p10 / s);
        let y = z - self.pos;
        self.pos += k0 * y;
        self.vel += k1 * y;
        self.cov = [
            [(1.0 - k0) * p00, (1.0 - k0) * p01],
            [p10 - k1 * p00, p11 - k1 * p01],
        ];
    }
}

impl Cv1 {
    /// The filter after its coordinate was scaled by `k` (position, velocity and their
    /// uncertainty) and shifted to `pos`: how a camera's zoom and pan move it.
    fn rescaled(self, pos: f64, vel: f64, k: f64) -> Self {
        Self {
            pos,
            vel,
            cov: self.cov.map(|r| r.map(|v| v * k * k)),
        }
    }
}

/// What the camera did between two frames, for a filter in image coordinates: previous pixels →
/// current pixels (a homography), with the axis scales at the filter's point.
fn image_motion(h: &Homography, x: f64, y: f64) -> Option<(Point, [[f64; 2]; 2], [f64; 2])> {
    let (q, j) = h.apply_with_jacobian(Point::new(x, y))?;
    let sx = j[0][0].hypot(j[1][0]);
    let sy = j[0][1].hypot(j[1][1]);
    (sx > 0.0 && sy > 0.0).then_some((q, j, [sx, sy]))
}

/// Diagonal process noise (the ByteTrack convention): independent position and velocity jitter.
#[must_use]
pub const fn q_diag(var_pos: f64, var_vel: f64) -> [[f64; 2]; 2] {
    [[var_pos, 0.0], [0.0, var_vel]]
}

/// Process noise of a white-noise acceleration with spectral density `sigma_a²` over `dt`.
#[must_use]
pub fn q_white_acceleration(dt: f64, sigma_a: f64) -> [[f64; 2]; 2] {
    let q = sigma_a * sigma_a;
    [
        [q * dt.powi(3) / 3.0, q * dt.powi(2) / 2.0],
        [q * dt.powi(2) / 2.0, q * dt],
    ]
}

/// The player tracker's filter over a box `(cx, cy, w, h)` in pixels, one step per frame, with
/// noise proportional to the box size (ByteTrack / BoT-SORT weights).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BoxKalman {
    /// `cx, cy, w, h`.
    axes: [Cv1; 4],
}

const STD_WEIGHT_POSITION: f64 = 1.0 / 20.0;
const STD_WEIGHT_VELOCITY: f64 = 1.0 / 160.0;

impl BoxKalman {
    /// Starts at a measured box `[cx, cy, w, h]`, at rest.
    #[must_use]
    pub fn new(m: [f64; 4]) -> Self {
        let [_, _, w, h] = m;
        let size = [w, h, w, h];
        let axes = std::array::from_fn(|i| {
            let sp = 2.0 * STD_WEIGHT_POSITION * size[i];
            let sv = 10.0 * STD_WEIGHT_VELOCITY * size[i];
            Cv1::new(m[i], 0.0, sp * sp, sv * sv)
        });
        Self { axes }
    }

    /// The current box `[cx, cy, w, h]`.
    #[must_use]
    pub fn state(&self) -> [f64; 4] {
        std::array::from_fn(|i| self.axes[i].pos)
    }

    /// The velocity `[vcx, vcy, vw, vh]` in pixels per frame.
    #[must_use]
    pub fn velocity(&self) -> [f64; 4] {
        std::array::from_fn(|i| self.axes[i].vel)
    }

    fn size(&self) -> [f64; 4] {
        let w = self.axes[2].pos.abs().max(1.0);
        let h = self.axes[3].pos.abs().max(1.0);
        [w, h, w, h]
    }

    /// One frame ahead.
    pub fn predict(&mut self) {
        let size = self.size();
        for (axis, s) in self.axes.iter_mut().zip(size) {
            let sp = STD_WEIGHT_POSITION * s;
            let sv = STD_WEIGHT_VELOCITY * s;
            axis.predict(1.0, q_diag(sp * sp, sv * sv));
        }
        // a box never shrinks below a pixel, whatever its velocity said
        for i in 2..4 {
            self.axes[i].pos = self.axes[i].pos.max(1.0);
        }
    }

    /// Moves the box with the picture: `h` maps the previous frame's pixels to this frame's
    /// (camera motion compensation, as in BoT-SORT). The centre follows the map, the size and
    /// velocities scale with its local derivative. Unchanged where the map is undefined.
    pub fn warp(&mut self, h: &Homography) {
        let [cx, cy, w, ht] = self.state();
        let [vx, vy, vw, vh] = self.velocity();
        let Some((q, j, [sx, sy])) = image_motion(h, cx, cy) else {
            return;
        };
        let v = [j[0][0] * vx + j[0][1] * vy, j[1][0] * vx + j[1][1] * vy];
        self.axes = [
            self.axes[0].rescaled(q.x, v[0], sx),
            self.axes[1].rescaled(q.y, v[1], sy),
            self.axes[2].rescaled((w * sx).max(1.0), vw * sx, sx),
            self.axes[3].rescaled((ht * sy).max(1.0), vh * sy, sy),
        ];
    }

    fn measurement_var(&self) -> [f64; 4] {
        self.size().map(|s| (STD_WEIGHT_POSITION * s).powi(2))
    }

    /// Squared Mahalanobis distance of a measured box (4 degrees of freedom).
    #[must_use]
    pub fn mahalanobis_sq(&self, m: [f64; 4]) -> f64 {
        let r = self.measurement_var();
        (0..4)
            .map(|i| self.axes[i].mahalanobis_sq(m[i], r[i]))
            .sum()
    }

    /// Folds in a measured box `[cx, cy, w, h]`.
    pub fn update(&mut self, m: [f64; 4]) {
        let r = self.measurement_var();
        for i in 0..4 {
            self.axes[i].update(m[i], r[i]);
        }
    }
}

/// The ball's filter over a point `(x, y)` in pixels, with real time steps (seconds), so its
/// velocity is in px/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PointKalman {
    axes: [Cv1; 2],
    /// Acceleration noise, px/s².
    sigma_accel: f64,
    /// Measurement noise, px.
    sigma_measure: f64,
}

impl PointKalman {
    /// Starts at `(x, y)`, at rest, with an initial speed uncertainty `sigma_speed` (px/s).
    #[must_use]
    pub fn new(x: f64, y: f64, sigma_measure: f64, sigma_speed: f64, sigma_accel: f64) -> Self {
        let var_pos = sigma_measure * sigma_measure;
        let var_vel = sigma_speed * sigma_speed;
        Self {
            axes: [
                Cv1::new(x, 0.0, var_pos, var_vel),
                Cv1::new(y, 0.0, var_pos, var_vel),
            ],
            sigma_accel,
            sigma_measure,
        }
    }

    /// `(x, y)` in pixels.
    #[must_use]
    pub fn position(&self) -> (f64, f64) {
        (self.axes[0].pos, self.axes[1].pos)
    }

    /// `(vx, vy)` in px/s.
    #[must_use]
    pub fn velocity(&self) -> (f64, f64) {
        (self.axes[0].vel, self.axes[1].vel)
    }

    /// The 1-sigma position uncertainty of the next measurement, px (the larger axis).
    #[must_use]
    pub fn innovation_sigma(&self) -> f64 {
        let r = self.sigma_measure * self.sigma_measure;
        self.axes
            .iter()
            .map(|a| a.innovation_var(r))
            .fold(0.0, f64::max)
            .sqrt()
    }

    /// Moves the point with the picture (`h`: previous pixels → current pixels), so that a pan
    /// is not taken for the object's own motion. The velocity keeps its meaning (motion relative
    /// to the pitch, in current pixels). Unchanged where the map is undefined.
    pub fn warp(&mut self, h: &Homography) {
        let (x, y) = self.position();
        let (vx, vy) = self.velocity();
        let Some((q, j, [sx, sy])) = image_motion(h, x, y) else {
            return;
        };
        self.axes = [
            self.axes[0].rescaled(q.x, j[0][0] * vx + j[0][1] * vy, sx),
            self.axes[1].rescaled(q.y, j[1][0] * vx + j[1][1] * vy, sy),
        ];
    }

    pub fn predict(&mut self, dt_secs: f64) {
        let q = q_white_acceleration(dt_secs, self.sigma_accel);
        for axis in &mut self.axes {
            axis.predict(dt_secs, q);
        }
    }

    pub fn update(&mut self, x: f64, y: f64) {
        let r = self.sigma_measure * self.sigma_measure;
        self.axes[0].update(x, r);
        self.axes[1].update(y, r);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cv1_matches_the_textbook_matrices() {
        // one predict/update by hand: P = [[4, 1], [1, 2]], dt = 0.5, Q = diag(0.1, 0.2), R = 1
        let mut f = Cv1 {
            pos: 10.0,
            vel: 2.0,
            cov: [[4.0, 1.0], [1.0, 2.0]],
        };
        f.predict(0.5, q_diag(0.1, 0.2));
        assert!((f.pos - 11.0).abs() < 1e-12);
        // F P Fᵀ = [[4 + 0.5·2 + 0.25·2, 1 + 0.5·2], [1 + 0.5·2, 2]] = [[5.5, 2], [2, 2]]
        assert_eq!(f.cov, [[5.6, 2.0], [2.0, 2.2]]);
        f.update(12.0, 1.0);
        let s = 6.6;
        assert!((f.pos - (11.0 + 5.6 / s)).abs() < 1e-12);
        assert!((f.vel - (2.0 + 2.0 / s)).abs() < 1e-12);
        assert!((f.cov[0][0] - (1.0 - 5.6 / s) * 5.6).abs() < 1e-12);
        assert!((f.cov[1][1] - (2.2 - 2.0 / s * 2.0)).abs() < 1e-12);
    }

    #[test]
    fn point_filter_learns_a_constant_velocity() {
        // a ball moving at (300, -120) px/s observed at 25 fps converges to that velocity
        let mut k = PointKalman::new(100.0, 200.0, 2.0, 500.0, 200.0);
        let dt = 0.04;
        for i in 1..=50 {
            let t = f64::from(i) * dt;
            k.predict(dt);
            k.update(100.0 + 300.0 * t, 200.0 - 120.0 * t);
        }
        let (vx, vy) = k.velocity();
        assert!((vx - 300.0).abs() < 3.0, "vx {vx}");
        assert!((vy + 120.0).abs() < 3.0, "vy {vy}");
        let sigma_before = k.innovation_sigma();
        k.predict(dt);
        k.predict(dt);
        assert!(
            k.innovation_sigma() > sigma_before,
            "uncertainty grows while coasting"
        );
    }

    #[test]
    fn warping_follows_a_pan_and_a_zoom() {
        let mut k = BoxKalman::new([100.0, 50.0, 10.0, 30.0]);
        for i in 1..=20 {
            k.predict();
            k.update([100.0 + 2.0 * f64::from(i), 50.0, 10.0, 30.0]);
        }
        let before = k;
        // a pan of 40 px left: the box moves with the picture, its own motion stays
        let pan =
            Homography::from_matrix([[1.0, 0.0, -40.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
        k.warp(&pan);
        assert!((k.state()[0] - (before.state()[0] - 40.0)).abs() < 1e-9);
        assert_eq!(k.state()[1..], before.state()[1..]);
        assert!((k.velocity()[0] - before.velocity()[0]).abs() < 1e-9);
        // a 2× zoom about the origin: everything in pixels doubles, the uncertainty too
        let zoom =
            Homography::from_matrix([[2.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 1.0]]).unwrap();
        let pre = k;
        k.warp(&zoom);
        for i in 0..4 {
            assert!(
                (k.state()[i] - 2.0 * pre.state()[i]).abs() < 1e-9,
                "axis {i}"
            );
            assert!((k.velocity()[i] - 2.0 * pre.velocity()[i]).abs() < 1e-9);
        }
        assert!(
            (k.mahalanobis_sq([2.0 * pre.state()[0] + 4.0, 100.0, 20.0, 60.0])
                - pre.mahalanobis_sq([pre.state()[0] + 2.0, 50.0, 10.0, 30.0]))
            .abs()
                < 1e-9,
            "a residual scaled with the picture is as likely as before"
        );
        let mut p = PointKalman::new(10.0, 20.0, 2.0, 500.0, 200.0);
        p.warp(&pan);
        assert_eq!(p.position(), (-30.0, 20.0));
    }

    #[test]
    fn a_homography_derivative_matches_finite_differences() {
        let h = Homography::from_matrix([[1.1, 0.05, 3.0], [-0.02, 0.9, -7.0], [1e-4, 2e-4, 1.0]])
            .unwrap();
        let p = Point::new(300.0, 200.0);
        let (q, j) = h.apply_with_jacobian(p).unwrap();
        let e = 1e-4;
        let qx = h.apply(Point::new(p.x + e, p.y)).unwrap();
        let qy = h.apply(Point::new(p.x, p.y + e)).unwrap();
        assert!(((qx.x - q.x) / e - j[0][0]).abs() < 1e-6);
        assert!(((qx.y - q.y) / e - j[1][0]).abs() < 1e-6);
        assert!(((qy.x - q.x) / e - j[0][1]).abs() < 1e-6);
        assert!(((qy.y - q.y) / e - j[1][1]).abs() < 1e-6);
    }

    #[test]
    fn box_filter_tracks_a_moving_box() {
        let mut k = BoxKalman::new([50.0, 50.0, 10.0, 30.0]);
        for i in 1..=30 {
            k.predict();
            k.update([50.0 + 2.0 * f64::from(i), 50.0, 10.0, 30.0]);
        }
        k.predict();
        let [cx, cy, w, h] = k.state();
        assert!((cx - 112.0).abs() < 0.5, "cx {cx}");
        assert!((cy - 50.0).abs() < 0.5 && (w - 10.0).abs() < 0.5 && (h - 30.0).abs() < 0.5);
        assert!(
            k.mahalanobis_sq([112.0, 50.0, 10.0, 30.0])
                < k.mahalanobis_sq([130.0, 50.0, 10.0, 30.0])
        );
    }
}
