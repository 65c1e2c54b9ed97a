//! The ball tracker: a constant-velocity Kalman filter in pixels (time steps in seconds, so the
//! velocity is px/s), moved with the picture when the camera pans or zooms
//! ([`BallTracker::compensate`]), a gate that widens with every miss, coasting for a few frames
//! with `predicted: true` and a decaying confidence, and a trail of the last points with their
//! times and pitch positions.
//!
//! What keeps it from being fooled: with a camera, candidates whose ground point is off the
//! pitch (crowd, boards, the scoreboard) are not balls, unless they continue a confirmed track
//! with the pitch not far below them in the picture (a ball in the air, published without a
//! pitch position); a new track is published only once a
//! second confident detection confirms it; weak detections extend a track seen in the previous
//! frame but do not pick a coasting one up again, nor keep a track alive on their own (without a
//! confident one for `evidence_frames` it is lost); a confident candidate elsewhere takes over
//! from a track that only weak detections follow.

use std::collections::VecDeque;

pub mod flight;

use crate::camera::BroadcastCamera;
use crate::detect::Detection;
use crate::kalman::PointKalman;
use crate::pitch::Calibration;
use crate::{BBox, Point};
use flight::{Flight, FlightConfig, Sighting};

/// No kicked ball is faster, m/s (the hardest shots measured reach about 58 m/s; a ball in the
/// air is read at its ground point, which runs ahead of it): a faster reading is a track or a
/// measurement hopping between candidates.
pub const MAX_BALL_MPS: f64 = 60.0;

