//! Automatic initialisation: the camera from one frame, no clicks. A coarse search over broadcast
//! cameras — positions in the World Cup 2014 range (`gt/wc14` camera statistics: 45–61 m along
//! the pitch, 17–66 m behind the near touchline, 10–23 m up), every pan, tilt and zoom — scores
//! each by how many projected model-line samples fall near white line pixels (a chamfer score on
//! a quarter-resolution line mask), polishes the best few by a local search, then fits each to
//! the lines at full resolution with the position freed ([`fit_to_lines`]) and keeps the best.

use thiserror::Error;

use super::broadcast::{BroadcastCamera, Mat3};
use super::lines::{LineMask, LineTest, distance_to_lines};
use super::model::LineSample;
use super::refine::{LineFit, RefineConfig, fit_to_lines};
use crate::image::LineModel;
use crate::{BBox, Point, RgbImage};

/// The search space and acceptance rule.
#[derive(Debug, Clone, PartialEq)]
pub struct InitConfig {
    /// Camera positions tried (pitch metres); the fit frees them afterwards, within
    /// [`InitConfig::position_slack`] of where it started.
    pub positions: Vec<[f64; 3]>,
    /// How far (x, y, z metres) a fit may move a camera from its starting position.
    pub position_slack: [f64; 3],
    /// Pan range, degrees, around the direction from the camera to the centre spot.
    pub pan_deg: (f64, f64),
    /// Tilt range (down), degrees.
    pub tilt_deg: (f64, f64),
    /// Horizontal field of view range, degrees.
    pub fov_deg: (f64, f64),
    /// Wider views, searched only when none in `fov_deg` fits: the widest Bundesliga
    /// main-camera views of `pitch-keypoints-dfl` (a whole half and both touchlines) are 57–68°
    /// wide (from homographies fitted to their labelled landmarks; a 52° limit refused all of
    /// them), but searched together with the usual zooms, wide aliases beat true narrower views
    /// (measured: one range 7–75° with this support rule found fewer cameras, more wrong).
    pub wide_fov_deg: Option<(f64, f64)>,
    /// A camera is accepted only when its image centre looks at the ground within this many
    /// metres of this pitch point (`None`: anywhere): another angle on the same play looks
    /// where the main camera looked just before the cut, and a camera that fits the lines but
    /// looks elsewhere is an alias (the mirrored box at the other end).
    pub looking_at: Option<(Point, f64)>,
    /// The coarse search tries only the aims whose optical axis meets the ground within
    /// `looking_at` (else every aim, and `looking_at` only refuses the camera found): for the
    /// finer grid of the other angles (4× the candidates otherwise). Not for the main-camera
    /// searches: their coarse grid, moved by the narrowing, found zoom aliases on seed 5151.
    pub aim_near_view: bool,
    /// A camera from the wide search needs at least this share of observable samples on lines,
    /// whatever the line test (the wide alias of seed 7373's kick-off view, which matched the
    /// halfway line and far touchline but not the centre circle, had 0.70).
    pub min_support_wide: f64,
    /// The coarse search steps a field of view in this many pan (and tilt) steps: the coarse
    /// score only sees lines within a few cells, so a candidate must land near them.
    pub grid_steps: f64,
    /// Source pixels per mask cell.
    pub mask_step: usize,
    /// Candidates polished and fitted.
    pub keep: usize,
    /// A fit is accepted with at least this share of observable samples on lines (visible, with
    /// grass beside them: [`LineFit::observed_support`])…
    pub min_support: f64,
    /// The same share when the frame carries a learned line map
    /// ([`RgbImage::with_lines`]): the map is clean, so a right camera puts almost every
    /// observable sample on it, and wrong cameras were the ones between 0.7 and 0.9 (tuned on
    /// `pitch-keypoints-dfl/train`: 0 wrong cameras of 160 accepted at 0.9, 27 of 229 at 0.7).
    pub min_support_learned: f64,
    /// …this many matched samples…
    pub min_matched: usize,
    /// …on at least this many distinct markings.
    pub min_markings: usize,
    /// …and explaining at least this share of the frame's line pixels (the recall side: a wrong
    /// camera can put its few visible samples on lines while the frame's big markings stay
    /// unexplained).
    pub min_explained: f64,
    /// The frame needs this share of grass.
    pub min_grass: f64,
    /// …and at least this many line cells per cell of the mask's width plus height (lines are
    /// one-dimensional: their cells grow with the frame's side, not its area). A wide view has
    /// long markings: ≥ 221 cells at 640×360 on the shared real clip, ≥ 428 on synthetic
    /// seeds, ≥ 942 on the 1920×1080 `pitch-keypoints-dfl/valid` stills (mask 480×270). A
    /// close-up of a player on grass has fewer (73–117 at 640×360 on the real clip and seeds
    /// 77003 and 38917), on which a search cost 0.2–0.3 s to find nothing.
    pub min_line_cells_per_side: f64,
    pub test: LineTest,
}

