//! [`BroadcastCamera`]: the physical camera a broadcast uses — a pinhole at a fixed place that
//! pans, tilts, rolls a little and zooms — and its ground-plane homography. Estimating these seven
//! numbers instead of eight free homography entries keeps every estimate a camera that could
//! exist; [`BroadcastCamera::check`] refuses the ones that could not be a broadcast camera.
//!
//! Axes: pitch metres, z up. Pan 0 looks along −y (from the y = 68 side, where the main camera
//! stands, towards the far touchline y = 0), positive pan turns towards +x; positive tilt looks
//! down; the principal point is the image centre.

use thiserror::Error;

use crate::Point;
use crate::pitch::Homography;

/// Row-major 3×3.
pub type Mat3 = [[f64; 3]; 3];

/// A pinhole camera at `position`, with pan/tilt/roll (radians) and focal length (pixels), for an
/// image `width`×`height`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BroadcastCamera {
    pub position: [f64; 3],
    pub pan: f64,
    pub tilt: f64,
    pub roll: f64,
    pub focal_px: f64,
    pub width: u32,
    pub height: u32,
}

/// A [`BroadcastCamera`]'s ground homography and axes, computed once ([`BroadcastCamera::projector`]):
/// the per-point questions of the line fits and searches without three `sin_cos` a point.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Projector {
    /// Pitch (z = 0) → pixels, row-major, unnormalised.
    pub m: Mat3,
    right: V3,
    down: V3,
    fwd: V3,
    centre: (f64, f64),
    focal_px: f64,
}

impl Projector {
    /// The pixel a pitch point projects to; `None` behind the camera.
    #[must_use]
    pub fn project(&self, p: Point) -> Option<Point> {
        let m = &self.m;
        let w = m[2][0] * p.x + m[2][1] * p.y + m[2][2];
        if w < 0.5 {
            return None;
        }
        Some(Point::new(
            (m[0][0] * p.x + m[0][1] * p.y + m[0][2]) / w,
            (m[1][0] * p.x + m[1][1] * p.y + m[1][2]) / w,
        ))
    }

    /// The direction (not normalised; unit depth along the optical axis) of the ray from the
    /// camera through a pixel, in pitch axes.
    fn ray(&self, px: Point) -> V3 {
        let (cx, cy) = self.centre;
        add(
            self.fwd,
            add(
                scale(self.right, (px.x - cx) / self.focal_px),
                scale(self.down, (px.y - cy) / self.focal_px),
            ),
        )
    }

    /// Whether the ray through a pixel goes down to the ground (below the horizon).
    #[must_use]
    pub fn ray_hits_ground(&self, px: Point) -> bool {
        self.ray(px)[2] < -1e-9
    }
}

/// Why a camera (or a homography) is not one a broadcast could have.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum Implausible {
    #[error("camera parameters are not finite")]
    NotFinite,
    #[error("camera height {0:.1} m, expected 2–150 m above the pitch")]
    Height(f64),
    #[error("camera {0:.0} m from the centre spot, expected within 300 m")]
    Distance(f64),
    #[error("horizontal field of view {0:.1}°, expected 1–120°")]
    FieldOfView(f64),
    #[error("camera roll {0:.1}°, expected within ±15°")]
    Roll(f64),
    #[error("camera tilt {0:.1}°, expected looking down by 0–85°")]
    Tilt(f64),
    #[error("the homography is not a camera looking at the ground (decomposition failed)")]
    NotACamera,
    #[error("the pitch covers {0:.0} % of the image, expected at least 5 %")]
    PitchNotInView(f64),
}

/// A vector in pitch axes (metres, z up), and the few operations the camera and the ball's
/// flight need on it.
pub(crate) type V3 = [f64; 3];