/// Settings of the ball tracker.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallConfig {
    /// Candidates below this confidence are ignored.
    pub min_confidence: f32,
    /// A new track starts only from a candidate at or above this confidence.
    pub init_confidence: f32,
    /// While coasting, a candidate outside the gate at or above this confidence restarts the track
    /// there (the ball was kicked somewhere the filter did not expect).
    pub reacquire_confidence: f32,
    /// Gate radius with no miss, pixels, on top of `gate_sigmas` innovation sigmas.
    pub gate_px: f64,
    /// Added to the gate radius for every consecutive miss, pixels.
    pub gate_growth_px: f64,
    pub gate_sigmas: f64,
    /// Frames the ball may be extrapolated (`predicted`) before it is declared lost.
    pub max_coast_frames: u32,
    /// Of those, the first this many are published (`predicted: true`); later ones keep the
    /// track alive to be picked up again but publish no ball: past the first coasted frame the
    /// extrapolation is on the ball in fewer than one frame in seven (tuning seeds, BENCHMARKS.md
    /// "Session 25").
    pub published_coast_frames: u32,
    /// Confidence is multiplied by this for every coasted frame.
    pub confidence_decay: f64,
    /// Points kept in the trail.
    pub trail_len: usize,
    /// Confident detections (≥ `init_confidence`) a new track needs before it is published.
    pub confirm_hits: u32,
    /// A track with no confident detection for this many frames is lost, whatever weak
    /// candidates it still matches.
    pub evidence_frames: u32,
    /// With a camera: candidates whose ground point is farther than this outside the pitch
    /// (metres) are no ball on the ground (crowd, boards, the scoreboard — or a ball in the air,
    /// see `max_air_m`); a ball position there is published without a pitch position.
    pub pitch_margin_m: f64,
    /// With a camera: a candidate (at least `air_confidence`) whose ground point is off the
    /// pitch but with the pitch at most this many metres straight below it in the picture (at
    /// the camera's scale there) may be the ball in the air — a ball lofted over the far half
    /// projects through the ground homography tens of metres beyond the far touchline. It only
    /// continues a confirmed track (it never starts one, so the crowd stays no ball), and is
    /// published without a pitch position.
    pub max_air_m: f64,
    /// A ball in the air is small and blurred: the detector is less sure of it than of one on
    /// the grass (tuning seeds: most balls in the air the tracker lost had a detection of
    /// 0.10–0.25 at the right place). Such a candidate only continues a confirmed track.
    pub air_confidence: f32,
    /// With a camera: candidates whose box is wider than `max_size_m` on its shorter side, or
    /// longer than `max_length_m` on its longer side, in metres at the camera's scale across
    /// the picture at the box's foot, are not balls (the detector sometimes calls a player's
    /// legs or body "ball" with low confidence). A 0.22 m ball, the detector's margin around
    /// it, a ball in the air (nearer the camera than its ground point, so it looks larger for
    /// that scale) and a ball smeared by its speed fit within them. A box no larger than
    /// `min_box_px` (shorter side) and twice that (longer side) is never refused: detectors
    /// draw no smaller boxes, however far and small the ball (a wide view at low resolution).
    pub max_size_m: f64,
    pub max_length_m: f64,
    pub min_box_px: f64,
    /// With a camera: for `spot_memory_secs` after the ball was seen at `fast_mps` or more, a
    /// candidate within `spot_radius_m` of a painted spot (centre, penalty spots) is not a ball —
    /// a ball kicked into the air is missed by the detector and the white spot is the next best
    /// "ball" (a kick-off or a penalty, ball at rest on its spot, is unaffected). For as long
    /// after the ball was seen past a goal line (out, or in the net) neither penalty spot is:
    /// no restart is taken there then, and with the ball gone from view the camera still shows
    /// the goal area (without this rule the penalty spot was published as the ball for 1–10
    /// frames after goals on 7 of 15 seeds).
    pub spot_radius_m: f64,
    pub spot_memory_secs: f64,
    pub fast_mps: f64,
    /// Only a confirmed track's speed between `fast_mps` and this counts as a kick for the spot
    /// rule: faster is no ball but a track jumping between candidates (seed 35813: a new track
    /// hopping at 81–257 m/s in a goal's net kept the real ball on the centre spot refused for
    /// the whole 3 s before the kick-off).
    pub max_kick_mps: f64,
    /// ... and only when the ball's pitch position also moved at `fast_mps` or more on average
    /// over at least this long, detected all along (its trail): the filter's speed of a ball at rest jumps to
    /// 8–60 m/s for a frame or a few on a measurement that wobbles during a pan, and such
    /// readings kept the ball on the centre spot refused through most kick-off waits of the
    /// tuning seeds.
    pub kick_window_secs: f64,
    /// Measurement noise, px.
    pub sigma_measure_px: f64,
    /// Acceleration noise, px/s².
    pub sigma_accel_px_s2: f64,
    /// Speed uncertainty of a new track, px/s.
    pub sigma_initial_speed_px_s: f64,
    /// With a physical camera: when the ball's recent sightings show a flight
    /// ([`flight::Flight`]), its position is the point under it, not its ground point.
    pub flight: FlightConfig,
    /// With a camera, before a flight shows: a ball whose ground point moves faster than this,
    /// m/s, is published without a pitch position — a ball rising into the air, whose ground
    /// point runs away from the camera (a lofted kick's at 40–80 m/s), not one on the grass
    /// (passes along the grass stay under 25 m/s). Tuning seeds (BENCHMARKS.md): at 30 m/s
    /// shots were lost to it (a shot's ground point is fast too), at 40 they were not.
    pub max_ground_mps: f64,
}

impl Default for BallConfig {
    fn default() -> Self {
        Self {
            min_confidence: 0.05,
            init_confidence: 0.25,
            reacquire_confidence: 0.6,
            gate_px: 25.0,
            gate_growth_px: 15.0,
            gate_sigmas: 4.0,
            max_coast_frames: 10,
            published_coast_frames: 1,
            confidence_decay: 0.85,
            trail_len: 30,
            confirm_hits: 2,
            evidence_frames: 25,
            pitch_margin_m: 3.0,
            max_air_m: 30.0,
            air_confidence: 0.1,
            max_size_m: 0.5,
            max_length_m: 1.0,
            min_box_px: 6.0,
            spot_radius_m: 0.8,
            spot_memory_secs: 3.0,
            fast_mps: 8.0,
            max_kick_mps: MAX_BALL_MPS,
            kick_window_secs: 0.2,
            sigma_measure_px: 2.0,
            sigma_accel_px_s2: 3000.0,
            sigma_initial_speed_px_s: 600.0,
            flight: FlightConfig::default(),
            max_ground_mps: 40.0,
        }
    }
}

