//! The pitch model projected into the video: every line and arc of a 105 × 68 m pitch, sampled in
//! metres, taken through the frame's camera (the inverse of its image → pitch homography) to
//! video pixels, with the points behind the camera dropped, split into polylines at such gaps
//! and clipped to the frame. Pure (no GPU), so it is unit-tested with known cameras.
//!
//! Which side of the camera a pitch point is on comes from the sign of its homogeneous `w`: a
//! homography is defined up to scale (sign included), so the visible sign is taken from the
//! frame's bottom-centre pixel, which a broadcast camera always has on the ground side of the
//! horizon (`w` of a pitch point seen at pixel `p` has the sign of the third coordinate of
//! `image_to_pitch · p`).

/// A polyline in video pixels.
pub type Polyline = Vec<[f32; 2]>;

/// The pitch's length (x, goal line to goal line) and width (y, touch line to touch line), metres.
pub const LENGTH: f64 = 105.0;
pub const WIDTH: f64 = 68.0;
/// Radius of the centre circle and of the penalty arcs.
pub const CIRCLE_R: f64 = 9.15;
/// How far apart the model's samples are, in metres.
pub const STEP: f64 = 0.5;

const PENALTY_DEPTH: f64 = 16.5;
const PENALTY_HALF: f64 = 40.32 / 2.0;
const GOAL_AREA_DEPTH: f64 = 5.5;
const GOAL_AREA_HALF: f64 = 18.32 / 2.0;
const SPOT: f64 = 11.0;
/// The spots (centre and penalty) are drawn as small circles of this radius.
const SPOT_R: f64 = 0.3;

/// Every line and arc of the pitch model in pitch metres (origin at a corner, x along the
/// length, y across), each sampled at most `step` metres apart.
#[must_use]
pub fn pitch_model(step: f64) -> Vec<Vec<[f64; 2]>> {
    let step = if step.is_finite() && step > 0.01 {
        step
    } else {
        STEP
    };
    let (l, w, cy) = (LENGTH, WIDTH, WIDTH / 2.0);
    let seg = |a: [f64; 2], b: [f64; 2]| segment(a, b, step);
    let mut curves = vec![
        seg([0.0, 0.0], [l, 0.0]),
        seg([0.0, w], [l, w]),
        seg([0.0, 0.0], [0.0, w]),
        seg([l, 0.0], [l, w]),
        seg([l / 2.0, 0.0], [l / 2.0, w]),
        arc([l / 2.0, cy], CIRCLE_R, (0.0, std::f64::consts::TAU), step),
        arc([l / 2.0, cy], SPOT_R, (0.0, std::f64::consts::TAU), step),
    ];
    // both ends: `goal` is the goal line's x, `dir` points into the pitch
    for (goal, dir) in [(0.0, 1.0), (l, -1.0)] {
        for (depth, half) in [
            (PENALTY_DEPTH, PENALTY_HALF),
            (GOAL_AREA_DEPTH, GOAL_AREA_HALF),
        ] {
            let front = goal + dir * depth;
            curves.push(
                [
                    [goal, cy - half],
                    [front, cy - half],
                    [front, cy + half],
                    [goal, cy + half],
                ]
                .windows(2)
                .flat_map(|p| {
                    let mut s = seg(p[0], p[1]);
                    s.pop();
                    s
                })
                .chain([[goal, cy + half]])
                .collect(),
            );
        }
        let spot = [goal + dir * SPOT, cy];
        curves.push(arc(spot, SPOT_R, (0.0, std::f64::consts::TAU), step));
        // the arc outside the penalty area: where it is more than (depth − spot) ahead of the spot
        let half_angle = ((PENALTY_DEPTH - SPOT) / CIRCLE_R).acos();
        let facing = if dir > 0.0 { 0.0 } else { std::f64::consts::PI };
        curves.push(arc(
            spot,
            CIRCLE_R,
            (facing - half_angle, facing + half_angle),
            step,
        ));
    }
    curves
}