impl Default for InitConfig {
    fn default() -> Self {
        let mut positions = Vec::new();
        // the WC14 mean and spread (camera statistics of `gt/wc14`)
        for (behind, up) in [(25.0, 12.0), (45.0, 17.0), (62.0, 21.0), (35.0, 20.0)] {
            positions.push([52.5, 68.0 + behind, up]);
        }
        // Only the main camera's stands: adding the 18-yard and behind-goal cameras as
        // hypotheses found their shots on synthetic seeds but also produced confident wrong
        // cameras (seed 5151: mean error 9.6 m), so other angles stay in pixel mode for now.
        Self {
            positions,
            position_slack: [15.0, 20.0, 9.0],
            pan_deg: (-55.0, 55.0),
            tilt_deg: (3.0, 40.0),
            fov_deg: (7.0, 52.0),
            wide_fov_deg: Some((52.0, 75.0)),
            min_support_wide: 0.9,
            looking_at: None,
            aim_near_view: false,
            mask_step: 4,
            grid_steps: 5.0,
            keep: 24,
            min_support: 0.7,
            min_support_learned: 0.9,
            min_matched: 30,
            min_markings: 3,
            min_explained: 0.5,
            min_grass: 0.4,
            min_line_cells_per_side: 0.6,
            test: LineTest::default(),
        }
    }
}

/// Why no camera was found in a frame.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum InitFailure {
    #[error("{:.0} % of the frame is grass, expected at least {:.0} % to look for the pitch", .share * 100.0, .needed * 100.0)]
    NoPitch { share: f64, needed: f64 },
    #[error("{found} line pixels found, expected at least {needed} (no pitch markings in view)")]
    NoLines { found: usize, needed: usize },
    #[error(
        "no camera puts the pitch model on the lines: best {matched} of {visible} observable samples on {markings} markings, explaining {:.0} % of the line pixels; expected ≥ {needed:.0} % of samples on ≥ {min_markings} markings, explaining ≥ {:.0} %", .explained * 100.0, .min_explained * 100.0
    )]
    NoFit {
        matched: usize,
        visible: usize,
        markings: usize,
        explained: f64,
        needed: f64,
        min_markings: usize,
        min_explained: f64,
        /// The best camera tried (refused), for diagnostics.
        best: Option<Box<BroadcastCamera>>,
    },
    /// A camera fits, but it is not where this video's main camera stands (the tracker's
    /// "home"): another shot, whose lines a main-camera alias happened to fit.
    #[error("{0}")]
    NotMain(String),
    /// The search did not run to an answer (its thread could not start, or ended without
    /// one): nothing was learnt about the frame; the next search comes as after a failure.
    #[error("the camera search did not run: {0}")]
    NotRun(String),
}

/// A coarse candidate: score, position, pan, tilt, field of view (degrees).
type Candidate = (f64, [f64; 3], f64, f64, f64);

struct Chamfer<'a> {
    mask: &'a LineMask,
    dist: &'a [f32],
    step: f64,
}