/// One point of the trail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrailSample {
    /// Video time, seconds.
    pub t: f64,
    pub pixel: Point,
    /// The published position (see [`BallState::pitch`]).
    pub pitch: Option<Point>,
    /// The ground point through the camera whatever the flight says: what the kick rule
    /// measures the ball's speed on.
    pub ground: Option<Point>,
    pub predicted: bool,
}

/// The ball in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallState {
    pub track_id: u64,
    /// Pixels: the detection's box, or the last size around the predicted centre.
    pub bbox: BBox,
    /// Centre, pixels.
    pub pixel: Point,
    /// Ground point (bottom of the box) in metres, when calibrated; for a ball in the air
    /// whose flight is known, the point under it, and none while the flight shows but does
    /// not yet pin the ball down (`FlightConfig::max_spread_m`).
    pub pitch: Option<Point>,
    /// Height of the ball's underside above the grass, metres, while its flight is known
    /// (`None` on the grass, or unknown).
    pub height_m: Option<f64>,
    /// 0..1, decaying while predicted.
    pub confidence: f64,
    pub velocity_px_s: (f64, f64),
    pub speed_px_s: f64,
    /// Ground velocity on the pitch, m/s (through the camera at the ground point; `None`
    /// without one). A ball in the air whose flight is known: its horizontal velocity; one
    /// whose flight is not yet known is treated as on the ground.
    pub velocity_mps: Option<(f64, f64)>,
    pub speed_mps: Option<f64>,
    /// Extrapolated: no detection this frame.
    pub predicted: bool,
}

/// What one step produced.
#[derive(Debug, Clone, PartialEq)]
pub struct BallStep {
    pub ball: Option<BallState>,
    /// The track was given up this frame (coasted too long): the `ball_lost` moment.
    pub lost: bool,
}

#[derive(Debug, Clone)]
struct Active {
    track_id: u64,
    kalman: PointKalman,
    size: (f64, f64),
    confidence: f64,
    misses: u32,
    /// Confident detections so far (the track is published from `confirm_hits` on).
    hits: u32,
    /// Frames since the last confident detection.
    since_confident: u32,
    /// The centre of this frame's detection (`None` while coasting): the flight is fitted to
    /// what was seen, not to the filter's smoothed position.
    seen_at: Option<Point>,
}

/// The single-ball tracker.
#[derive(Debug, Clone)]
pub struct BallTracker {
    cfg: BallConfig,
    active: Option<Active>,
    last_t: Option<f64>,
    next_id: u64,
    trail: VecDeque<TrailSample>,
    /// When the ball was last seen moving at `fast_mps` or more.
    last_fast: Option<f64>,
    /// When the ball was last seen past a goal line (out, or in a goal's net).
    last_past_goal_line: Option<f64>,
    /// The track's recent sightings through the camera, for its flight.
    flight: Flight,
}

/// The painted spots (centre, penalty spots) a white speck on the pitch is most often taken
/// for the ball at: the centre spot first ([`CENTRE`]), then the penalty spots.
const SPOTS: [Point; 3] = [
    Point::new(crate::pitch::LENGTH_M / 2.0, crate::pitch::WIDTH_M / 2.0),
    Point::new(crate::pitch::SPOT_M, crate::pitch::WIDTH_M / 2.0),
    Point::new(
        crate::pitch::LENGTH_M - crate::pitch::SPOT_M,
        crate::pitch::WIDTH_M / 2.0,
    ),
];