fn segment(a: [f64; 2], b: [f64; 2], step: f64) -> Vec<[f64; 2]> {
    let len = (b[0] - a[0]).hypot(b[1] - a[1]);
    let n = ((len / step).ceil() as usize).max(1);
    (0..=n)
        .map(|i| {
            let t = i as f64 / n as f64;
            [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
        })
        .collect()
}

fn arc(c: [f64; 2], r: f64, (from, to): (f64, f64), step: f64) -> Vec<[f64; 2]> {
    // at least 16 samples a full turn, so the small spots are round too
    let n = (((to - from).abs() * r / step).ceil() as usize)
        .max(((to - from).abs() / std::f64::consts::TAU * 16.0).ceil() as usize)
        .max(2);
    (0..=n)
        .map(|i| {
            let a = from + (to - from) * i as f64 / n as f64;
            [c[0] + r * a.cos(), c[1] + r * a.sin()]
        })
        .collect()
}

/// The inverse of a row-major 3×3 matrix; `None` when it is singular or not finite.
#[must_use]
pub fn invert(m: &[f64; 9]) -> Option<[f64; 9]> {
    let [a, b, c, d, e, f, g, h, i] = *m;
    let co = [
        e * i - f * h,
        c * h - b * i,
        b * f - c * e,
        f * g - d * i,
        a * i - c * g,
        c * d - a * f,
        d * h - e * g,
        b * g - a * h,
        a * e - b * d,
    ];
    let det = a * co[0] + b * co[3] + c * co[6];
    let scale = m.iter().fold(0.0f64, |s, v| s.max(v.abs()));
    if !det.is_finite() || !scale.is_finite() || scale == 0.0 || det.abs() <= 1e-12 * scale.powi(3)
    {
        return None;
    }
    let inv = co.map(|v| v / det);
    inv.iter().all(|v| v.is_finite()).then_some(inv)
}

/// A pitch → image mapping scaled so that the pitch points in front of the camera have `w > 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroundCamera {
    pitch_to_image: [f64; 9],
    /// `w` below this is at (or beyond) the horizon.
    min_w: f64,
}

impl GroundCamera {
    /// The camera of a frame of `frame` pixels whose pixels map to the pitch by `image_to_pitch`
    /// (row-major, `(x, y, 1)` → homogeneous metres). `None` for a matrix that cannot be
    /// inverted or whose horizon leaves no ground at the bottom of the frame.
    #[must_use]
    pub fn new(image_to_pitch: &[f64; 9], frame: (u32, u32)) -> Option<Self> {
        let inv = invert(image_to_pitch)?;
        let (fw, fh) = (f64::from(frame.0.max(1)), f64::from(frame.1.max(1)));
        let g = image_to_pitch;
        let w_at = |x: f64, y: f64| g[6] * x + g[7] * y + g[8];
        let row = g[6].abs() * fw + g[7].abs() * fh + g[8].abs();
        let sign = [(fw / 2.0, fh), (fw / 2.0, fh / 2.0)]
            .into_iter()
            .map(|(x, y)| w_at(x, y))
            .find(|w| w.is_finite() && w.abs() > 1e-9 * row)?
            .signum();
        let pitch_to_image = inv.map(|v| v * sign);
        let scale = pitch_to_image[6..]
            .iter()
            .fold(0.0f64, |s, v| s.max(v.abs()));
        Some(Self {
            pitch_to_image,
            min_w: 1e-9 * scale.max(f64::MIN_POSITIVE),
        })
    }

    /// The row-major pitch → image matrix, scaled so that visible points have `w > 0`.
    #[must_use]
    pub fn pitch_to_image(&self) -> [f64; 9] {
        self.pitch_to_image
    }

