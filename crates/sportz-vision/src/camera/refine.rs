//! Fitting a [`BroadcastCamera`] to the white lines of one frame: project the model's line
//! samples, look for the line across each projected sample ([`search_normal`]), and move the
//! camera (Gauss–Newton with a robust weight on point-to-line distances) until the projected
//! model sits on the lines; repeat with a shrinking search reach. Position can be held (tracking:
//! the camera does not move, it turns and zooms) or freed (initialisation).

use super::broadcast::{BroadcastCamera, Projector};
use super::lines::{LineTest, is_grass, search_normal};
use super::model::LineSample;
use crate::pitch::solve;
use crate::{BBox, Point, RgbImage};

/// How a fit searches and what it frees.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RefineConfig {
    /// Search reach per round, pixels (full resolution), largest first.
    pub reach_px: [f64; 3],
    /// Gauss–Newton iterations per round.
    pub iterations: usize,
    /// Whether the camera's position is estimated too (else only pan, tilt, roll, focal length).
    pub free_position: bool,
    /// Huber scale of the point-to-line residual, pixels.
    pub huber_px: f64,
    /// With the position freed, it stays inside this box (pitch metres, min and max corner):
    /// the places a broadcast camera stands.
    pub position_box: ([f64; 3], [f64; 3]),
    pub test: LineTest,
}

/// Where main broadcast cameras stand: the World Cup 2014 range (x 45–61 m, 17–66 m behind the
/// near touchline, 10–23 m up) with a margin.
pub const MAIN_CAMERA_BOX: ([f64; 3], [f64; 3]) =
    ([38.0, 68.0 + 12.0, 7.0], [67.0, 68.0 + 75.0, 30.0]);

impl Default for RefineConfig {
    fn default() -> Self {
        Self {
            reach_px: [24.0, 10.0, 5.0],
            iterations: 3,
            free_position: false,
            huber_px: 2.0,
            position_box: MAIN_CAMERA_BOX,
            test: LineTest::default(),
        }
    }
}

/// How well a camera sits on a frame's lines.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LineFit {
    pub camera: BroadcastCamera,
    /// Model samples projected inside the image and not hidden by a player box.
    pub visible: usize,
    /// Of those, the ones with a line pixel within the last round's reach.
    pub matched: usize,
    /// RMS point-to-line distance of the matched samples, pixels.
    pub rms_px: f64,
    /// How many distinct markings (touchline, halfway line, box sides, circle…) were matched.
    pub markings: usize,
    /// Visible samples with grass on both sides, where the line test can see a line at all (a
    /// touchline against the boards cannot be), and how many of those matched.
    pub observable: usize,
    pub matched_observable: usize,
}

impl LineFit {
    /// `matched / visible` (0 with nothing visible).
    #[must_use]
    pub fn support(&self) -> f64 {
        if self.visible == 0 {
            0.0
        } else {
            self.matched as f64 / self.visible as f64
        }
    }

    /// `matched_observable / observable`: the support counting only samples the line test
    /// could have matched (what acceptance uses).
    #[must_use]
    pub fn observed_support(&self) -> f64 {
        if self.observable == 0 {
            0.0
        } else {
            self.matched_observable as f64 / self.observable as f64
        }
    }
}

/// What [`correspondences`] found.
struct Found {
    visible: usize,
    matches: Vec<Match>,
    markings: usize,
    observable: usize,
    matched_observable: usize,
}

struct Match {
    pitch: Point,
    target: Point,
    normal: (f64, f64),
}

const PARAMS: usize = 7;

fn with_params(base: &BroadcastCamera, p: &[f64; PARAMS]) -> BroadcastCamera {
    BroadcastCamera {
        pan: p[0],
        tilt: p[1],
        roll: p[2],
        focal_px: p[3].exp(),
        position: [p[4], p[5], p[6]],
        ..*base
    }
}

fn params_of(c: &BroadcastCamera) -> [f64; PARAMS] {
    [
        c.pan,
        c.tilt,
        c.roll,
        c.focal_px.ln(),
        c.position[0],
        c.position[1],
        c.position[2],
    ]
}