/// The centre spot's index in [`SPOTS`].
const CENTRE: usize = 0;

/// For an image point whose ground point is off the pitch: the camera's scale (metres per
/// pixel) at the first point straight below it in the picture that is on the pitch (within
/// `margin_m`), if that point is at most `max_height_m` below it at that scale — where a ball in
/// the air above the pitch would be seen; `None` otherwise.
fn pitch_below(c: &Calibration, image: Point, margin_m: f64, max_height_m: f64) -> Option<f64> {
    const STEP_PX: f64 = 4.0;
    // the scale shrinks towards the camera; no broadcast view is finer than 0.01 m/px on the
    // pitch, so farther below than this is higher than `max_height_m` anyway
    let max_px = max_height_m / 0.01;
    let mut below = STEP_PX;
    while below <= max_px {
        if let Some((p, metres_per_px)) = c.ground_and_scale(Point::new(image.x, image.y + below))
            && crate::pitch::is_inside(p, margin_m)
        {
            return (below * metres_per_px <= max_height_m).then_some(metres_per_px);
        }
        below += STEP_PX;
    }
    None
}

impl BallTracker {
    #[must_use]
    pub fn new(cfg: BallConfig) -> Self {
        Self {
            cfg,
            active: None,
            last_t: None,
            next_id: 1,
            trail: VecDeque::with_capacity(cfg.trail_len),
            last_fast: None,
            last_past_goal_line: None,
            flight: Flight::new(cfg.flight),
        }
    }

    /// The recent path, oldest first.
    #[must_use]
    pub const fn trail(&self) -> &VecDeque<TrailSample> {
        &self.trail
    }

    /// The gate radius for the next frame, pixels (`None` without a track).
    #[must_use]
    pub fn gate_radius_px(&self) -> Option<f64> {
        self.active.as_ref().map(|a| self.gate_for(a))
    }

    fn gate_for(&self, a: &Active) -> f64 {
        self.cfg.gate_px
            + self.cfg.gate_growth_px * f64::from(a.misses)
            + self.cfg.gate_sigmas * a.kalman.innovation_sigma()
    }

    /// Moves the track and its trail with the picture before the next
    /// [`update`](Self::update) (`h`: previous pixels → coming frame's pixels), so that a pan is
    /// not read as the ball's velocity.
    pub fn compensate(&mut self, h: &crate::pitch::Homography) {
        if let Some(a) = self.active.as_mut() {
            a.kalman.warp(h);
        }
        for s in &mut self.trail {
            if let Some(q) = h.apply(s.pixel) {
                s.pixel = q;
            }
        }
    }

    /// One frame at video time `t_secs`: ball candidates in (pixels), the ball out.
    pub fn update(
        &mut self,
        t_secs: f64,
        candidates: &[Detection],
        calibration: Option<&Calibration>,
    ) -> BallStep {
        self.update_seen_by(t_secs, candidates, calibration, None)
    }

