//! The match engine: 22 players, a referee and a ball, stepped at a fixed 50 Hz so that the
//! match is the same whatever the frame rate or resolution.
//!
//! Play is open (dribbles, passes, tackles, interceptions, shots, keeper saves) with a director
//! on top: in every minute of match time, if no ball has gone out by a seeded deadline (12–18 s
//! into the minute) the next player on the ball clears it over the touchline, and if no goal has
//! been scored by a second deadline (24–30 s) the team on the ball attacks untouched and scores.
//! That guarantees at least one `ball_out` and one `goal` per minute while keeping play plausible.

use sportz_contract::{EventKind, ObjectClass, PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, TeamSide};

use crate::geom::{V2, V3, v2, v3};
use crate::rng::Rng;

// The engine's parts live in sibling files (`sim_*.rs`, not a `sim/` folder) so that the purity
// test, which reads `src/*.rs`, checks them too.
#[path = "sim_ball.rs"]
mod ball;
#[path = "sim_camera.rs"]
pub(crate) mod camera;
#[path = "sim_motion.rs"]
mod motion;
#[path = "sim_play.rs"]
mod play;
#[path = "sim_restarts.rs"]
mod restarts;

/// Simulation step, seconds.
pub(crate) const DT: f64 = 0.02;
/// Steps per second.
pub(crate) const HZ: f64 = 50.0;
pub(crate) const GOAL_HALF_M: f64 = 3.66;
pub(crate) const CROSSBAR_M: f64 = 2.44;
pub(crate) const BALL_R: f64 = 0.11;
const G: f64 = 9.81;

#[derive(Debug, Clone)]
pub(crate) struct Person {
    pub id: u32,
    pub team: TeamSide,
    pub role: ObjectClass,
    pub number: u8,
    /// Formation slot as if attacking towards x = 105.
    slot: V2,
    pub pos: V2,
    pub vel: V2,
    /// Running cycle phase, radians.
    pub stride: f64,
    pub height_m: f64,
    pub skin: u8,
    wander: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Guard {
    None,
    /// A scripted kick: nobody may touch the ball until it crosses a line.
    Nobody,
    /// Only this team may take the ball.
    Team(TeamSide),
}

#[derive(Debug, Clone)]
pub(crate) struct Ball {
    pub pos: V2,
    /// Height of the ball's lowest point above the ground, metres.
    pub h: f64,
    pub vel: V2,
    pub vz: f64,
    pub owner: Option<usize>,
    pub in_play: bool,
    last_touch: Option<usize>,
    guard: Guard,
    kicker_block: (usize, f64),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Restart {
    Kickoff,
    ThrowIn,
    GoalKick,
    Corner,
}

impl Restart {
    fn name(self) -> &'static str {
        match self {
            Self::Kickoff => "kickoff",
            Self::ThrowIn => "throw_in",
            Self::GoalKick => "goal_kick",
            Self::Corner => "corner_kick",
        }
    }
}

#[derive(Debug, Clone)]
enum Phase {
    Live,
    Dead {
        kind: Restart,
        spot: V2,
        team: TeamSide,
        taker: usize,
        place_at: f64,
        ready_at: f64,
        placed: bool,
    },
}

/// An event as the engine saw it (time in seconds; the frame is assigned by the caller).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RawEvent {
    pub kind: EventKind,
    pub time: f64,
    pub at: V2,
    pub team: Option<TeamSide>,
    pub player: Option<u32>,
    pub target: Option<u32>,
    pub speed: Option<f64>,
    pub detail: Option<&'static str>,
}

/// A camera operator: pans (target point) and zooms (field of view) smoothly after play.
#[derive(Debug, Clone)]
pub(crate) struct Rig {
    pub target: V2,
    vel: V2,
    pub fov_deg: f64,
}