impl Chamfer<'_> {
    /// good − 0.5·missed − 1·(on non-grass), with a soft "good" within `tau` cells.
    fn score(&self, cam: &BroadcastCamera, samples: &[LineSample], tau: f32) -> f64 {
        self.score_matrix(&cam.image_from_pitch_matrix(), samples, tau)
    }

    /// [`Self::score`] of the camera with ground homography `m` (pitch → pixels).
    fn score_matrix(&self, m: &Mat3, samples: &[LineSample], tau: f32) -> f64 {
        let (w, h) = (self.mask.width as f64, self.mask.height as f64);
        // a sample whose numerator is below 0 or clearly above the image's size × z is out of
        // view without the two divisions (most samples, for a narrow field of view); the ones
        // near the edges still take the exact test below
        let (w_px, h_px) = (w * self.step * (1.0 + 1e-9), h * self.step * (1.0 + 1e-9));
        let mut s = 0.0_f64;
        for smp in samples {
            let (x, y) = (smp.pitch.x, smp.pitch.y);
            let z = m[2][0] * x + m[2][1] * y + m[2][2];
            if z < 0.5 {
                continue;
            }
            let nu = m[0][0] * x + m[0][1] * y + m[0][2];
            if nu < 0.0 || nu > w_px * z {
                continue;
            }
            let nv = m[1][0] * x + m[1][1] * y + m[1][2];
            if nv < 0.0 || nv > h_px * z {
                continue;
            }
            let u = nu / z / self.step;
            let v = nv / z / self.step;
            if u < 0.0 || v < 0.0 || u >= w || v >= h {
                continue;
            }
            let i = v as usize * self.mask.width + u as usize;
            let d = self.dist[i];
            s += if d < tau {
                f64::from(1.0 - d / tau)
            } else if self.mask.grass[i] {
                -0.5
            } else {
                -1.0
            };
        }
        s
    }
}

/// The pan and tilt ranges (degrees) the search tries from `pos`: `cfg`'s ranges (pan around
/// the direction to the centre spot), narrowed ([`InitConfig::aim_near_view`]) with
/// [`InitConfig::looking_at`] to the
/// directions whose optical axis meets the ground within its radius (the others would be
/// refused anyway); `None` when nothing is left.
pub(crate) fn aim_window(cfg: &InitConfig, pos: [f64; 3]) -> Option<((f64, f64), (f64, f64))> {
    let towards = (52.5 - pos[0]).atan2(pos[1] - 34.0).to_degrees();
    let mut pans = (towards + cfg.pan_deg.0, towards + cfg.pan_deg.1);
    let mut tilts = cfg.tilt_deg;
    if let Some((p, r)) = cfg.looking_at.filter(|_| cfg.aim_near_view) {
        let (dx, dy) = (p.x - pos[0], p.y - pos[1]);
        let d = dx.hypot(dy);
        if d > r {
            // the aim at the disc's centre, as an offset from `towards` in (−180°, 180°]
            let aim = dx.atan2(-dy).to_degrees();
            let aim = towards + (aim - towards + 180.0).rem_euclid(360.0) - 180.0;
            let half = (r / d).asin().to_degrees();
            pans = (pans.0.max(aim - half), pans.1.min(aim + half));
            let z = pos[2].max(0.1);
            let steepest = z.atan2(d - r).to_degrees();
            let flattest = z.atan2(d + r).to_degrees();
            tilts = (tilts.0.max(flattest), tilts.1.min(steepest));
        }
    }
    (pans.0 <= pans.1 && tilts.0 <= tilts.1).then_some((pans, tilts))
}

fn camera(pos: [f64; 3], pan: f64, tilt: f64, fov: f64, w: u32, h: u32) -> BroadcastCamera {
    BroadcastCamera {
        position: pos,
        pan: pan.to_radians(),
        tilt: tilt.to_radians(),
        roll: 0.0,
        focal_px: f64::from(w) / 2.0 / (fov.to_radians() / 2.0).tan(),
        width: w,
        height: h,
    }
}

/// Finds the camera of `img` from its lines alone; `boxes` (players) hide lines.
///
/// # Errors
/// [`InitFailure`]: not enough grass, no line pixels, or no camera fits well enough.
pub fn initialise(
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    cfg: &InitConfig,
) -> Result<LineFit, InitFailure> {
    let mask = LineMask::build(img, cfg.mask_step, 4.0, boxes, &cfg.test);
    let share = mask.grass_share();
    if share < cfg.min_grass {
        return Err(InitFailure::NoPitch {
            share,
            needed: cfg.min_grass,
        });
    }
    let lines = mask.line_count();
    let needed =
        (((mask.width + mask.height) as f64 * cfg.min_line_cells_per_side) as usize).max(20);
    if lines < needed {
        return Err(InitFailure::NoLines {
            found: lines,
            needed,
        });
    }
    let dist = distance_to_lines(&mask, 16.0);
    let ch = Chamfer {
        mask: &mask,
        dist: &dist,
        step: cfg.mask_step as f64,
    };
    let views =
        |fov, min_support| search_views(img, boxes, samples, coarse, cfg, &ch, fov, min_support);
    let usual = if img.lines().is_some() {
        cfg.min_support_learned
    } else {
        cfg.min_support
    };
    match (views(cfg.fov_deg, usual), cfg.wide_fov_deg) {
        (Err(narrow @ InitFailure::NoFit { .. }), Some(wide)) => {
            views(wide, usual.max(cfg.min_support_wide)).map_err(|_| narrow)
        }
        (found, _) => found,
    }
}