    /// [`Self::update`] with the frame's physical camera (the one `calibration` comes from),
    /// through which a ball in the air is placed under itself once its flight shows.
    pub fn update_seen_by(
        &mut self,
        t_secs: f64,
        candidates: &[Detection],
        calibration: Option<&Calibration>,
        camera: Option<&BroadcastCamera>,
    ) -> BallStep {
        let camera = camera.filter(|_| calibration.is_some());
        if camera.is_none() {
            // no camera this frame (a cut, a close-up): a flight is not followed across it
            self.flight.clear();
        }
        let dt = self.last_t.map_or(0.0, |last| (t_secs - last).max(0.0));
        self.last_t = Some(t_secs);
        let cfg = self.cfg;
        let recent = |at: Option<f64>| at.is_some_and(|t0| t_secs - t0 <= cfg.spot_memory_secs);
        let in_flight = recent(self.last_fast);
        // after a ball out over a goal line (or a goal) play restarts from the goal area, the
        // corner or the centre spot, never from a penalty spot
        let after_goal_line = recent(self.last_past_goal_line);
        // a ball in the air only continues a confirmed track: without one, no candidate off the
        // pitch is looked at as one
        let following = self
            .active
            .as_ref()
            .is_some_and(|a| a.hits >= cfg.confirm_hits);
        // with a camera, where the candidate stands and how large it is: on the pitch (`Some(false)`),
        // in the air above it (`Some(true)`), or no ball — off the pitch, on a painted spot just
        // after a kick, or the size of a person
        let place = |d: &Detection| -> Option<bool> {
            let Some(c) = calibration else {
                return Some(false);
            };
            let (w, h) = (f64::from(d.bbox.width()), f64::from(d.bbox.height()));
            let fits = |metres_per_px: f64| {
                let px_per_m = 1.0 / metres_per_px;
                w.min(h) <= (cfg.max_size_m * px_per_m).max(cfg.min_box_px)
                    && w.max(h) <= (cfg.max_length_m * px_per_m).max(2.0 * cfg.min_box_px)
            };
            match c.foot_and_scale(&d.bbox) {
                Some((p, metres_per_px)) if crate::pitch::is_inside(p, cfg.pitch_margin_m) => {
                    let spot = SPOTS
                        .iter()
                        .position(|s| p.distance(s) <= cfg.spot_radius_m);
                    let painted =
                        spot.is_some_and(|i| in_flight || (after_goal_line && i != CENTRE));
                    (fits(metres_per_px) && !painted).then_some(false)
                }
                _ if following && d.confidence >= cfg.air_confidence => {
                    let (x, y) = d.bbox.foot();
                    let foot = Point::new(f64::from(x), f64::from(y));
                    pitch_below(c, foot, cfg.pitch_margin_m, cfg.max_air_m)
                        .is_some_and(fits)
                        .then_some(true)
                }
                _ => None,
            }
        };
        let usable: Vec<(&Detection, bool)> = candidates
            .iter()
            .filter(|d| {
                d.confidence >= cfg.min_confidence && d.bbox.is_valid() && d.confidence.is_finite()
            })
            .filter_map(|d| place(d).map(|in_air| (d, in_air)))
            .collect();
        // only a ball on the pitch starts a track
        let strongest = usable
            .iter()
            .filter(|(_, in_air)| !in_air)
            .map(|(d, _)| *d)
            .max_by(|a, b| a.confidence.total_cmp(&b.confidence));
        let mut lost = false;
        if let Some(mut a) = self.active.take() {
            if dt > 0.0 {
                a.kalman.predict(dt);
            }
            let gate = self.gate_for(&a);
            let (px, py) = a.kalman.position();
            let confirmed = a.hits >= cfg.confirm_hits;
            let near = usable
                .iter()
                .map(|(d, _)| {
                    let (cx, cy) = d.bbox.centre();
                    (d, (f64::from(cx) - px).hypot(f64::from(cy) - py))
                })
                .filter(|(_, dist)| *dist <= gate)
                // after a miss only a confident candidate picks the track up again: weak ones
                // within the widened gate are as often a sock or a line as the ball
                .filter(|(d, _)| a.misses == 0 || d.confidence >= cfg.init_confidence)
                .max_by(|(d1, e1), (d2, e2)| {
                    let s1 = f64::from(d1.confidence) - 0.5 * e1 / gate;
                    let s2 = f64::from(d2.confidence) - 0.5 * e2 / gate;
                    s1.total_cmp(&s2)
                })
                .map(|(d, _)| *d);
            // a confident candidate elsewhere beats a miss or a weak match
            let weak = near.is_none_or(|d| d.confidence < cfg.init_confidence);
            if let Some(d) = strongest.filter(|d| {
                d.confidence >= cfg.reacquire_confidence
                    && weak
                    && (a.misses >= 1 || near.is_some())
            }) {
                self.start(d);
                return BallStep {
                    lost: confirmed,
                    ..self.emit(t_secs, false, calibration, camera)
                };
            }
            if let Some(d) = near {
                let (cx, cy) = d.bbox.centre();
                a.kalman.update(f64::from(cx), f64::from(cy));
                a.size = (f64::from(d.bbox.width()), f64::from(d.bbox.height()));
                a.confidence = f64::from(d.confidence);
                a.misses = 0;
                a.seen_at = Some(Point::new(f64::from(cx), f64::from(cy)));
                if d.confidence >= cfg.init_confidence {
                    a.hits += 1;
                    a.since_confident = 0;
                } else {
                    a.since_confident += 1;
                }
                if a.since_confident <= cfg.evidence_frames {
                    self.active = Some(a);
                    return self.emit(t_secs, false, calibration, camera);
                }
            } else {
                a.misses += 1;
                a.seen_at = None;
                a.since_confident += 1;
                a.confidence *= cfg.confidence_decay;
                // a track not yet confirmed gets no second chance
                if a.hits >= cfg.confirm_hits
                    && a.misses <= cfg.max_coast_frames
                    && a.since_confident <= cfg.evidence_frames
                {
                    self.active = Some(a);
                    return self.emit(t_secs, true, calibration, camera);
                }
            }
            lost = a.hits >= cfg.confirm_hits;
            self.trail.clear();
        }
        match strongest.filter(|d| d.confidence >= cfg.init_confidence) {
            Some(d) => {
                self.start(d);
                BallStep {
                    lost,
                    ..self.emit(t_secs, false, calibration, camera)
                }
            }
            None => BallStep { ball: None, lost },
        }
    }

