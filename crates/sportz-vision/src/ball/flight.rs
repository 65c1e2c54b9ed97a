//! The ball in the air: where it is over the pitch and how high, from its flight.
//!
//! Through a camera, a pixel is a ray; the ball's ground point (where that ray meets the grass)
//! is where the ball is only while it is on the grass. A ball lofted 8 m up 60 m from a camera
//! 20 m high has its ground point some 20 m beyond it. In the air the ball falls with gravity
//! and otherwise flies straight, slowed a little by drag, so the rays of its recent sightings
//! fix one path: six unknowns (position and velocity), linear in them once gravity and drag are
//! given, two equations per sighting. [`Flight`] fits that path and a ball rolling on the grass
//! at constant velocity to the longest run of recent sightings the path explains, and calls the
//! ball airborne only where the grass cannot explain them and the path puts it clearly above
//! the ground.
//!
//! Drag matters more than it seems: seen from 100 m at a shallow angle, how far along its ray
//! the ball is rests on the curvature gravity gives its path, and a horizontal slowing of
//! 0.7 m/s² left out of the model puts the ball 4 m along its ray. The path is therefore slowed
//! horizontally by a linear drag (`FlightConfig::drag_per_s`), which keeps the fit linear.

use std::collections::VecDeque;

use crate::pitch::solve;

/// m/s².
pub const GRAVITY: f64 = 9.81;
/// The ball's radius, metres (a size-5 ball is 0.68–0.70 m round).
pub const BALL_RADIUS_M: f64 = 0.11;

use crate::camera::broadcast::{V3, cross, dot, sub};

/// One sighting of the ball: when, and the ray from the camera through its centre.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sighting {
    /// Video time, seconds.
    pub t: f64,
    /// The camera's position, pitch metres (z up).
    pub origin: V3,
    /// Unit direction of the ray through the ball's centre pixel.
    pub dir: V3,
    /// The camera's focal length, pixels: turns an angle into the pixels it spans.
    pub focal_px: f64,
}

/// A ball's path: with `τ = t − t0` and `k` the horizontal drag, `position(t) = p0 +
/// (v_x·e, v_y·e, v_z·τ − g/2·τ²)` where `e = (1 − exp(−kτ))/k` (τ when `k` is 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Trajectory {
    pub t0: f64,
    /// The ball's centre at `t0`, metres.
    pub p0: V3,
    /// Velocity at `t0`, m/s.
    pub v: V3,
    /// Downward acceleration, m/s² (0 for a ball rolling on the grass).
    pub gravity: f64,
    /// Horizontal deceleration per unit of speed, 1/s.
    pub drag_per_s: f64,
}

/// How far a unit horizontal velocity at τ = 0 carries the ball by τ under linear drag `k`.
fn drag_reach(tau: f64, k: f64) -> f64 {
    if k.abs() < 1e-9 {
        tau
    } else {
        -(-k * tau).exp_m1() / k
    }
}

impl Trajectory {
    /// The ball's centre at `t`.
    #[must_use]
    pub fn position(&self, t: f64) -> V3 {
        let tau = t - self.t0;
        let e = drag_reach(tau, self.drag_per_s);
        [
            self.p0[0] + self.v[0] * e,
            self.p0[1] + self.v[1] * e,
            self.p0[2] + self.v[2] * tau - self.gravity / 2.0 * tau * tau,
        ]
    }

    /// The ball's velocity at `t`, m/s.
    #[must_use]
    pub fn velocity(&self, t: f64) -> V3 {
        let tau = t - self.t0;
        let slowed = (-self.drag_per_s * tau).exp();
        [
            self.v[0] * slowed,
            self.v[1] * slowed,
            self.v[2] - self.gravity * tau,
        ]
    }
}

/// The ball in the air at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Airborne {
    /// The point on the grass under the ball, metres.
    pub ground: (f64, f64),
    /// The height of the ball's underside above the grass, metres.
    pub height_m: f64,
    /// Horizontal velocity, m/s.
    pub ground_velocity: (f64, f64),
    /// The fitted path and how many sightings it explains.
    pub trajectory: Trajectory,
    pub sightings: usize,
    /// How sure the place on the pitch is: its standard deviation, metres. Early in a flight
    /// gravity has bent the path too little to tell how far along its ray the ball is.
    pub spread_m: f64,
}

