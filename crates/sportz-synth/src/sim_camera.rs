//! The broadcast cameras and the director who cuts between them, stepped with the match at 50 Hz
//! (so shots, like play, depend on the seed only).
//!
//! - The **main camera** stands at a seeded fixed spot drawn from the World Cup 2014 broadcast
//!   cameras ([`wc14`]) and pans and zooms after play (`Sim::update_rig`); its field of view is
//!   kept inside the WC14 focal range.
//! - Every 10–25 s of main camera the director cuts away, then back: to an **alternate** camera
//!   for 2–5 s (high on the near side at the penalty-box line nearer the ball, or high behind a
//!   goal; a wide pinhole shot of the ground around the ball, pitch lines in view), or to a
//!   **close-up** for 1.5–3 s of the player on (or nearest to) the ball (3–6° field of view from
//!   the main gantry: the player and grass, too little of the lines to calibrate from). The main
//!   camera keeps following play meanwhile, so the cut back lands where play is.
//!
//! The director draws from its own generator, so the match is the same with or without cuts
//! (`SynthConfig::cuts` only decides which camera renders).

use sportz_contract::{PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, PitchPoint, TeamSide};

use super::{DT, Rig, Sim};
use crate::geom::{Camera, V2, V3, v2, v3};
use crate::rng::Rng;
use crate::truth::Shot;

/// Broadcast camera statistics of the World Cup 2014 calibration set (SCCvSD, lood339; BSD-2;
/// `shared/assets/gt/wc14/wc14_camera_stats.mat`, read with scipy): camera centres in metres in a
/// pitch frame whose near touchline is y = 0 with the cameras at negative y, and focal lengths
/// in pixels of 1280×720 frames.
pub(crate) mod wc14 {
    pub(crate) const CENTRE_MEAN: [f64; 3] = [52.3662, -45.1565, 16.8216];
    pub(crate) const CENTRE_STD: [f64; 3] = [2.2319, 9.3826, 2.9488];
    pub(crate) const CENTRE_MIN: [f64; 3] = [45.0568, -66.0702, 10.1387];
    pub(crate) const CENTRE_MAX: [f64; 3] = [60.8456, -16.7418, 23.0113];
    pub(crate) const FOCAL_MIN_PX: f64 = 1463.1647;
    pub(crate) const FOCAL_MAX_PX: f64 = 5696.9845;
    /// The frame width the focal lengths are for.
    pub(crate) const WIDTH_PX: f64 = 1280.0;
}

/// A WC14 camera centre `[x, y, z]` in the synth's frame: the cameras stand on the y = 68 side
/// here, so y is mirrored (`68 − y`); x and z are as in WC14.
pub(crate) fn from_wc14(c: [f64; 3]) -> V3 {
    v3(c[0], W - c[1], c[2])
}

/// The horizontal field of view, degrees, of a focal length in WC14 pixels (1280-wide frames).
/// At any other width the focal length scales with the width, so the angle is the same.
fn fov_of_focal(focal_px: f64) -> f64 {
    2.0 * (wc14::WIDTH_PX / 2.0 / focal_px).atan().to_degrees()
}

/// The narrowest main-camera field of view, degrees (the longest WC14 focal length).
pub(crate) fn fov_min_deg() -> f64 {
    fov_of_focal(wc14::FOCAL_MAX_PX)
}

/// The widest main-camera field of view, degrees (the shortest WC14 focal length).
pub(crate) fn fov_max_deg() -> f64 {
    fov_of_focal(wc14::FOCAL_MIN_PX)
}

/// Seconds of main camera between cutaways.
pub(crate) const MAIN_SECS: (f64, f64) = (10.0, 25.0);
/// Seconds of an alternate shot.
pub(crate) const ALTERNATE_SECS: (f64, f64) = (2.0, 5.0);
/// Seconds of a close-up.
pub(crate) const CLOSE_UP_SECS: (f64, f64) = (1.5, 3.0);
/// Field of view of a close-up, degrees.
pub(crate) const CLOSE_UP_FOV_DEG: (f64, f64) = (3.0, 6.0);
/// Share of cutaways that are close-ups (the rest are alternate angles).
const CLOSE_UP_SHARE: f64 = 0.4;