    fn start(&mut self, d: &Detection) {
        let (cx, cy) = d.bbox.centre();
        let kalman = PointKalman::new(
            f64::from(cx),
            f64::from(cy),
            self.cfg.sigma_measure_px,
            self.cfg.sigma_initial_speed_px_s,
            self.cfg.sigma_accel_px_s2,
        );
        self.active = Some(Active {
            track_id: self.next_id,
            kalman,
            size: (f64::from(d.bbox.width()), f64::from(d.bbox.height())),
            confidence: f64::from(d.confidence),
            misses: 0,
            hits: 1,
            since_confident: 0,
            seen_at: Some(Point::new(f64::from(cx), f64::from(cy))),
        });
        self.next_id += 1;
        self.trail.clear();
        self.flight.clear();
    }

    /// The ball's mean ground speed, m/s, over the last `kick_window_secs` or a little more up
    /// to `pitch` at `t`, if the ball was detected all along (no extrapolated point and no gap
    /// over half the window: a track picked up again after coasting jumped, it did not move)
    /// and on the field of play at both ends (a ball past a line is out of play and nobody
    /// kicks it there: a track moving fast in a goal's net is hopping between the net's
    /// knots — seed 88093: one at 16–60 m/s after a goal kept the ball on the centre spot
    /// refused for the 2 s before the kick-off); `None` for a track followed for less than
    /// that, or without pitch positions.
    fn mean_speed_mps(&self, t: f64, pitch: Option<Point>) -> Option<f64> {
        let in_play = |p: Point| crate::pitch::is_inside(p, 0.0);
        let window = self.cfg.kick_window_secs;
        let mut later = t;
        for s in self.trail.iter().rev() {
            if s.predicted || later - s.t > window / 2.0 {
                return None;
            }
            if t - s.t >= window {
                let (from, to) = (s.ground?, pitch?);
                return (in_play(from) && in_play(to)).then(|| from.distance(&to) / (t - s.t));
            }
            later = s.t;
        }
        None
    }