/// When the ball counts as airborne.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlightConfig {
    /// Fewest sightings a parabola is fitted to (at 25 fps, 0.4 s: over less, gravity bends
    /// the path by less than a pixel and any height fits).
    pub min_sightings: usize,
    /// Most recent sightings kept (3 s at 25 fps: longer flights are rare, and drag bends
    /// longer ones).
    pub max_sightings: usize,
    /// The parabola must explain every sighting of its run within this, pixels (rms).
    pub max_rms_px: f64,
    /// ... and the grass must not: a ball rolling at constant speed along the same rays
    /// misses them by more than this, pixels (rms).
    pub min_ground_rms_px: f64,
    /// Airborne only when the ball's underside is this high now, metres: below it the ground
    /// point is within a metre or two of the truth anyway.
    pub min_height_m: f64,
    /// Farther above the grass than this is no ball in play (a fit gone wrong), metres.
    pub max_height_m: f64,
    /// The least a sighting is assumed off by, pixels, for [`Airborne::spread_m`].
    pub noise_px: f64,
    /// A ball in the air is placed on the pitch only when its [`Airborne::spread_m`] is at most
    /// this, metres; before, it is in the air at an unknown place (tuning seed 13579: with
    /// spread ≤ 1.5 m the places were 0.7 m off on average, 1.5 m at most; the first frames of a
    /// fit spread 5–10 m and were as far off).
    pub max_spread_m: f64,
    /// Horizontal drag, 1/s (the horizontal speed lost per second per m/s): 0.05 is the
    /// synthetic ball's. A real ball loses more (quadratic drag, 0.2–0.35/s at kick speeds);
    /// with this default a long ball struck hard away from the camera is placed metres off
    /// along its ray (7.7 m against its ground point's 23 m in the test
    /// `a_real_balls_drag_misplaces_a_long_ball_by_metres`).
    pub drag_per_s: f64,
}

impl Default for FlightConfig {
    fn default() -> Self {
        Self {
            min_sightings: 10,
            max_sightings: 75,
            max_rms_px: 1.5,
            min_ground_rms_px: 2.0,
            min_height_m: 0.5,
            max_height_m: 40.0,
            noise_px: 0.5,
            max_spread_m: 1.5,
            drag_per_s: 0.05,
        }
    }
}

/// The recent sightings of one ball track and the flight they show.
#[derive(Debug, Clone)]
pub struct Flight {
    cfg: FlightConfig,
    sightings: VecDeque<Sighting>,
    /// What the sightings show, fitted once when the last one came.
    airborne: Option<Airborne>,
}

/// Normal equations of the weighted least squares over the six unknowns
/// `(p0x, p0y, p0z, vx, vy, vz)`.
#[derive(Debug, Clone, Copy, Default)]
struct Normal {
    a: [[f64; 6]; 6],
    b: [f64; 6],
}

fn norm(a: V3) -> f64 {
    dot(a, a).sqrt()
}

/// The two models fitted to a run of sightings.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Model {
    /// Free height and vertical speed, with gravity.
    Flight,
    /// On the grass (centre at the ball's radius), no vertical motion.
    Ground,
}

impl Normal {
    /// Adds one sighting: the cross product of (ball − camera) with the ray is zero, three
    /// rows (rank two), each weighted by `w`.
    fn add(&mut self, s: &Sighting, t0: f64, gravity: f64, drag_per_s: f64, w: f64) {
        let tau = s.t - t0;
        let e = drag_reach(tau, drag_per_s);
        let d = s.dir;
        // (p0 + τv) × d = (C + (0, 0, g/2·τ²)) × d
        let known = cross(
            [
                s.origin[0],
                s.origin[1],
                s.origin[2] + gravity / 2.0 * tau * tau,
            ],
            d,
        );
        let rows: [[f64; 3]; 3] = [[0.0, d[2], -d[1]], [-d[2], 0.0, d[0]], [d[1], -d[0], 0.0]];
        for (row, rhs) in rows.iter().zip(known) {
            let c = [row[0], row[1], row[2], e * row[0], e * row[1], tau * row[2]];
            for i in 0..6 {
                for j in 0..6 {
                    self.a[i][j] += w * c[i] * c[j];
                }
                self.b[i] += w * c[i] * rhs;
            }
        }
    }