/// The coarse grid over `cfg`'s stands and every pan, tilt and a field of view in `fov_range`
/// (degrees), the best candidates polished and fitted, the best fit accepted (with at least
/// `min_support` of its observable samples on lines, and `cfg`'s other rules) or refused.
#[allow(
    clippy::too_many_arguments,
    reason = "one search's inputs, shared by its two fields of view"
)]
fn search_views(
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    cfg: &InitConfig,
    ch: &Chamfer<'_>,
    fov_range: (f64, f64),
    min_support: f64,
) -> Result<LineFit, InitFailure> {
    let mask = ch.mask;
    let (w, h) = (img.width(), img.height());
    let aspect = f64::from(h) / f64::from(w);
    // coarse grid: steps of 1/grid_steps of the field of view
    let mut cands: Vec<Candidate> = Vec::new();
    for &pos in &cfg.positions {
        let Some((pans, tilts)) = aim_window(cfg, pos) else {
            continue;
        };
        let mut fov = fov_range.0;
        while fov <= fov_range.1 {
            let vfov = 2.0
                * ((fov.to_radians() / 2.0).tan() * aspect)
                    .atan()
                    .to_degrees();
            let (ps, ts) = (fov / cfg.grid_steps, vfov / cfg.grid_steps);
            // the grid's tilts as camera() gives them, each sine once (not once per camera);
            // the focal length and position are the same for the whole grid of this fov
            let zero = 0.0_f64.sin_cos();
            let mut tilt_grid = Vec::new();
            let mut tilt = tilts.0;
            while tilt <= tilts.1 {
                tilt_grid.push((tilt, tilt.to_radians().sin_cos()));
                tilt += ts;
            }
            let base = camera(pos, pans.0, tilts.0, fov, w, h);
            let mut pan = pans.0;
            while pan <= pans.1 {
                let pan_trig = pan.to_radians().sin_cos();
                for &(tilt, tilt_trig) in &tilt_grid {
                    let m = base.image_from_pitch_matrix_at(pan_trig, tilt_trig, zero);
                    let s = ch.score_matrix(&m, coarse, 4.0);
                    if s > 0.0 {
                        cands.push((s, pos, pan, tilt, fov));
                    }
                }
                pan += ps;
            }
            fov *= 1.2;
        }
    }
    let mut picked: Vec<Candidate> = Vec::new();
    cands.sort_by(|a, b| b.0.total_cmp(&a.0));
    pick(&mut picked, cands, cfg.keep);
    let dense = super::model::samples(0.25);
    let explained = |f: &LineFit| explained_share(mask, &f.camera, &dense);
    let mut best: Option<(LineFit, f64)> = None;
    for (_, pos, pan, tilt, fov) in picked {
        let sl = cfg.position_slack;
        let refine = RefineConfig {
            reach_px: [32.0, 12.0, 5.0],
            iterations: 4,
            free_position: true,
            position_box: (
                [pos[0] - sl[0], pos[1] - sl[1], (pos[2] - sl[2]).max(3.0)],
                [pos[0] + sl[0], pos[1] + sl[1], pos[2] + sl[2]],
            ),
            ..RefineConfig::default()
        };
        let polished = polish(ch, coarse, pos, pan, tilt, fov, w, h);
        let held = fit_to_lines(
            img,
            &polished,
            samples,
            boxes,
            &RefineConfig {
                free_position: false,
                ..refine
            },
        );
        let free = fit_to_lines(img, &held.camera, samples, boxes, &refine);
        // once more from there: the first pass's matches were taken from a rough camera
        let again = fit_to_lines(img, &free.camera, samples, boxes, &refine);
        let Some(fit) = [held, free, again]
            .into_iter()
            .filter(|f| f.camera.check().is_ok())
            .max_by(|a, b| rank(a, cfg).total_cmp(&rank(b, cfg)))
        else {
            continue;
        };
        if best
            .as_ref()
            .is_none_or(|(b, _)| rank(&fit, cfg) > rank(b, cfg))
        {
            let e = explained(&fit);
            best = Some((fit, e));
        }
    }
    let Some((best, explained)) = best else {
        return Err(InitFailure::NoFit {
            matched: 0,
            visible: 0,
            markings: 0,
            explained: 0.0,
            needed: cfg.min_support * 100.0,
            min_markings: cfg.min_markings,
            min_explained: cfg.min_explained,
            best: None,
        });
    };
    if let Some(d) = looks_too_far(&best.camera, cfg) {
        let max = cfg.looking_at.map_or(0.0, |l| l.1);
        return Err(InitFailure::NotMain(format!(
            "the camera found looks {d:.0} m from where the main camera looked before the cut (at most {max:.0} m): taken for an alias"
        )));
    }
    if best.observed_support() >= min_support
        && best.matched >= cfg.min_matched
        && best.markings >= cfg.min_markings
        && explained >= cfg.min_explained
        && best.camera.check().is_ok()
    {
        let found = polish_on_pixels(img, best, boxes, samples, cfg);
        match looks_off_pitch(&found.camera) {
            Some(at) => Err(InitFailure::NotMain(format!(
                "the camera found looks at ({:.0}, {:.0}), more than {LOOKS_AT_PITCH_MARGIN_M:.0} m off the pitch: a broadcast camera looks at play",
                at.x, at.y
            ))),
            None => Ok(found),
        }
    } else {
        Err(InitFailure::NoFit {
            matched: best.matched_observable,
            visible: best.observable,
            markings: best.markings,
            explained,
            needed: min_support * 100.0,
            min_markings: cfg.min_markings,
            min_explained: cfg.min_explained,
            best: Some(Box::new(best.camera)),
        })
    }
}