    fn emit(
        &mut self,
        t: f64,
        predicted: bool,
        calibration: Option<&Calibration>,
        camera: Option<&BroadcastCamera>,
    ) -> BallStep {
        let a = self.active.as_ref().expect("emit follows an active track");
        if let (Some(cam), Some(seen)) = (camera, a.seen_at) {
            self.flight.push(Sighting {
                t,
                origin: cam.position,
                dir: cam.ray(seen),
                focal_px: cam.focal_px,
            });
        }
        // a ball in the air whose flight shows: the point under it (while coasting, the
        // flight's path has it there too) once the flight pins it down; before, no place
        let airborne = camera.and_then(|_| self.flight.airborne()).map(|f| {
            let p = f.trajectory.position(t);
            let v = f.trajectory.velocity(t);
            (f.spread_m <= self.cfg.flight.max_spread_m).then(|| {
                (
                    Point::new(p[0], p[1]),
                    p[2] - flight::BALL_RADIUS_M,
                    (v[0], v[1]),
                )
            })
        });
        let (x, y) = a.kalman.position();
        let (w, h) = a.size;
        // pixels fit f32
        let bbox = BBox::from_cxcywh(x as f32, y as f32, w as f32, h as f32);
        let ground = Point::new(x, y + h / 2.0);
        let (vx, vy) = a.kalman.velocity();
        // a ground point off the pitch is a ball in the air (or one just gone out): no position
        let on_pitch = calibration
            .and_then(|c| c.pitch_from_image.apply_with_jacobian(ground))
            .filter(|(p, _)| crate::pitch::is_inside(*p, self.cfg.pitch_margin_m));
        let ground_pitch = on_pitch.map(|(p, _)| p);
        let ground_velocity =
            on_pitch.map(|(_, j)| (j[0][0] * vx + j[0][1] * vy, j[1][0] * vx + j[1][1] * vy));
        let ground_speed = ground_velocity.map(|(x, y)| x.hypot(y));
        let (pitch, velocity_mps, height_m) = match airborne {
            Some(None) => (None, None, None),
            Some(Some((under, height, v))) => (
                crate::pitch::is_inside(under, self.cfg.pitch_margin_m).then_some(under),
                Some(v),
                Some(height),
            ),
            // a ground point outrunning any ball on the grass: a ball rising into the air
            // before its flight shows, at an unknown place
            None if ground_speed.is_some_and(|v| v > self.cfg.max_ground_mps) => (None, None, None),
            None => (ground_pitch, ground_velocity, None),
        };
        let state = BallState {
            track_id: a.track_id,
            bbox,
            pixel: Point::new(x, y),
            pitch,
            height_m,
            confidence: a.confidence.clamp(0.0, 1.0),
            velocity_px_s: (vx, vy),
            speed_px_s: vx.hypot(vy),
            velocity_mps,
            speed_mps: velocity_mps.map(|(x, y)| x.hypot(y)),
            predicted,
        };
        let cfg = &self.cfg;
        // what the spot rules remember, from a confirmed ball seen this frame, read at its
        // ground point as they were tuned
        if !predicted && a.hits >= cfg.confirm_hits {
            if ground_pitch.is_some_and(|p| !(0.0..=crate::pitch::LENGTH_M).contains(&p.x)) {
                self.last_past_goal_line = Some(t);
            }
            let kick = cfg.fast_mps..=cfg.max_kick_mps;
            if ground_speed.is_some_and(|v| kick.contains(&v))
                && self
                    .mean_speed_mps(t, ground_pitch)
                    .is_some_and(|v| kick.contains(&v))
            {
                self.last_fast = Some(t);
            }
        }
        if a.hits < self.cfg.confirm_hits
            || (predicted && a.misses > self.cfg.published_coast_frames)
        {
            // not confirmed yet, or coasting for long: nothing published, nothing in the trail
            return BallStep {
                ball: None,
                lost: false,
            };
        }
        if self.trail.len() == self.cfg.trail_len {
            self.trail.pop_front();
        }
        self.trail.push_back(TrailSample {
            t,
            pixel: state.pixel,
            pitch,
            ground: ground_pitch,
            predicted,
        });
        BallStep {
            ball: Some(state),
            lost: false,
        }
    }
}

#[cfg(test)]
mod tests;