/// Where a sample lands and the image normal of its marking there.
fn project_sample(cam: &Projector, s: &LineSample) -> Option<(Point, (f64, f64), f64)> {
    let p = cam.project(s.pitch)?;
    let q = cam.project(Point::new(
        s.pitch.x + s.tangent.0 * 0.5,
        s.pitch.y + s.tangent.1 * 0.5,
    ))?;
    let (dx, dy) = (q.x - p.x, q.y - p.y);
    let len = dx.hypot(dy);
    if len < 1e-6 {
        return None;
    }
    // pixels per metre across the line ≈ along it (close enough for the line-width guess)
    Some((p, (-dy / len, dx / len), len * 2.0))
}

fn inside(p: Point, w: f64, h: f64, margin: f64) -> bool {
    p.x >= margin && p.y >= margin && p.x < w - margin && p.y < h - margin
}

fn hidden(p: Point, boxes: &[BBox]) -> bool {
    let (x, y) = (p.x as f32, p.y as f32);
    boxes
        .iter()
        .any(|b| x >= b.x1 - 2.0 && x <= b.x2 + 2.0 && y >= b.y1 - 2.0 && y <= b.y2 + 2.0)
}

/// Finds the line across every visible sample within `reach`.
fn correspondences(
    img: &RgbImage<'_>,
    cam: &BroadcastCamera,
    samples: &[LineSample],
    boxes: &[BBox],
    reach: f64,
    test: &LineTest,
) -> Found {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    let (mut visible, mut observable, mut matched_observable) = (0, 0, 0);
    let mut out = Vec::new();
    let mut seen = [false; 32];
    let cam = cam.projector();
    for s in samples {
        let Some((p, n, px_per_m)) = project_sample(&cam, s) else {
            continue;
        };
        if !inside(p, w, h, 2.0) || hidden(p, boxes) || !cam.ray_hits_ground(p) {
            continue;
        }
        // grass is looked for beyond the line: its projected width (0.12 m) plus a margin
        let half_width = (px_per_m * 0.12 + 3.0).clamp(3.0, 12.0);
        // a line with no grass beside it (a touchline against the boards) cannot be seen by the
        // line test: it is not counted for or against the camera
        let beside = |k: f64| {
            let q = (p.x + n.0 * k, p.y + n.1 * k);
            q.0 >= 0.0
                && q.1 >= 0.0
                && q.0 < w
                && q.1 < h
                && is_grass(img.pixel(q.0 as u32, q.1 as u32))
        };
        let far = half_width + 2.0;
        let can_see = beside(far) && beside(-far);
        visible += 1;
        observable += usize::from(can_see);
        if let Some(t) = search_normal(img, p, n, reach, half_width, test) {
            matched_observable += usize::from(can_see);
            out.push(Match {
                pitch: s.pitch,
                target: Point::new(p.x + n.0 * t, p.y + n.1 * t),
                normal: n,
            });
            if let Some(v) = seen.get_mut(usize::from(s.marking)) {
                *v = true;
            }
        }
    }
    let markings = seen.iter().filter(|v| **v).count();
    Found {
        visible,
        matches: out,
        markings,
        observable,
        matched_observable,
    }
}

fn residuals(cam: &BroadcastCamera, m: &[Match], out: &mut Vec<f64>) {
    out.clear();
    let cam = cam.projector();
    for c in m {
        let r = cam.project(c.pitch).map_or(1e3, |p| {
            (p.x - c.target.x) * c.normal.0 + (p.y - c.target.y) * c.normal.1
        });
        out.push(r);
    }
}