pub(crate) fn dot(a: V3, b: V3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
pub(crate) fn cross(a: V3, b: V3) -> V3 {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn scale(a: V3, k: f64) -> V3 {
    [a[0] * k, a[1] * k, a[2] * k]
}
fn add(a: V3, b: V3) -> V3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
pub(crate) fn sub(a: V3, b: V3) -> V3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn unit(a: V3) -> V3 {
    scale(a, 1.0 / dot(a, a).sqrt())
}

/// The camera's axes (right, down, forward) from the `(sin, cos)` of its pan, tilt and roll.
fn axes_of((sp, cp): (f64, f64), (st, ct): (f64, f64), (sr, cr): (f64, f64)) -> (V3, V3, V3) {
    let fwd = [sp * ct, -cp * ct, -st];
    let right0 = [cp, sp, 0.0];
    let down0 = cross(right0, fwd);
    let right = add(scale(right0, cr), scale(down0, sr));
    let down = add(scale(right0, -sr), scale(down0, cr));
    (right, down, fwd)
}

impl BroadcastCamera {
    /// The camera's axes (right, down, forward) in pitch coordinates.
    #[must_use]
    pub fn axes(&self) -> (V3, V3, V3) {
        axes_of(self.pan.sin_cos(), self.tilt.sin_cos(), self.roll.sin_cos())
    }

    /// Principal point (the image centre).
    #[must_use]
    pub fn centre(&self) -> (f64, f64) {
        (f64::from(self.width) / 2.0, f64::from(self.height) / 2.0)
    }

    /// Pitch (z = 0) → pixels, row-major, unnormalised.
    #[must_use]
    pub fn image_from_pitch_matrix(&self) -> Mat3 {
        self.matrix_with_axes(self.axes())
    }

    /// [`Self::image_from_pitch_matrix`] with the pan, tilt and roll given as their
    /// `(sin, cos)` (the camera's own angles ignored): a search over a grid of angles computes
    /// each sine once, not once per camera.
    #[must_use]
    pub fn image_from_pitch_matrix_at(
        &self,
        pan: (f64, f64),
        tilt: (f64, f64),
        roll: (f64, f64),
    ) -> Mat3 {
        self.matrix_with_axes(axes_of(pan, tilt, roll))
    }

    fn matrix_with_axes(&self, (right, down, fwd): (V3, V3, V3)) -> Mat3 {
        let (cx, cy) = self.centre();
        let f = self.focal_px;
        let row_u = add(scale(right, f), scale(fwd, cx));
        let row_v = add(scale(down, f), scale(fwd, cy));
        let row = |r: V3| [r[0], r[1], -dot(r, self.position)];
        [row(row_u), row(row_v), row(fwd)]
    }

    /// The ground homography (pitch → pixels).
    ///
    /// # Errors
    /// The matrix is singular (the camera sits on the ground plane).
    pub fn image_from_pitch(&self) -> Result<Homography, crate::pitch::PitchError> {
        Homography::from_matrix(self.image_from_pitch_matrix())
    }

    /// The pixel a pitch point projects to; `None` behind the camera. For many points, take a
    /// [`Projector`] once ([`Self::projector`]): this builds the camera's matrix on every call.
    #[must_use]
    pub fn project(&self, p: Point) -> Option<Point> {
        self.projector().project(p)
    }

    /// The unit direction, in pitch axes, of the ray from the camera through a pixel.
    #[must_use]
    pub fn ray(&self, px: Point) -> [f64; 3] {
        unit(self.projector().ray(px))
    }

    /// The pixel a point in space (pitch metres, z up) projects to; `None` behind the camera.
    #[must_use]
    pub fn project_3d(&self, p: [f64; 3]) -> Option<Point> {
        let (right, down, fwd) = self.axes();
        let rel = sub(p, self.position);
        let depth = dot(rel, fwd);
        if depth < 0.5 {
            return None;
        }
        let (cx, cy) = self.centre();
        Some(Point::new(
            cx + self.focal_px * dot(rel, right) / depth,
            cy + self.focal_px * dot(rel, down) / depth,
        ))
    }

    /// The camera's matrices, computed once for projecting many points.
    #[must_use]
    pub fn projector(&self) -> Projector {
        let axes = self.axes();
        let (right, down, fwd) = axes;
        Projector {
            m: self.matrix_with_axes(axes),
            right,
            down,
            fwd,
            centre: self.centre(),
            focal_px: self.focal_px,
        }
    }

    /// Horizontal field of view, degrees.
    #[must_use]
    pub fn fov_deg(&self) -> f64 {
        (2.0 * (f64::from(self.width) / 2.0 / self.focal_px).atan()).to_degrees()
    }

    /// Refuses cameras no broadcast has: underground or very high, far away, fish-eye or
    /// telescope zoom, rolled, looking up, or not seeing the pitch.
    ///
    /// # Errors
    /// The first rule it breaks.
    pub fn check(&self) -> Result<(), Implausible> {
        let v = [
            self.position[0],
            self.position[1],
            self.position[2],
            self.pan,
            self.tilt,
            self.roll,
            self.focal_px,
        ];
        if !v.iter().all(|x| x.is_finite()) || self.focal_px <= 0.0 {
            return Err(Implausible::NotFinite);
        }
        let z = self.position[2];
        if !(2.0..=150.0).contains(&z) {
            return Err(Implausible::Height(z));
        }
        let d = (self.position[0] - 52.5).hypot(self.position[1] - 34.0);
        if d > 300.0 {
            return Err(Implausible::Distance(d));
        }
        let fov = self.fov_deg();
        if !(1.0..=120.0).contains(&fov) {
            return Err(Implausible::FieldOfView(fov));
        }
        let roll = self.roll.to_degrees();
        if roll.abs() > 15.0 {
            return Err(Implausible::Roll(roll));
        }
        let tilt = self.tilt.to_degrees();
        if !(0.0..=85.0).contains(&tilt) {
            return Err(Implausible::Tilt(tilt));
        }
        let share = self.pitch_share();
        if share < 0.05 {
            return Err(Implausible::PitchNotInView(share * 100.0));
        }
        Ok(())
    }

    /// The share of the image (on a 16×9 grid of pixels) that shows the pitch (with 3 m around it).
    #[must_use]
    pub fn pitch_share(&self) -> f64 {
        let Ok(h) = self.image_from_pitch().and_then(|h| h.inverse()) else {
            return 0.0;
        };
        let (w, hgt) = (f64::from(self.width), f64::from(self.height));
        let proj = self.projector();
        let mut inside = 0u32;
        for j in 0..9 {
            for i in 0..16 {
                let px = Point::new(
                    (f64::from(i) + 0.5) * w / 16.0,
                    (f64::from(j) + 0.5) * hgt / 9.0,
                );
                if proj.ray_hits_ground(px)
                    && h.apply(px).is_some_and(|p| crate::pitch::is_inside(p, 3.0))
                {
                    inside += 1;
                }
            }
        }
        f64::from(inside) / 144.0
    }

    /// Whether the ray through a pixel goes down to the ground (below the horizon).
    #[must_use]
    pub fn ray_hits_ground(&self, px: Point) -> bool {
        self.projector().ray_hits_ground(px)
    }

    /// The camera whose ground homography is `image_from_pitch` (pitch → pixels), principal point
    /// at the image centre: focal length from the orthogonality of the rotation's first two
    /// columns, then rotation and position (Zhang's decomposition with a known principal point).
    ///
    /// # Errors
    /// [`Implausible::NotACamera`] when no real focal length or rotation fits.
    pub fn from_homography(
        image_from_pitch: &Mat3,
        width: u32,
        height: u32,
    ) -> Result<Self, Implausible> {
        let (cx, cy) = (f64::from(width) / 2.0, f64::from(height) / 2.0);
        let m = image_from_pitch;
        // remove the principal point: H' = T⁻¹ H
        let hp: Mat3 = [
            [
                m[0][0] - cx * m[2][0],
                m[0][1] - cx * m[2][1],
                m[0][2] - cx * m[2][2],
            ],
            [
                m[1][0] - cy * m[2][0],
                m[1][1] - cy * m[2][1],
                m[1][2] - cy * m[2][2],
            ],
            m[2],
        ];
        let col = |j: usize| [hp[0][j], hp[1][j], hp[2][j]];
        let (h1, h2, h3) = (col(0), col(1), col(2));
        let f2_orth = -(h1[0] * h2[0] + h1[1] * h2[1]) / (h1[2] * h2[2]);
        let f2_norm = ((h1[0] * h1[0] + h1[1] * h1[1]) - (h2[0] * h2[0] + h2[1] * h2[1]))
            / (h2[2] * h2[2] - h1[2] * h1[2]);
        let f2 = match (
            f2_orth.is_finite() && f2_orth > 0.0,
            f2_norm.is_finite() && f2_norm > 0.0,
        ) {
            (true, true) => (f2_orth * f2_norm).sqrt(),
            (true, false) => f2_orth,
            (false, true) => f2_norm,
            (false, false) => return Err(Implausible::NotACamera),
        };
        let f = f2.sqrt();
        let kinv = |v: V3| [v[0] / f, v[1] / f, v[2]];
        let (a1, a2, a3) = (kinv(h1), kinv(h2), kinv(h3));
        let lambda = 2.0 / (dot(a1, a1).sqrt() + dot(a2, a2).sqrt());
        let (mut r1, mut r2, mut t) = (scale(a1, lambda), scale(a2, lambda), scale(a3, lambda));
        // orthonormalise (Gram–Schmidt; noise makes the columns only nearly orthogonal)
        r1 = unit(r1);
        r2 = unit(add(r2, scale(r1, -dot(r2, r1))));
        // (right, down, forward) is a left-handed frame in pitch axes (x along, y across, z up;
        // the synthetic renderer's convention), so the third column is −(r1 × r2)
        let mut r3 = scale(cross(r1, r2), -1.0);
        // camera centre C = −Rᵀ t, where R's columns are r1, r2, r3
        let centre = |r1: V3, r2: V3, r3: V3, t: V3| [-dot(r1, t), -dot(r2, t), -dot(r3, t)];
        let mut c = centre(r1, r2, r3, t);
        if c[2] < 0.0 {
            r1 = scale(r1, -1.0);
            r2 = scale(r2, -1.0);
            t = scale(t, -1.0);
            r3 = scale(cross(r1, r2), -1.0);
            c = centre(r1, r2, r3, t);
        }
        // rows of R: right, down, forward
        let right = [r1[0], r2[0], r3[0]];
        let fwd = [r1[2], r2[2], r3[2]];
        if !(c.iter().all(|v| v.is_finite()) && fwd.iter().all(|v| v.is_finite())) {
            return Err(Implausible::NotACamera);
        }
        let tilt = (-fwd[2]).clamp(-1.0, 1.0).asin();
        let pan = fwd[0].atan2(-fwd[1]);
        let probe = Self {
            position: c,
            pan,
            tilt,
            roll: 0.0,
            focal_px: f,
            width,
            height,
        };
        let (right0, down0, _) = probe.axes();
        let roll = dot(right, down0).atan2(dot(right, right0));
        Ok(Self { roll, ..probe })
    }
}

#[cfg(test)]
mod tests;