/// A camera found on a learned line map, refitted to the pixels' own lines (the top-hat is
/// sharper than the map's 2-pixel cells) and kept only when it still sits on the map as well
/// as acceptance asks; the map's camera otherwise (faint lines the top-hat cannot see).
fn polish_on_pixels(
    img: &RgbImage<'_>,
    found: LineFit,
    boxes: &[BBox],
    samples: &[LineSample],
    cfg: &InitConfig,
) -> LineFit {
    if img.lines().is_none() {
        return found;
    }
    let Ok(plain) = RgbImage::new(img.data(), img.width(), img.height()) else {
        return found;
    };
    let p = found.camera.position;
    let refine = RefineConfig {
        reach_px: [8.0, 5.0, 3.0],
        iterations: 4,
        free_position: true,
        position_box: (
            [p[0] - 3.0, p[1] - 3.0, p[2] - 2.0],
            [p[0] + 3.0, p[1] + 3.0, p[2] + 2.0],
        ),
        ..RefineConfig::default()
    };
    let polished = fit_to_lines(&plain, &found.camera, samples, boxes, &refine);
    let on_map = fit_to_lines(
        img,
        &polished.camera,
        samples,
        boxes,
        &RefineConfig {
            iterations: 0,
            ..refine
        },
    );
    if polished.matched >= cfg.min_matched
        && polished.markings >= cfg.min_markings
        && on_map.observed_support() >= cfg.min_support_learned
        && polished.camera.check().is_ok()
    {
        on_map
    } else {
        found
    }
}

/// A broadcast camera on the pitch looks at play: the centre of its picture is on the pitch or
/// within this many metres of it. Seed 93337 frames 1301–1330: an 18-yard shot taken for a
/// camera looking 17 m behind the far touchline, on lines 60–70 m from the true ones, accepted
/// at 92 % support of the few samples it could observe.
pub const LOOKS_AT_PITCH_MARGIN_M: f64 = 10.0;

/// Where `cam` looks when that is more than [`LOOKS_AT_PITCH_MARGIN_M`] off the pitch (or above
/// the horizon: `(inf, inf)`).
#[must_use]
pub fn looks_off_pitch(cam: &BroadcastCamera) -> Option<Point> {
    match looks_at(cam) {
        Some(p) if crate::pitch::is_inside(p, LOOKS_AT_PITCH_MARGIN_M) => None,
        Some(p) => Some(p),
        None => Some(Point::new(f64::INFINITY, f64::INFINITY)),
    }
}