    fn solve(&self, model: Model) -> Option<(V3, V3)> {
        match model {
            Model::Flight => {
                let x = solve(self.a, self.b)?;
                Some(([x[0], x[1], x[2]], [x[3], x[4], x[5]]))
            }
            Model::Ground => {
                // p0z = radius, vz = 0: move the known column to the right-hand side
                const FREE: [usize; 4] = [0, 1, 3, 4];
                let a = std::array::from_fn(|i| std::array::from_fn(|j| self.a[FREE[i]][FREE[j]]));
                let b =
                    std::array::from_fn(|i| self.b[FREE[i]] - self.a[FREE[i]][2] * BALL_RADIUS_M);
                let x = solve::<4>(a, b)?;
                Some(([x[0], x[1], BALL_RADIUS_M], [x[2], x[3], 0.0]))
            }
        }
    }
}

/// The distance from the camera to where its ray meets the plane of a grounded ball's centre,
/// within 5–300 m (a ray at or above the horizon: 300 m): the weight of a sighting before the
/// ball's distance is known.
fn ground_range(s: &Sighting) -> f64 {
    let drop = s.origin[2] - BALL_RADIUS_M;
    if s.dir[2] < -1e-6 {
        (drop / -s.dir[2]).clamp(5.0, 300.0)
    } else {
        300.0
    }
}

/// A path fitted to sightings.
struct Fitted {
    path: Trajectory,
    /// How far the path passes from the sightings' rays, pixels (rms).
    rms_px: f64,
    normal: Normal,
}

impl Fitted {
    /// The standard deviation of the ball's place on the pitch at the last sighting, metres,
    /// for sightings off by `noise_px` (at least): how well the rays and gravity pin it down.
    fn spread_m(&self, noise_px: f64) -> f64 {
        let unit = |i: usize| std::array::from_fn(|j| if i == j { 1.0 } else { 0.0 });
        let variance = |i: usize| solve(self.normal.a, unit(i)).map_or(f64::INFINITY, |x| x[i]);
        self.rms_px.max(noise_px) * (variance(0) + variance(1)).max(0.0).sqrt()
    }
}

/// Fits `model` to the sightings, each weighted by its focal length over its range squared (so
/// that residuals are pixels).
fn fit(sightings: &[Sighting], model: Model, ranges: &[f64], drag_per_s: f64) -> Option<Fitted> {
    let t0 = sightings.last()?.t;
    let gravity = if model == Model::Flight { GRAVITY } else { 0.0 };
    let mut n = Normal::default();
    for (s, r) in sightings.iter().zip(ranges) {
        n.add(s, t0, gravity, drag_per_s, (s.focal_px / r).powi(2));
    }
    let (p0, v) = n.solve(model)?;
    let path = Trajectory {
        t0,
        p0,
        v,
        gravity,
        drag_per_s,
    };
    Some(Fitted {
        path,
        rms_px: rms_px(sightings, &path),
        normal: n,
    })
}

/// How far, in pixels, the path passes from each sighting's ray (rms).
fn rms_px(sightings: &[Sighting], path: &Trajectory) -> f64 {
    let sum: f64 = sightings
        .iter()
        .map(|s| {
            let p = path.position(s.t);
            let rel = sub(p, s.origin);
            let range = norm(rel).max(1.0);
            (s.focal_px * norm(cross(rel, s.dir)) / range).powi(2)
        })
        .sum();
    (sum / sightings.len() as f64).sqrt()
}

impl Flight {
    #[must_use]
    pub fn new(cfg: FlightConfig) -> Self {
        Self {
            cfg,
            sightings: VecDeque::with_capacity(cfg.max_sightings),
            airborne: None,
        }
    }