/// One robust Gauss–Newton step over the freed parameters; `None` when the system is singular.
fn step(base: &BroadcastCamera, m: &[Match], free: usize, huber: f64) -> Option<BroadcastCamera> {
    let p0 = params_of(base);
    let mut r0 = Vec::new();
    residuals(base, m, &mut r0);
    let eps = [1e-5, 1e-5, 1e-5, 1e-5, 1e-3, 1e-3, 1e-3];
    let mut jac = vec![[0.0; PARAMS]; m.len()];
    let mut r1 = Vec::new();
    for k in 0..free {
        let mut p = p0;
        p[k] += eps[k];
        residuals(&with_params(base, &p), m, &mut r1);
        for (row, (a, b)) in jac.iter_mut().zip(r1.iter().zip(&r0)) {
            row[k] = (a - b) / eps[k];
        }
    }
    let mut jtj = [[0.0; PARAMS]; PARAMS];
    let mut jtr = [0.0; PARAMS];
    for (row, &r) in jac.iter().zip(&r0) {
        let w = if r.abs() <= huber {
            1.0
        } else {
            huber / r.abs()
        };
        for a in 0..free {
            jtr[a] += w * row[a] * r;
            for b in 0..free {
                jtj[a][b] += w * row[a] * row[b];
            }
        }
    }
    // a little damping keeps weakly constrained directions (e.g. position) from running away
    for (a, row) in jtj.iter_mut().enumerate().take(free) {
        row[a] *= 1.0 + 1e-3;
        row[a] += 1e-6;
    }
    for (a, row) in jtj.iter_mut().enumerate().skip(free) {
        row[a] = 1.0;
    }
    let neg: [f64; PARAMS] = jtr.map(|v| -v);
    let delta = solve(jtj, neg)?;
    let mut p = p0;
    for k in 0..free {
        p[k] += delta[k];
    }
    Some(with_params(base, &p))
}

/// Fits `start` to the lines of `img`; player `boxes` hide the lines behind them.
#[must_use]
pub fn fit_to_lines(
    img: &RgbImage<'_>,
    start: &BroadcastCamera,
    samples: &[LineSample],
    boxes: &[BBox],
    cfg: &RefineConfig,
) -> LineFit {
    let free = if cfg.free_position { PARAMS } else { 4 };
    let mut cam = *start;
    for &reach in &cfg.reach_px {
        let Found {
            matches, markings, ..
        } = correspondences(img, &cam, samples, boxes, reach, &cfg.test);
        let min_matches = if cfg.free_position { 12 } else { 6 };
        if matches.len() < min_matches || markings < 2 {
            continue;
        }
        for _ in 0..cfg.iterations {
            match step(&cam, &matches, free, cfg.huber_px) {
                Some(mut next) if next.check().is_ok() => {
                    // a held position is where it was, wherever that is (another angle's stand)
                    if cfg.free_position {
                        let (lo, hi) = cfg.position_box;
                        for k in 0..3 {
                            next.position[k] = next.position[k].clamp(lo[k], hi[k]);
                        }
                    }
                    cam = next;
                }
                _ => break,
            }
        }
    }
    let Found {
        visible,
        matches,
        markings,
        observable,
        matched_observable,
    } = correspondences(img, &cam, samples, boxes, cfg.reach_px[2], &cfg.test);
    let mut r = Vec::new();
    residuals(&cam, &matches, &mut r);
    let rms = if r.is_empty() {
        f64::INFINITY
    } else {
        (r.iter().map(|v| v * v).sum::<f64>() / r.len() as f64).sqrt()
    };
    LineFit {
        camera: cam,
        visible,
        matched: matches.len(),
        rms_px: rms,
        markings,
        observable,
        matched_observable,
    }
}

/// Fits the camera's pan, tilt, roll and focal length (position held) so that it maps the given
/// pitch points onto the given pixels (least squares): turns a chained homography back into a
/// physical camera.
#[must_use]
pub fn fit_to_points(
    start: &BroadcastCamera,
    pitch: &[Point],
    pixels: &[Point],
    iterations: usize,
) -> BroadcastCamera {
    let mut cam = *start;
    for _ in 0..iterations {
        // x and y residuals as two point-to-line matches with axis normals
        let m: Vec<Match> = pitch
            .iter()
            .zip(pixels)
            .flat_map(|(&p, &q)| {
                [(1.0, 0.0), (0.0, 1.0)].map(|normal| Match {
                    pitch: p,
                    target: q,
                    normal,
                })
            })
            .collect();
        match step(&cam, &m, 4, f64::INFINITY) {
            Some(next) if next.check().is_ok() => cam = next,
            _ => break,
        }
    }
    cam
}