/// How far from [`InitConfig::looking_at`] `cam` looks, when that is farther than allowed.
fn looks_too_far(cam: &BroadcastCamera, cfg: &InitConfig) -> Option<f64> {
    let (p, max) = cfg.looking_at?;
    let d = looks_at(cam).map_or(f64::INFINITY, |q| q.distance(&p));
    (d > max).then_some(d)
}

/// The share of `img`'s line pixels (the line test of `cfg`, outside `boxes`) that the pitch
/// model as `cam` projects it explains: the recall side of acceptance, for a camera from
/// elsewhere (a manual calibration, a truth camera in a diagnosis).
#[must_use]
pub fn explained_by(
    img: &RgbImage<'_>,
    boxes: &[BBox],
    cam: &BroadcastCamera,
    cfg: &InitConfig,
) -> f64 {
    let mask = LineMask::build(img, cfg.mask_step, 4.0, boxes, &cfg.test);
    explained_share(&mask, cam, &super::model::samples(0.25))
}

/// The share of the mask's line cells within 2 cells of the pitch model as `cam` projects it.
fn explained_share(mask: &LineMask, cam: &BroadcastCamera, dense: &[LineSample]) -> f64 {
    let (w, h) = (mask.width, mask.height);
    let step = mask.step as f64;
    let mut model = LineMask {
        width: w,
        height: h,
        step: mask.step,
        line: vec![false; w * h],
        grass: Vec::new(),
    };
    let cam = cam.projector();
    for s in dense {
        let Some(p) = cam.project(s.pitch) else {
            continue;
        };
        if !cam.ray_hits_ground(p) {
            continue;
        }
        let (u, v) = (p.x / step, p.y / step);
        if u >= 0.0 && v >= 0.0 && u < w as f64 && v < h as f64 {
            model.line[v as usize * w + u as usize] = true;
        }
    }
    let near = distance_to_lines(&model, 8.0);
    let (mut lines, mut hit) = (0usize, 0usize);
    for (i, &l) in mask.line.iter().enumerate() {
        if l {
            lines += 1;
            hit += usize::from(near[i] <= 2.0);
        }
    }
    hit as f64 / lines.max(1) as f64
}

/// Adds the best of `list` that are not neighbours of one already picked, up to `until` in all.
fn pick(picked: &mut Vec<Candidate>, list: Vec<Candidate>, until: usize) {
    for c in list {
        if picked.len() >= until {
            break;
        }
        let near = picked.iter().any(|p| {
            p.1 == c.1
                && (p.2 - c.2).abs() < c.4 / 4.0
                && (p.3 - c.3).abs() < c.4 / 6.0
                && (p.4 / c.4).ln().abs() < 0.25
        });
        if !near {
            picked.push(c);
        }
    }
}

/// [`quality`], with every fit on too few markings (which can never be accepted) below every
/// fit that has enough.
fn rank(f: &LineFit, cfg: &InitConfig) -> f64 {
    if f.markings >= cfg.min_markings {
        quality(f)
    } else {
        quality(f) - 1e9
    }
}

/// Matched samples weighted by the fourth power of the support: a view that puts every visible
/// sample on a line beats a wider one that explains more lines but misses many (wrong wide
/// views can match many pixels by chance; the true one misses almost none).
fn quality(f: &LineFit) -> f64 {
    f.matched as f64 * f.support().powi(4)
}

/// Local pattern search on the chamfer score around a coarse candidate (pan, tilt, zoom, roll).
#[allow(
    clippy::too_many_arguments,
    reason = "the candidate's parts, kept flat for the grid"
)]
fn polish(
    ch: &Chamfer<'_>,
    samples: &[LineSample],
    pos: [f64; 3],
    pan: f64,
    tilt: f64,
    fov: f64,
    w: u32,
    h: u32,
) -> BroadcastCamera {
    let mut x = [pan, tilt, fov.ln(), 0.0];
    let mut step = [fov / 10.0, fov / 16.0, 0.08, 1.0];
    let eval = |x: &[f64; 4], tau: f32| {
        let mut c = camera(pos, x[0], x[1], x[2].exp(), w, h);
        c.roll = x[3].to_radians();
        ch.score(&c, samples, tau)
    };
    for tau in [3.0_f32, 2.0, 1.5] {
        let mut cur = eval(&x, tau);
        for _ in 0..6 {
            let mut moved = false;
            for k in 0..4 {
                for sgn in [-1.0, 1.0] {
                    let mut y = x;
                    y[k] += sgn * step[k];
                    let s = eval(&y, tau);
                    if s > cur {
                        (x, cur, moved) = (y, s, true);
                    }
                }
            }
            if !moved {
                for s in &mut step {
                    *s *= 0.5;
                }
            }
        }
    }
    let mut c = camera(pos, x[0], x[1], x[2].exp(), w, h);
    c.roll = x[3].to_radians();
    c
}