    /// Forgets every sighting (a new ball track, a cut, no camera).
    pub fn clear(&mut self) {
        self.sightings.clear();
        self.airborne = None;
    }

    /// Sightings kept.
    #[must_use]
    pub fn len(&self) -> usize {
        self.sightings.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.sightings.is_empty()
    }

    /// Adds a sighting (times increasing; an older or equal time clears first).
    pub fn push(&mut self, s: Sighting) {
        if self.sightings.back().is_some_and(|last| last.t >= s.t) {
            self.sightings.clear();
        }
        if self.sightings.len() == self.cfg.max_sightings {
            self.sightings.pop_front();
        }
        self.sightings.push_back(s);
        self.airborne = fit_airborne(&self.cfg, self.sightings.make_contiguous());
    }

    /// The ball at the last sighting if it is airborne (fitted when that sighting came, so a
    /// coasting frame asks again for nothing).
    #[must_use]
    pub const fn airborne(&self) -> Option<Airborne> {
        self.airborne
    }
}

/// The longest run of recent sightings a parabola explains within `max_rms_px`, which a
/// ball on the grass does not explain (`min_ground_rms_px`), with a height between
/// `min_height_m` and `max_height_m` now.
fn fit_airborne(cfg: &FlightConfig, all: &[Sighting]) -> Option<Airborne> {
    if all.len() < cfg.min_sightings {
        return None;
    }
    let t_now = all.last()?.t;
    // first pass, newest backwards: the longest run the parabola explains, each sighting
    // weighted by its ground range (the ball is nearer when in the air: this undercounts
    // its misses, the second pass counts them at the fitted distance)
    let ground_ranges: Vec<f64> = all.iter().map(ground_range).collect();
    let mut normal = Normal::default();
    let mut longest = None;
    for k in (0..all.len()).rev() {
        let s = &all[k];
        normal.add(
            s,
            t_now,
            GRAVITY,
            cfg.drag_per_s,
            (s.focal_px / ground_ranges[k]).powi(2),
        );
        let n = all.len() - k;
        if n < cfg.min_sightings {
            continue;
        }
        let Some((p0, v)) = normal.solve(Model::Flight) else {
            continue;
        };
        let path = Trajectory {
            t0: t_now,
            p0,
            v,
            gravity: GRAVITY,
            drag_per_s: cfg.drag_per_s,
        };
        if rms_px(&all[k..], &path) <= cfg.max_rms_px {
            longest = Some(k);
        }
    }
    let run = &all[longest?..];
    // second pass: weights at the fitted distances
    let first = fit(
        run,
        Model::Flight,
        &ground_ranges[longest?..],
        cfg.drag_per_s,
    )?
    .path;
    let ranges: Vec<f64> = run
        .iter()
        .map(|s| {
            let p = first.position(s.t);
            norm(sub(p, s.origin)).max(1.0)
        })
        .collect();
    let flight = fit(run, Model::Flight, &ranges, cfg.drag_per_s)?;
    let (path, rms) = (flight.path, flight.rms_px);
    let ground_rms = fit(run, Model::Ground, &ranges, cfg.drag_per_s)?.rms_px;
    let now = path.position(t_now);
    let height = now[2] - BALL_RADIUS_M;
    let lowest = run
        .iter()
        .map(|s| path.position(s.t)[2] - BALL_RADIUS_M)
        .fold(f64::INFINITY, f64::min);
    let airborne = rms <= cfg.max_rms_px
        && ground_rms >= cfg.min_ground_rms_px
        && (cfg.min_height_m..=cfg.max_height_m).contains(&height)
        // the ball never goes through the grass
        && lowest >= -cfg.min_height_m;
    airborne.then(|| {
        let v = path.velocity(t_now);
        Airborne {
            ground: (now[0], now[1]),
            height_m: height,
            ground_velocity: (v[0], v[1]),
            trajectory: path,
            sightings: run.len(),
            spread_m: flight.spread_m(cfg.noise_px),
        }
    })
}

#[cfg(test)]
pub(crate) mod tests;