/// The camera of a cutaway: a fixed spot, aiming at `aim_h` metres above a ground point that
/// follows the ball (alternate) or one person (close-up).
#[derive(Debug, Clone)]
pub(crate) struct Cutaway {
    pub pos: V3,
    pub rig: Rig,
    pub aim_h: f64,
    /// The person a close-up follows (index into `Sim::people`); `None`: the ball.
    pub person: Option<usize>,
    /// View width at the target of an alternate shot, metres (it zooms to keep it).
    view_m: f64,
}

/// Which camera is on air, and when the director cuts next.
#[derive(Debug, Clone)]
pub(crate) struct Director {
    rng: Rng,
    pub shot: Shot,
    /// Counts the cuts so far: a frame whose index differs from the previous frame's is a cut.
    pub index: u64,
    /// Match time at which the current shot ends, seconds.
    until: f64,
    /// The camera of the current shot when it is not the main camera.
    pub cutaway: Option<Cutaway>,
}

impl Director {
    pub(crate) fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed ^ 0xD12E_C708);
        let until = rng.range(MAIN_SECS.0, MAIN_SECS.1);
        Self {
            rng,
            shot: Shot::Main,
            index: 0,
            until,
            cutaway: None,
        }
    }
}

/// The horizontal field of view, degrees, that shows `view_m` metres across at `dist` metres.
fn fov_for(view_m: f64, dist: f64) -> f64 {
    2.0 * (view_m / 2.0 / dist.max(1.0)).atan().to_degrees()
}

fn ground(p: V2) -> V3 {
    v3(p.x, p.y, 0.0)
}

fn dist3(a: V3, b: V3) -> f64 {
    (a - b).dot(a - b).sqrt()
}

impl Sim {
    /// The main camera's fixed spot: uniform over the central band of the WC14 cameras (mean ±
    /// one standard deviation on each axis, which lies inside their observed range), mirrored to
    /// the y = 68 side. Three draws from the match generator, as the spot always took.
    pub(super) fn draw_camera_pos(&mut self) -> V3 {
        let mut c = [0.0; 3];
        for (k, v) in c.iter_mut().enumerate() {
            let (m, s) = (wc14::CENTRE_MEAN[k], wc14::CENTRE_STD[k]);
            *v = self
                .rng
                .range(m - s, m + s)
                .clamp(wc14::CENTRE_MIN[k], wc14::CENTRE_MAX[k]);
        }
        from_wc14(c)
    }

    /// One director step: cut when the shot is over, and move the cutaway camera.
    pub(super) fn update_director(&mut self) {
        let t = self.time();
        if t >= self.director.until {
            if self.director.cutaway.is_some() {
                self.cut_to_main(t);
            } else {
                self.cut_away(t);
            }
        }
        let Some(c) = &self.director.cutaway else {
            return;
        };
        let (want, w) = match c.person {
            Some(i) => (self.people[i].pos, 6.0),
            None => (self.ball.pos + self.ball.vel * 0.3, 2.0),
        };
        let (pos, view_m, person) = (c.pos, c.view_m, c.person);
        let target = {
            let c = self.director.cutaway.as_mut().expect("checked above");
            c.rig.follow(want, w);
            c.rig.target
        };
        if person.is_none() {
            let fov =
                fov_for(view_m, dist3(pos, ground(target))).clamp(fov_min_deg(), fov_max_deg());
            let c = self.director.cutaway.as_mut().expect("checked above");
            c.rig.fov_deg += (fov - c.rig.fov_deg) * (0.8 * DT);
        }
    }

    fn cut_to_main(&mut self, t: f64) {
        let d = &mut self.director;
        d.cutaway = None;
        d.shot = Shot::Main;
        d.index += 1;
        d.until = t + d.rng.range(MAIN_SECS.0, MAIN_SECS.1);
    }