/// One search of a plan: the settings, and how far from the video's main camera ("home") a
/// camera it finds may stand (`None`: anywhere).
#[derive(Debug, Clone)]
pub struct SearchStep {
    pub config: InitConfig,
    pub max_from_home_m: Option<f64>,
}

/// How far apart two camera positions are, metres.
#[must_use]
pub fn stand_distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|k| (a[k] - b[k]).powi(2)).sum::<f64>().sqrt()
}

/// The pitch point at the centre of `cam`'s image (`None` above the horizon).
#[must_use]
pub fn looks_at(cam: &BroadcastCamera) -> Option<Point> {
    let (cx, cy) = cam.centre();
    let centre = Point::new(cx, cy);
    if !cam.ray_hits_ground(centre) {
        return None;
    }
    cam.image_from_pitch().ok()?.inverse().ok()?.apply(centre)
}

/// [`search`] with the top-hat line test first (sharpest where it sees the lines), then, when
/// that finds no camera and a line model is given, again on `img` carrying the model's line map
/// of it (faint, thin or blurred real-broadcast lines the top-hat misses); the map search's
/// failure when both fail. A model that cannot run leaves the top-hat's answer (it logs why).
///
/// # Errors
/// As [`search`].
pub fn search_with_lines(
    model: Option<&dyn LineModel>,
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    home: Option<[f64; 3]>,
    plan: &[SearchStep],
) -> Result<LineFit, InitFailure> {
    let plain = search(img, boxes, samples, coarse, home, plan);
    if plain.is_ok() || img.lines().is_some() {
        return plain;
    }
    // no pitch in view at all, or a camera found that is not the main one: the map cannot help
    if let Err(InitFailure::NoPitch { .. } | InitFailure::NotMain(_)) = &plain {
        return plain;
    }
    let Some(map) = model.and_then(|m| m.line_map(img).ok()) else {
        return plain;
    };
    search(&img.with_lines(&map), boxes, samples, coarse, home, plan)
}

/// [`initialise`] the same way: the top-hat first, then the line model's map (the still-image
/// paths: `sportz calibrate`, the API's automatic calibration).
///
/// # Errors
/// As [`initialise`].
pub fn initialise_with_lines(
    model: Option<&dyn LineModel>,
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    cfg: &InitConfig,
) -> Result<LineFit, InitFailure> {
    let plan = [SearchStep {
        config: cfg.clone(),
        max_from_home_m: None,
    }];
    search_with_lines(model, img, boxes, samples, coarse, None, &plan)
}

/// Runs the steps of `plan` in order and returns the first camera found that stands within its
/// step's distance of `home`; else the last step's failure ([`InitFailure::NotMain`] for a
/// camera found too far away).
///
/// # Errors
/// No step found an acceptable camera (an empty plan: [`InitFailure::NoLines`] with nothing).
pub fn search(
    img: &RgbImage<'_>,
    boxes: &[BBox],
    samples: &[LineSample],
    coarse: &[LineSample],
    home: Option<[f64; 3]>,
    plan: &[SearchStep],
) -> Result<LineFit, InitFailure> {
    let mut last = InitFailure::NoLines {
        found: 0,
        needed: 0,
    };
    for step in plan {
        match initialise(img, boxes, samples, coarse, &step.config) {
            Ok(fit) => {
                let away = home.map(|h| stand_distance(fit.camera.position, h));
                match (away, step.max_from_home_m) {
                    (Some(d), Some(max)) if d > max => {
                        last = InitFailure::NotMain(format!(
                            "the camera found stands {d:.0} m from the main camera (at most {max:.0} m): taken for another shot"
                        ));
                    }
                    _ => return Ok(fit),
                }
            }
            Err(e) => last = e,
        }
    }
    Err(last)
}
