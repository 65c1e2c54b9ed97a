//! Vectors, 3×3 homographies and the broadcast camera (pinhole, pan/tilt/zoom from a fixed spot).
//!
//! World coordinates are pitch metres: x along the length (0..=105), y across (0..=68), z up.
//! Image coordinates are pixels with (0, 0) at the top-left corner of the top-left pixel; pixel
//! centres sit at `+0.5`.

use std::ops::{Add, Mul, Sub};

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct V2 {
    pub x: f64,
    pub y: f64,
}

pub(crate) const fn v2(x: f64, y: f64) -> V2 {
    V2 { x, y }
}

impl V2 {
    pub(crate) fn len(self) -> f64 {
        self.x.hypot(self.y)
    }
    pub(crate) fn norm(self) -> V2 {
        let l = self.len();
        if l > 1e-9 {
            v2(self.x / l, self.y / l)
        } else {
            v2(0.0, 0.0)
        }
    }
    pub(crate) fn dist(self, o: V2) -> f64 {
        (self - o).len()
    }
    pub(crate) fn perp(self) -> V2 {
        v2(-self.y, self.x)
    }
    pub(crate) fn dot(self, o: V2) -> f64 {
        self.x * o.x + self.y * o.y
    }
}

impl Add for V2 {
    type Output = V2;
    fn add(self, o: V2) -> V2 {
        v2(self.x + o.x, self.y + o.y)
    }
}
impl Sub for V2 {
    type Output = V2;
    fn sub(self, o: V2) -> V2 {
        v2(self.x - o.x, self.y - o.y)
    }
}
impl Mul<f64> for V2 {
    type Output = V2;
    fn mul(self, k: f64) -> V2 {
        v2(self.x * k, self.y * k)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct V3 {
    pub x: f64,
    pub y: f64,
    pub z: f64,
}

pub(crate) const fn v3(x: f64, y: f64, z: f64) -> V3 {
    V3 { x, y, z }
}

impl V3 {
    pub(crate) fn dot(self, o: V3) -> f64 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }
    pub(crate) fn cross(self, o: V3) -> V3 {
        v3(
            self.y * o.z - self.z * o.y,
            self.z * o.x - self.x * o.z,
            self.x * o.y - self.y * o.x,
        )
    }
    pub(crate) fn norm(self) -> V3 {
        let l = self.dot(self).sqrt();
        v3(self.x / l, self.y / l, self.z / l)
    }
}

impl Add for V3 {
    type Output = V3;
    fn add(self, o: V3) -> V3 {
        v3(self.x + o.x, self.y + o.y, self.z + o.z)
    }
}
impl Sub for V3 {
    type Output = V3;
    fn sub(self, o: V3) -> V3 {
        v3(self.x - o.x, self.y - o.y, self.z - o.z)
    }
}
impl Mul<f64> for V3 {
    type Output = V3;
    fn mul(self, k: f64) -> V3 {
        v3(self.x * k, self.y * k, self.z * k)
    }
}

/// A row-major 3×3 matrix acting on homogeneous 2-D points.
pub type Mat3 = [[f64; 3]; 3];

/// `m · (x, y, 1)` dehomogenised; `None` when the point maps to infinity.
#[must_use]
pub fn apply(m: &Mat3, x: f64, y: f64) -> Option<(f64, f64)> {
    let w = m[2][0] * x + m[2][1] * y + m[2][2];
    if w.abs() < 1e-12 {
        return None;
    }
    Some((
        (m[0][0] * x + m[0][1] * y + m[0][2]) / w,
        (m[1][0] * x + m[1][1] * y + m[1][2]) / w,
    ))
}

/// The inverse of `m`, scaled so that its bottom-right entry is 1 where possible.
pub(crate) fn invert(m: &Mat3) -> Mat3 {
    let [[a, b, c], [d, e, f], [g, h, i]] = *m;
    let co = [
        [e * i - f * h, c * h - b * i, b * f - c * e],
        [f * g - d * i, a * i - c * g, c * d - a * f],
        [d * h - e * g, b * g - a * h, a * e - b * d],
    ];
    let det = a * co[0][0] + b * co[1][0] + c * co[2][0];
    let mut out = co;
    for row in &mut out {
        for v in row.iter_mut() {
            *v /= det;
        }
    }
    normalise(out)
}

pub(crate) fn normalise(m: Mat3) -> Mat3 {
    let s = if m[2][2].abs() > 1e-12 { m[2][2] } else { 1.0 };
    let mut out = m;
    for row in &mut out {
        for v in row.iter_mut() {
            *v /= s;
        }
    }
    out
}

/// A pinhole camera: position, orthonormal axes (right, down, forward) and focal length.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Camera {
    pub pos: V3,
    pub right: V3,
    pub down: V3,
    pub fwd: V3,
    pub focal_px: f64,
    pub cx: f64,
    pub cy: f64,
}

impl Camera {
    /// A camera at `pos` looking at `target`, with horizontal field of view `fov_h_rad`, for an
    /// image `width`×`height` pixels. The horizon stays level (no roll).
    pub(crate) fn look_at(pos: V3, target: V3, fov_h_rad: f64, width: u32, height: u32) -> Self {
        let fwd = (target - pos).norm();
        let up = v3(0.0, 0.0, 1.0);
        // With the camera on the y = 68 side looking towards y = 0, `up × fwd` points along +x,
        // so the left goal (x = 0) is on the left of the image and the far touchline (y = 0) at
        // the top.
        let right = up.cross(fwd).norm();
        let down = right.cross(fwd).norm();
        let focal_px = f64::from(width) / 2.0 / (fov_h_rad / 2.0).tan();
        Self {
            pos,
            right,
            down,
            fwd,
            focal_px,
            cx: f64::from(width) / 2.0,
            cy: f64::from(height) / 2.0,
        }
    }

    /// Depth along the optical axis, metres.
    pub(crate) fn depth(&self, p: V3) -> f64 {
        self.fwd.dot(p - self.pos)
    }

    /// The pixel a world point projects to; `None` behind (or too close to) the camera.
    pub(crate) fn project(&self, p: V3) -> Option<V2> {
        let d = p - self.pos;
        let z = self.fwd.dot(d);
        if z < 0.5 {
            return None;
        }
        Some(v2(
            self.cx + self.focal_px * self.right.dot(d) / z,
            self.cy + self.focal_px * self.down.dot(d) / z,
        ))
    }

    /// The homography taking ground points (z = 0, metres) to pixels: exactly [`Camera::project`]
    /// restricted to the ground plane.
    pub(crate) fn image_from_pitch(&self) -> Mat3 {
        let row_u = self.right * self.focal_px + self.fwd * self.cx;
        let row_v = self.down * self.focal_px + self.fwd * self.cy;
        let row_w = self.fwd;
        let r = |row: V3| [row.x, row.y, -row.dot(self.pos)];
        normalise([r(row_u), r(row_v), r(row_w)])
    }

    /// The ray through a pixel, in world axes (not normalised).
    pub(crate) fn ray(&self, u: f64, v: f64) -> V3 {
        self.fwd
            + self.right * ((u - self.cx) / self.focal_px)
            + self.down * ((v - self.cy) / self.focal_px)
    }
}