    fn cut_away(&mut self, t: f64) {
        let close_up = self.director.rng.chance(CLOSE_UP_SHARE);
        let cutaway = if close_up {
            self.close_up()
        } else {
            self.alternate()
        };
        let d = &mut self.director;
        let secs = if close_up {
            CLOSE_UP_SECS
        } else {
            ALTERNATE_SECS
        };
        d.until = t + d.rng.range(secs.0, secs.1);
        d.shot = if close_up {
            Shot::CloseUp
        } else {
            Shot::Alternate
        };
        d.index += 1;
        d.cutaway = Some(cutaway);
    }

    /// The player on the ball, else the player (not the referee) nearest to it.
    fn player_near_ball(&self) -> usize {
        if let Some(i) = self.ball.owner
            && self.people[i].team != TeamSide::Other
        {
            return i;
        }
        let b = self.ball.pos;
        (0..self.people.len())
            .filter(|&i| self.people[i].team != TeamSide::Other)
            .min_by(|&a, &c| {
                self.people[a]
                    .pos
                    .dist(b)
                    .total_cmp(&self.people[c].pos.dist(b))
            })
            .expect("there are players")
    }

    /// A tight camera on the main gantry, a few metres along from the main camera.
    fn close_up(&mut self) -> Cutaway {
        let i = self.player_near_ball();
        let r = &mut self.director.rng;
        let side = if r.chance(0.5) { 1.0 } else { -1.0 };
        let pos = self.camera_pos + v3(side * r.range(4.0, 12.0), 0.0, -r.range(0.0, 2.0));
        let fov_deg = r.range(CLOSE_UP_FOV_DEG.0, CLOSE_UP_FOV_DEG.1);
        let p = &self.people[i];
        Cutaway {
            pos,
            rig: Rig {
                target: p.pos,
                vel: p.vel,
                fov_deg,
            },
            aim_h: 0.55 * p.height_m,
            person: Some(i),
            view_m: 0.0,
        }
    }

    /// A second angle on the ball: high on the near side at the penalty-box line nearer the
    /// ball, or high behind the goal nearer the ball (when the ball is in that third, half the
    /// time).
    fn alternate(&mut self) -> Cutaway {
        let b = self.ball.pos;
        let left = b.x < L / 2.0;
        let r = &mut self.director.rng;
        let in_third = b.x < 35.0 || b.x > L - 35.0;
        let pos = if in_third && r.chance(0.5) {
            let back = r.range(18.0, 30.0);
            v3(
                if left { -back } else { L + back },
                W / 2.0 + r.range(-6.0, 6.0),
                r.range(10.0, 18.0),
            )
        } else {
            v3(
                if left { 16.5 } else { L - 16.5 },
                W + r.range(18.0, 30.0),
                r.range(20.0, 30.0),
            )
        };
        let view_m = r.range(30.0, 42.0);
        let target = b + self.ball.vel * 0.3;
        let fov_deg =
            fov_for(view_m, dist3(pos, ground(target))).clamp(fov_min_deg(), fov_max_deg());
        Cutaway {
            pos,
            rig: Rig {
                target,
                vel: v2(0.0, 0.0),
                fov_deg,
            },
            aim_h: 0.0,
            person: None,
            view_m,
        }
    }
}

/// The camera on air: the main camera, or with `cuts` the director's cutaway when there is one.
pub(crate) fn camera_of(sim: &Sim, width: u32, height: u32, cuts: bool) -> Camera {
    let (pos, rig, aim_h) = match &sim.director.cutaway {
        Some(c) if cuts => (c.pos, &c.rig, c.aim_h),
        _ => (sim.camera_pos, &sim.rig, 0.0),
    };
    let t = rig.target;
    Camera::look_at(
        pos,
        v3(t.x, t.y, aim_h),
        rig.fov_deg.to_radians(),
        width,
        height,
    )
}

/// Where the optical axis meets the ground (the ground point at the image centre).
pub(crate) fn ground_at_centre(cam: &Camera) -> PitchPoint {
    let k = -cam.pos.z / cam.fwd.z.min(-1e-9);
    PitchPoint {
        x: cam.pos.x + cam.fwd.x * k,
        y: cam.pos.y + cam.fwd.y * k,
    }
}