impl Rig {
    /// One step of a critically damped pan towards `want` (natural frequency `w`, rad/s).
    fn follow(&mut self, want: V2, w: f64) {
        let acc = (want - self.target) * (w * w) - self.vel * (2.0 * w);
        self.vel = self.vel + acc * DT;
        self.target = self.target + self.vel * DT;
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Sim {
    pub steps: u64,
    rng: Rng,
    pub people: Vec<Person>,
    pub ball: Ball,
    phase: Phase,
    pub score: [u32; 2],
    pub events: Vec<RawEvent>,
    /// The team that last had the ball under control (kept through passes and stoppages).
    pub possession: Option<TeamSide>,
    /// The main camera's operator.
    pub rig: Rig,
    /// The main camera's fixed position (seeded from the World Cup 2014 cameras, see
    /// `camera::wc14`): near the halfway line, 36–55 m behind the near touchline, 14–20 m up.
    pub camera_pos: V3,
    /// Which camera is on air, and the cutaway camera when it is not the main one.
    pub director: camera::Director,
    minute: i64,
    out_done: bool,
    goal_done: bool,
    out_deadline: f64,
    goal_deadline: f64,
    decision_at: f64,
    dribble_target: V2,
    receiver: Option<(usize, V2)>,
    last_change: f64,
}

const HOME_SLOTS: [(f64, f64); 11] = [
    (4.0, 34.0),
    (20.0, 8.0),
    (17.0, 25.0),
    (17.0, 43.0),
    (20.0, 60.0),
    (36.0, 10.0),
    (33.0, 27.0),
    (33.0, 41.0),
    (36.0, 58.0),
    (48.0, 26.0),
    (49.0, 42.0),
];

pub(crate) fn dir(team: TeamSide) -> f64 {
    if team == TeamSide::Away { -1.0 } else { 1.0 }
}

fn other(team: TeamSide) -> TeamSide {
    if team == TeamSide::Home {
        TeamSide::Away
    } else {
        TeamSide::Home
    }
}

fn team_index(team: TeamSide) -> usize {
    usize::from(team == TeamSide::Away)
}

/// The goal a team attacks.
fn attacked_goal(team: TeamSide) -> V2 {
    v2(if dir(team) > 0.0 { L } else { 0.0 }, W / 2.0)
}

/// Horizontal and vertical launch speeds of a lofted ball that lands about `d` metres away,
/// kept between 10 and 25 m/s in total.
fn lofted_speed(d: f64, base_secs: f64) -> (f64, f64) {
    let tf = base_secs + d / 30.0;
    let vz = G * tf / 2.0;
    let vh = (d / tf * 1.04)
        .max((100.0 - vz * vz).max(0.0).sqrt() + 0.05)
        .min((24.5f64.powi(2) - vz * vz).max(1.0).sqrt());
    (vh, vz)
}

fn clamp_pitch(p: V2, m: f64) -> V2 {
    v2(p.x.clamp(m, L - m), p.y.clamp(m, W - m))
}

fn absolute(team: TeamSide, slot: V2) -> V2 {
    if team == TeamSide::Home {
        slot
    } else {
        v2(L - slot.x, W - slot.y)
    }
}

impl Sim {
    pub(crate) fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let mut people = Vec::with_capacity(23);
        for (t, team) in [TeamSide::Home, TeamSide::Away].into_iter().enumerate() {
            for (k, &(x, y)) in HOME_SLOTS.iter().enumerate() {
                let slot = v2(x + rng.range(-1.5, 1.5), y + rng.range(-1.5, 1.5));
                people.push(Person {
                    id: (t * 11 + k + 1) as u32,
                    team,
                    role: if k == 0 {
                        ObjectClass::Goalkeeper
                    } else {
                        ObjectClass::Player
                    },
                    number: if k == 0 {
                        1
                    } else {
                        [2, 5, 4, 3, 7, 8, 6, 11, 9, 10][k - 1]
                    },
                    slot,
                    pos: v2(0.0, 0.0),
                    vel: v2(0.0, 0.0),
                    stride: rng.range(0.0, std::f64::consts::TAU),
                    height_m: rng.range(1.72, 1.92),
                    skin: rng.index(4) as u8,
                    wander: rng.range(0.0, 100.0),
                });
            }
        }
        people.push(Person {
            id: 23,
            team: TeamSide::Other,
            role: ObjectClass::Referee,
            number: 0,
            slot: v2(0.0, 0.0),
            pos: v2(L / 2.0 - 8.0, W / 2.0 + 10.0),
            vel: v2(0.0, 0.0),
            stride: 0.0,
            height_m: 1.8,
            skin: rng.index(4) as u8,
            wander: 0.0,
        });
        let mut sim = Self {
            steps: 0,
            rng,
            people,
            ball: Ball {
                pos: v2(L / 2.0, W / 2.0),
                h: 0.0,
                vel: v2(0.0, 0.0),
                vz: 0.0,
                owner: None,
                in_play: false,
                last_touch: None,
                guard: Guard::None,
                kicker_block: (usize::MAX, 0.0),
            },
            phase: Phase::Live,
            score: [0, 0],
            events: Vec::new(),
            possession: None,
            rig: Rig {
                target: v2(L / 2.0, W / 2.0),
                vel: v2(0.0, 0.0),
                fov_deg: 30.0,
            },
            camera_pos: v3(L / 2.0, W + 45.0, 17.0),
            director: camera::Director::new(seed),
            minute: -1,
            out_done: false,
            goal_done: false,
            out_deadline: 0.0,
            goal_deadline: 0.0,
            decision_at: 0.0,
            dribble_target: v2(0.0, 0.0),
            receiver: None,
            last_change: -10.0,
        };
        sim.camera_pos = sim.draw_camera_pos();
        let kicker = if sim.rng.chance(0.5) {
            TeamSide::Home
        } else {
            TeamSide::Away
        };
        sim.start_dead(Restart::Kickoff, v2(L / 2.0, W / 2.0), kicker, 0.0, 1.0);
        // Everyone starts on their kickoff spot, the camera on the centre spot.
        for i in 0..23 {
            sim.people[i].pos = sim.target_of(i).0;
        }
        sim.ball.pos = v2(L / 2.0, W / 2.0);
        sim.rig.fov_deg = sim.desired_fov(sim.rig.target);
        sim
    }

    pub(crate) fn time(&self) -> f64 {
        self.steps as f64 * DT
    }

    fn event(
        &mut self,
        kind: EventKind,
        team: Option<TeamSide>,
        player: Option<usize>,
    ) -> &mut RawEvent {
        let id = player.map(|i| self.people[i].id);
        self.events.push(RawEvent {
            kind,
            time: self.time(),
            at: self.ball.pos,
            team,
            player: id,
            target: None,
            speed: None,
            detail: None,
        });
        self.events.last_mut().expect("just pushed")
    }

    fn need_out(&self) -> bool {
        !self.out_done && self.time() >= self.out_deadline
    }

    fn need_goal(&self) -> bool {
        !self.goal_done && self.time() >= self.goal_deadline && !self.need_out()
    }

    /// Advances the match by one step ([`DT`]).
    pub(crate) fn step(&mut self) {
        self.steps += 1;
        let t = self.time();
        let minute = (t / 60.0).floor() as i64;
        if minute != self.minute {
            self.minute = minute;
            self.out_done = false;
            self.goal_done = false;
            let m0 = minute as f64 * 60.0;
            self.out_deadline = m0 + self.rng.range(12.0, 18.0);
            self.goal_deadline = m0 + self.rng.range(24.0, 30.0);
        }
        match self.phase {
            Phase::Dead { .. } => self.update_dead(),
            Phase::Live => self.update_owner(),
        }
        self.move_people();
        self.update_ball();
        if self.ball.in_play && self.ball.owner.is_none() {
            self.check_lines();
        }
        if matches!(self.phase, Phase::Live) && self.ball.in_play {
            if self.ball.owner.is_none() {
                self.pickups();
            } else {
                self.tackles();
            }
        }
        self.update_rig();
        self.update_director();
    }

    // ---- camera -----------------------------------------------------------------------------

    fn desired_fov(&self, target: V2) -> f64 {
        let c = self.camera_pos;
        let dist = (v3(target.x, target.y, 0.0) - c)
            .dot(v3(target.x, target.y, 0.0) - c)
            .sqrt();
        let width = (34.0 + 0.6 * self.ball.vel.len()).min(50.0);
        (2.0 * (width / 2.0 / dist).atan())
            .to_degrees()
            .clamp(camera::fov_min_deg(), camera::fov_max_deg())
    }

    fn update_rig(&mut self) {
        let b = &self.ball;
        let want = v2(
            (b.pos.x + b.vel.x * 0.5).clamp(12.0, L - 12.0),
            (W / 2.0 + (b.pos.y - W / 2.0) * 0.6).clamp(18.0, W - 16.0),
        );
        self.rig.follow(want, 1.6);
        let fov = self.desired_fov(self.rig.target);
        self.rig.fov_deg += (fov - self.rig.fov_deg) * (0.8 * DT);
    }
}