    /// The pixel where pitch point `p` (metres) is seen; `None` when it is behind the camera, at
    /// the horizon, or not finite.
    #[must_use]
    pub fn project(&self, p: [f64; 2]) -> Option<[f64; 2]> {
        let m = &self.pitch_to_image;
        let w = m[6] * p[0] + m[7] * p[1] + m[8];
        if w.is_nan() || w <= self.min_w {
            return None;
        }
        let x = (m[0] * p[0] + m[1] * p[1] + m[2]) / w;
        let y = (m[3] * p[0] + m[4] * p[1] + m[5]) / w;
        (x.is_finite() && y.is_finite()).then_some([x, y])
    }

    /// One model curve (pitch metres) in video pixels: split where its points cannot be seen and
    /// clipped to the `frame`, so each polyline is a run of visible, consecutive samples.
    #[must_use]
    pub fn project_curve(&self, curve: &[[f64; 2]], frame: (u32, u32)) -> Vec<Polyline> {
        let bounds = [f64::from(frame.0), f64::from(frame.1)];
        let mut out = Vec::new();
        let mut run: Vec<[f64; 2]> = Vec::new();
        for p in curve {
            match self.project(*p) {
                Some(q) => run.push(q),
                None => clip_run(&std::mem::take(&mut run), bounds, &mut out),
            }
        }
        clip_run(&run, bounds, &mut out);
        out
    }
}

/// Clips a run of pixel points to `[0, w] × [0, h]`, adding each piece inside as a polyline.
fn clip_run(run: &[[f64; 2]], bounds: [f64; 2], out: &mut Vec<Polyline>) {
    let mut cur: Polyline = Vec::new();
    // clipped points are inside up to rounding: clamp so that they are exactly
    let to32 = |p: [f64; 2]| {
        [
            p[0].clamp(0.0, bounds[0]) as f32,
            p[1].clamp(0.0, bounds[1]) as f32,
        ]
    };
    for s in run.windows(2) {
        match clip_segment(s[0], s[1], bounds) {
            Some((a, b)) => {
                let a32 = to32(a);
                // consecutive segments share their point, up to rounding in the clip
                let joined = cur.last().is_some_and(|l| {
                    (l[0] - a32[0]).abs() <= 1e-3 && (l[1] - a32[1]).abs() <= 1e-3
                });
                if !joined {
                    if cur.len() > 1 {
                        out.push(std::mem::take(&mut cur));
                    }
                    cur = vec![a32];
                }
                cur.push(to32(b));
            }
            None => {
                if cur.len() > 1 {
                    out.push(std::mem::take(&mut cur));
                }
                cur.clear();
            }
        }
    }
    if cur.len() > 1 {
        out.push(cur);
    }
}

/// Liang–Barsky: the part of segment `a → b` inside `[0, w] × [0, h]`, if any.
fn clip_segment(a: [f64; 2], b: [f64; 2], [w, h]: [f64; 2]) -> Option<([f64; 2], [f64; 2])> {
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (p, q) in [(-dx, a[0]), (dx, w - a[0]), (-dy, a[1]), (dy, h - a[1])] {
        if p == 0.0 {
            if q < 0.0 {
                return None;
            }
        } else {
            let r = q / p;
            if p < 0.0 {
                t0 = t0.max(r);
            } else {
                t1 = t1.min(r);
            }
        }
    }
    if t0 > t1 || !t0.is_finite() || !t1.is_finite() {
        return None;
    }
    let at = |t: f64| [a[0] + dx * t, a[1] + dy * t];
    Some((at(t0), at(t1)))
}

/// The pitch model's lines in video pixels for a frame of `frame` pixels whose camera maps pixels
/// to the pitch by `image_to_pitch` (row-major 3×3); empty when the matrix is unusable.
#[must_use]
pub fn project_pitch_lines(image_to_pitch: &[f64; 9], frame: (u32, u32)) -> Vec<Polyline> {
    let Some(cam) = GroundCamera::new(image_to_pitch, frame) else {
        return Vec::new();
    };
    pitch_model(STEP)
        .iter()
        .flat_map(|c| cam.project_curve(c, frame))
        .collect()
}

#[cfg(test)]
mod tests;
