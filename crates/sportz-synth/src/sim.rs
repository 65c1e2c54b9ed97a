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

/// The camera operator: pans (target point) and zooms (field of view) smoothly after the ball.
#[derive(Debug, Clone)]
pub(crate) struct Rig {
    pub target: V2,
    vel: V2,
    pub fov_deg: f64,
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
    pub rig: Rig,
    /// The broadcast camera's fixed position (seeded): near the halfway line, 24–38 m behind
    /// the near touchline, 14–24 m up.
    pub camera_pos: V3,
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
            camera_pos: v3(L / 2.0, W + 30.0, 20.0),
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
        sim.camera_pos = v3(
            L / 2.0 + sim.rng.range(-3.0, 3.0),
            W + sim.rng.range(24.0, 38.0),
            sim.rng.range(14.0, 24.0),
        );
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
    }

    // ---- restarts -------------------------------------------------------------------------

    fn start_dead(
        &mut self,
        kind: Restart,
        spot: V2,
        team: TeamSide,
        place_after: f64,
        ready_after: f64,
    ) {
        let t = self.time();
        let taker = self.pick_taker(kind, spot, team);
        self.ball.in_play = false;
        self.ball.owner = None;
        self.receiver = None;
        self.phase = Phase::Dead {
            kind,
            spot,
            team,
            taker,
            place_at: t + place_after,
            ready_at: t + ready_after,
            placed: false,
        };
    }

    fn pick_taker(&self, kind: Restart, spot: V2, team: TeamSide) -> usize {
        let base = team_index(team) * 11;
        match kind {
            Restart::GoalKick => base,
            Restart::Kickoff => base + 9,
            Restart::ThrowIn | Restart::Corner => (base + 1..base + 11)
                .min_by(|&a, &b| {
                    self.people[a]
                        .pos
                        .dist(spot)
                        .total_cmp(&self.people[b].pos.dist(spot))
                })
                .unwrap_or(base + 1),
        }
    }

    fn update_dead(&mut self) {
        let t = self.time();
        let Phase::Dead {
            kind,
            spot,
            team,
            taker,
            place_at,
            ready_at,
            placed,
        } = self.phase
        else {
            return;
        };
        if !placed && t >= place_at {
            self.ball.pos = spot;
            self.ball.vel = v2(0.0, 0.0);
            self.ball.h = if kind == Restart::ThrowIn { 2.0 } else { 0.0 };
            self.ball.vz = 0.0;
            self.phase = Phase::Dead {
                kind,
                spot,
                team,
                taker,
                place_at,
                ready_at,
                placed: true,
            };
            return;
        }
        if placed && kind == Restart::ThrowIn {
            // The thrower holds the ball above the head.
            let p = self.people[taker].pos;
            if p.dist(spot) < 3.0 {
                self.ball.pos = v2(p.x, p.y);
            }
        }
        if placed && t >= ready_at && self.people[taker].pos.dist(spot) < 1.2 {
            self.phase = Phase::Live;
            self.ball.in_play = true;
            self.ball.pos = spot;
            self.gain(taker, Some(kind.name()));
            self.restart_kick(taker, kind);
        }
    }

    fn restart_kick(&mut self, i: usize, kind: Restart) {
        let team = self.people[i].team;
        let (lo, hi, lofted) = match kind {
            Restart::Kickoff => (6.0, 16.0, false),
            Restart::ThrowIn => (7.0, 22.0, true),
            Restart::GoalKick => (25.0, 48.0, true),
            Restart::Corner => (0.0, 0.0, true),
        };
        if kind == Restart::Corner {
            let goal = attacked_goal(team);
            let aim = v2(
                goal.x - dir(team) * self.rng.range(6.0, 12.0),
                goal.y + self.rng.range(-7.0, 7.0),
            );
            let j = self.nearest_of(team, aim, Some(i));
            self.kick_to(i, aim, true, Guard::None, Some(j), "restart");
            return;
        }
        let j = self.choose_receiver(i, lo, hi, false, kind == Restart::Kickoff);
        match j {
            Some(j) => {
                let aim = self.people[j].pos;
                self.kick_to(i, aim, lofted, Guard::Team(team), Some(j), "restart");
            }
            None => self.decision_at = self.time() + 0.5,
        }
    }

    // ---- the player on the ball -----------------------------------------------------------

    fn update_owner(&mut self) {
        let Some(i) = self.ball.owner else { return };
        let t = self.time();
        if self.need_out() && t - self.last_change > 0.3 {
            self.clear_out(i);
            return;
        }
        if t >= self.decision_at {
            self.decide(i);
        }
    }

    fn decide(&mut self, i: usize) {
        let t = self.time();
        let p = self.people[i].clone();
        let goal = attacked_goal(p.team);
        let d_goal = p.pos.dist(goal);
        if p.role == ObjectClass::Goalkeeper {
            if let Some(j) = self.choose_receiver(i, 20.0, 45.0, false, false) {
                let aim = self.people[j].pos;
                self.kick_to(i, aim, true, Guard::None, Some(j), "");
            } else {
                self.decision_at = t + 0.5;
            }
            return;
        }
        if self.need_goal() {
            if d_goal < 24.0 {
                self.shoot(i, true);
                return;
            }
            if self.rng.chance(0.35)
                && let Some(j) = self.choose_receiver(i, 8.0, 35.0, true, false)
            {
                let aim = self.lead_point(j, 0.8);
                self.kick_to(i, aim, false, Guard::Team(p.team), Some(j), "");
                return;
            }
            self.dribble_target = clamp_pitch(p.pos + (goal - p.pos).norm() * 10.0, 3.0);
            self.decision_at = t + self.rng.range(0.5, 1.0);
            return;
        }
        if d_goal < 26.0 && self.rng.chance(0.45) {
            self.shoot(i, false);
            return;
        }
        if self.rng.chance(0.55)
            && let Some(j) = self.choose_receiver(i, 7.0, 45.0, false, false)
        {
            let d = p.pos.dist(self.people[j].pos);
            let lofted = d > 30.0 || (d > 18.0 && self.rng.chance(0.25));
            let aim = self.lead_point(j, d / 14.0);
            self.kick_to(i, aim, lofted, Guard::None, Some(j), "");
            return;
        }
        let fwd = dir(p.team) * self.rng.range(4.0, 12.0);
        self.dribble_target = clamp_pitch(p.pos + v2(fwd, self.rng.range(-6.0, 6.0)), 2.5);
        self.decision_at = t + self.rng.range(0.8, 1.8);
    }

    fn lead_point(&self, j: usize, secs: f64) -> V2 {
        let q = &self.people[j];
        clamp_pitch(q.pos + q.vel * secs, 1.5)
    }

    fn choose_receiver(
        &mut self,
        i: usize,
        lo: f64,
        hi: f64,
        forward_only: bool,
        backward: bool,
    ) -> Option<usize> {
        let p = self.people[i].clone();
        let base = team_index(p.team) * 11;
        let mut best: Option<(f64, usize)> = None;
        for j in base..base + 11 {
            if j == i {
                continue;
            }
            let q = &self.people[j];
            let d = p.pos.dist(q.pos);
            if d < lo || d > hi {
                continue;
            }
            let forward = (q.pos.x - p.pos.x) * dir(p.team);
            if forward_only && forward < 3.0 {
                continue;
            }
            if backward && forward > 0.0 {
                continue;
            }
            let open = self
                .people
                .iter()
                .filter(|o| o.team == other(p.team))
                .map(|o| o.pos.dist(q.pos))
                .fold(10.0_f64, f64::min);
            let mut score = forward * 0.06 + open * 0.25 - (d - 18.0).abs() * 0.04;
            if q.role == ObjectClass::Goalkeeper {
                score -= 3.0;
            }
            score += self.rng.range(0.0, 1.2);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, j));
            }
        }
        best.map(|(_, j)| j)
    }

    fn nearest_of(&self, team: TeamSide, at: V2, except: Option<usize>) -> usize {
        let base = team_index(team) * 11;
        (base + 1..base + 11)
            .filter(|&j| Some(j) != except)
            .min_by(|&a, &b| {
                self.people[a]
                    .pos
                    .dist(at)
                    .total_cmp(&self.people[b].pos.dist(at))
            })
            .unwrap_or(base + 1)
    }

    /// Kicks from the ball's position towards `aim`, on the ground or lofted so as to arrive there.
    fn kick_to(
        &mut self,
        i: usize,
        aim: V2,
        lofted: bool,
        guard: Guard,
        receiver: Option<usize>,
        detail: &'static str,
    ) {
        let from = self.ball.pos;
        let d = from.dist(aim).max(1.0);
        let heading = (aim - from).norm();
        let (vh, vz) = if lofted {
            lofted_speed(d, 1.0)
        } else {
            ((7.0f64 * 7.0 + 2.0 * 1.6 * d).sqrt().clamp(10.0, 25.0), 0.0)
        };
        self.launch(i, heading * vh, vz, guard);
        self.receiver = receiver.map(|j| (j, aim));
        let team = self.people[i].team;
        let speed = vh.hypot(vz);
        let target = receiver.map(|j| self.people[j].id);
        let e = self.event(EventKind::Pass, Some(team), Some(i));
        e.target = target;
        e.speed = Some(speed);
        e.detail = if detail.is_empty() {
            None
        } else {
            Some(detail)
        };
    }

    fn launch(&mut self, i: usize, vel: V2, vz: f64, guard: Guard) {
        let t = self.time();
        self.ball.owner = None;
        self.ball.vel = vel;
        self.ball.vz = vz;
        self.ball.last_touch = Some(i);
        self.ball.guard = guard;
        self.ball.kicker_block = (i, t + 0.4);
        self.decision_at = f64::INFINITY;
    }

    /// The scripted ball out: a lofted clearance over the nearer touchline.
    fn clear_out(&mut self, i: usize) {
        let p = self.people[i].clone();
        let y = if self.ball.pos.y < W / 2.0 {
            -5.0
        } else {
            W + 5.0
        };
        let x = (p.pos.x + dir(p.team) * self.rng.range(5.0, 20.0)).clamp(6.0, L - 6.0);
        let aim = v2(x, y);
        let d = self.ball.pos.dist(aim);
        let (vh, vz) = lofted_speed(d, 1.2);
        self.launch(i, (aim - self.ball.pos).norm() * vh, vz, Guard::Nobody);
        self.receiver = None;
        let e = self.event(EventKind::Pass, Some(p.team), Some(i));
        e.speed = Some(vh.hypot(vz));
        e.detail = Some("clearance");
    }

    fn shoot(&mut self, i: usize, scripted: bool) {
        let team = self.people[i].team;
        let goal = attacked_goal(team);
        let (ty, th, vh) = if scripted {
            (
                goal.y + self.rng.range(-2.8, 2.8),
                self.rng.range(0.2, 1.5),
                self.rng.range(18.0, 26.0),
            )
        } else {
            (
                goal.y + self.rng.range(-6.5, 6.5),
                self.rng.range(0.0, 3.0),
                self.rng.range(16.0, 27.0),
            )
        };
        let aim = v2(goal.x, ty);
        let d = self.ball.pos.dist(aim);
        let tf = d / vh;
        let vz = ((th + 0.5 * G * tf * tf) / tf).max(0.0);
        self.launch(
            i,
            (aim - self.ball.pos).norm() * vh,
            vz,
            if scripted { Guard::Nobody } else { Guard::None },
        );
        self.receiver = None;
        let e = self.event(EventKind::Shot, Some(team), Some(i));
        e.speed = Some(vh.hypot(vz));
    }

    // ---- possession -----------------------------------------------------------------------

    fn gain(&mut self, j: usize, detail: Option<&'static str>) {
        let t = self.time();
        let team = self.people[j].team;
        if let Some(prev) = self.possession
            && prev != team
        {
            let loser = self
                .ball
                .last_touch
                .filter(|&k| self.people[k].team == prev);
            self.event(EventKind::BallLost, Some(prev), loser).detail = detail;
            self.event(EventKind::PossessionChange, Some(team), Some(j))
                .detail = detail;
        }
        self.event(EventKind::Possession, Some(team), Some(j))
            .detail = detail;
        self.possession = Some(team);
        self.ball.owner = Some(j);
        self.ball.last_touch = Some(j);
        self.ball.guard = Guard::None;
        self.ball.h = 0.0;
        self.ball.vz = 0.0;
        self.receiver = None;
        self.last_change = t;
        let gk = self.people[j].role == ObjectClass::Goalkeeper;
        self.decision_at = t + if gk {
            self.rng.range(1.2, 2.2)
        } else {
            self.rng.range(0.5, 1.6)
        };
        let p = self.people[j].pos;
        self.dribble_target = clamp_pitch(
            p + v2(
                dir(team) * self.rng.range(5.0, 12.0),
                self.rng.range(-5.0, 5.0),
            ),
            2.5,
        );
    }

    fn pickups(&mut self) {
        let t = self.time();
        let b = self.ball.clone();
        let mut best: Option<(f64, usize)> = None;
        for (j, q) in self.people.iter().enumerate() {
            if q.role == ObjectClass::Referee {
                continue;
            }
            match b.guard {
                Guard::Nobody => continue,
                Guard::Team(team) if q.team != team => continue,
                _ => {}
            }
            if j == b.kicker_block.0 && t < b.kicker_block.1 {
                continue;
            }
            let own_box = q.role == ObjectClass::Goalkeeper
                && (q.pos.x - attacked_goal(other(q.team)).x).abs() < 16.5;
            let (reach, max_h) = if own_box { (1.7, 2.3) } else { (0.9, 1.2) };
            let d = q.pos.dist(b.pos);
            if d < reach && b.h < max_h && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, j));
            }
        }
        if let Some((_, j)) = best {
            let detail = if self.people[j].role == ObjectClass::Goalkeeper {
                "save"
            } else {
                "interception"
            };
            self.gain(j, Some(detail));
        }
    }

    fn tackles(&mut self) {
        let t = self.time();
        let Some(i) = self.ball.owner else { return };
        if self.need_goal() || self.need_out() || t - self.last_change < 1.5 {
            return;
        }
        let team = self.people[i].team;
        let pos = self.people[i].pos;
        let tackler = self
            .people
            .iter()
            .enumerate()
            .filter(|(_, q)| {
                q.team == other(team) && q.role == ObjectClass::Player && q.pos.dist(pos) < 1.0
            })
            .map(|(j, _)| j)
            .next();
        if let Some(j) = tackler
            && self.rng.chance(0.008)
        {
            self.gain(j, Some("tackle"));
        }
    }

    // ---- movement -------------------------------------------------------------------------

    /// Where person `i` wants to be and how fast they may run there.
    fn target_of(&self, i: usize) -> (V2, f64) {
        let p = &self.people[i];
        let t = self.time();
        let ball = self.ball.pos;
        if p.role == ObjectClass::Referee {
            return (clamp_pitch(v2(ball.x - 7.0, ball.y + 9.0), 3.0), 5.0);
        }
        let d = dir(p.team);
        if let Phase::Dead {
            kind,
            spot,
            team,
            taker,
            ..
        } = self.phase
        {
            if i == taker {
                let behind = match kind {
                    Restart::ThrowIn => v2(0.0, if spot.y < 1.0 { -0.4 } else { 0.4 }),
                    _ => v2(-dir(team) * 0.6, 0.0),
                };
                return (spot + behind, 6.5);
            }
            if kind == Restart::Kickoff {
                let mut s = absolute(p.team, p.slot);
                s.x = if d > 0.0 {
                    s.x.min(L / 2.0 - 1.5)
                } else {
                    s.x.max(L / 2.0 + 1.5)
                };
                if p.team == team && p.number == 9 {
                    s = v2(L / 2.0 - d * 0.8, W / 2.0 + 7.0);
                }
                if p.team != team && s.dist(v2(L / 2.0, W / 2.0)) < 9.5 {
                    s = v2(L / 2.0 - d * 10.0, s.y);
                }
                return (s, 4.0);
            }
        }
        if p.role == ObjectClass::Goalkeeper {
            let gx = attacked_goal(other(p.team)).x;
            let mut y = W / 2.0 + (ball.y - W / 2.0) * 0.2;
            let b = &self.ball;
            // A shot or cross coming in: move to where it crosses the goal line (a scripted
            // goal beats the keeper, who then stays rooted rather than dive through the ball).
            if b.owner.is_none() && b.guard != Guard::Nobody && b.vel.x * d < -8.0 {
                let secs = ((gx - b.pos.x) / b.vel.x).max(0.0);
                y = b.pos.y + b.vel.y * secs;
            }
            let x = gx + d * (1.5 + ((ball.x - gx).abs() / 105.0) * 10.0);
            return (v2(x, y.clamp(W / 2.0 - 3.2, W / 2.0 + 3.2)), 5.0);
        }
        if self.ball.owner == Some(i) {
            return (
                self.dribble_target,
                if self.need_goal() { 6.8 } else { 5.4 },
            );
        }
        if let Some((j, aim)) = self.receiver
            && j == i
        {
            let bp = self.ball.pos;
            let to = if bp.dist(aim) < 6.0 { bp } else { aim };
            return (to, 7.0);
        }
        let live = matches!(self.phase, Phase::Live);
        if live && self.ball.in_play {
            let chasers = self.chasers();
            if chasers.contains(&i) {
                if let Some(o) = self.ball.owner {
                    let op = self.people[o].pos;
                    let own = attacked_goal(other(p.team));
                    return (op + (own - op).norm() * 0.8, 6.0);
                }
                if self.receiver.is_none() || self.ball.vel.len() < 4.0 {
                    let b = &self.ball;
                    return (b.pos + b.vel * 0.4, 7.2);
                }
            }
        }
        let in_poss = live && self.possession == Some(p.team);
        let s = absolute(p.team, p.slot);
        let push = if in_poss { 7.0 } else { -3.0 } * d;
        let x = s.x + (ball.x - L / 2.0) * 0.6 + push + (t * 0.37 + p.wander).sin() * 2.0;
        let y = s.y + (ball.y - W / 2.0) * 0.35 + (t * 0.29 + p.wander * 1.3).cos() * 2.0;
        (clamp_pitch(v2(x, y), 2.0), 4.2)
    }

    /// Each team's outfield player nearest the ball (who presses or chases it).
    fn chasers(&self) -> [usize; 2] {
        let b = self.ball.pos;
        let pick = |team: TeamSide| -> usize {
            let base = team_index(team) * 11;
            (base + 1..base + 11)
                .filter(|&j| Some(j) != self.ball.owner)
                .min_by(|&a, &c| {
                    self.people[a]
                        .pos
                        .dist(b)
                        .total_cmp(&self.people[c].pos.dist(b))
                })
                .unwrap_or(base + 1)
        };
        [pick(TeamSide::Home), pick(TeamSide::Away)]
    }

    fn move_people(&mut self) {
        let targets: Vec<(V2, f64)> = (0..self.people.len()).map(|i| self.target_of(i)).collect();
        let n = self.people.len();
        for (i, &(target, max_speed)) in targets.iter().enumerate() {
            let mut push = v2(0.0, 0.0);
            for j in 0..n {
                if i != j {
                    let d = self.people[i].pos - self.people[j].pos;
                    let l = d.len();
                    if l < 0.9 && l > 1e-6 {
                        push = push + d * ((0.9 - l) / l * 3.0);
                    }
                }
            }
            let p = &mut self.people[i];
            let to = target - p.pos;
            let speed = (to.len() * 1.4).min(max_speed);
            let want = to.norm() * speed + push;
            let dv = want - p.vel;
            let max_dv = 6.0 * DT;
            let dv = if dv.len() > max_dv {
                dv.norm() * max_dv
            } else {
                dv
            };
            p.vel = p.vel + dv;
            p.pos = p.pos + p.vel * DT;
            p.stride =
                (p.stride + p.vel.len() * DT / 2.1 * std::f64::consts::TAU) % std::f64::consts::TAU;
        }
    }

    // ---- the ball ---------------------------------------------------------------------------

    fn update_ball(&mut self) {
        if let Some(i) = self.ball.owner {
            let p = &self.people[i];
            let heading = if p.vel.len() > 0.5 {
                p.vel.norm()
            } else {
                v2(dir(p.team), 0.0)
            };
            let reach = 0.55 + 0.25 * p.stride.sin().abs();
            let want = clamp_pitch(p.pos + heading * reach, 0.3);
            // Close in on the carrier's feet without teleporting (keeps truth velocities sane).
            let step = want - self.ball.pos;
            let max_step = (p.vel.len() + 6.0) * DT;
            let new = if step.len() > max_step {
                self.ball.pos + step.norm() * max_step
            } else {
                want
            };
            self.ball.vel = (new - self.ball.pos) * HZ;
            self.ball.pos = new;
            self.ball.h = 0.0;
            self.ball.vz = 0.0;
            return;
        }
        if matches!(self.phase, Phase::Dead { placed: true, .. }) {
            self.ball.vel = v2(0.0, 0.0);
            return;
        }
        let b = &mut self.ball;
        if b.h > 0.0 || b.vz > 0.0 {
            b.vz -= G * DT;
            b.h += b.vz * DT;
            b.vel = b.vel * (1.0 - 0.05 * DT);
            if b.h <= 0.0 {
                b.h = 0.0;
                if b.vz < -2.0 {
                    b.vz = -b.vz * 0.45;
                    b.vel = b.vel * 0.8;
                } else {
                    b.vz = 0.0;
                }
            }
        } else {
            let s = b.vel.len();
            let ns = (s - (1.0 + 0.05 * s) * DT).max(0.0);
            b.vel = if s > 1e-9 {
                b.vel * (ns / s)
            } else {
                v2(0.0, 0.0)
            };
            if ns < 2.5 && b.guard != Guard::None {
                b.guard = Guard::None;
            }
        }
        // The net stops the ball behind the goal line.
        if !b.in_play
            && (b.pos.y - W / 2.0).abs() < GOAL_HALF_M
            && (b.pos.x < -1.8 || b.pos.x > L + 1.8)
            && b.h < CROSSBAR_M
        {
            b.vel = v2(0.0, 0.0);
        }
        // Out of play, the ball is soon stopped (by the boards, the crowd, a ball boy) and
        // never leaves the stadium.
        if !b.in_play {
            b.vel = b.vel * (1.0 - 2.5 * DT);
        }
        b.pos = b.pos + b.vel * DT;
        b.pos = v2(b.pos.x.clamp(-6.0, L + 6.0), b.pos.y.clamp(-4.0, W + 6.0));
    }

    fn check_lines(&mut self) {
        let b = self.ball.clone();
        let out_y = b.pos.y < -BALL_R || b.pos.y > W + BALL_R;
        let out_x = b.pos.x < -BALL_R || b.pos.x > L + BALL_R;
        if !out_x && !out_y {
            return;
        }
        let last = b.last_touch;
        let last_team = last.map_or(TeamSide::Home, |k| self.people[k].team);
        let t = self.time();
        if !out_y
            && out_x
            && (b.pos.y - W / 2.0).abs() < GOAL_HALF_M - BALL_R
            && b.h < CROSSBAR_M - 2.0 * BALL_R
        {
            // Goal: the goal at x = 0 is attacked by the away team.
            let scorer_team = if b.pos.x < 0.0 {
                TeamSide::Away
            } else {
                TeamSide::Home
            };
            self.score[team_index(scorer_team)] += 1;
            let scorer = last.filter(|&k| self.people[k].team == scorer_team);
            self.event(EventKind::Goal, Some(scorer_team), scorer);
            self.goal_done = true;
            let _ = t;
            self.start_dead(
                Restart::Kickoff,
                v2(L / 2.0, W / 2.0),
                other(scorer_team),
                2.5,
                7.0,
            );
            return;
        }
        let (kind, spot, team) = if out_y {
            let y = if b.pos.y < 0.0 { 0.0 } else { W };
            (
                Restart::ThrowIn,
                v2(b.pos.x.clamp(1.0, L - 1.0), y),
                other(last_team),
            )
        } else {
            let left = b.pos.x < 0.0;
            let defending = if left { TeamSide::Home } else { TeamSide::Away };
            let gx = if left { 0.0 } else { L };
            if last_team == defending {
                (
                    Restart::Corner,
                    v2(gx, if b.pos.y < W / 2.0 { 0.0 } else { W }),
                    other(defending),
                )
            } else {
                let x = if left { 5.5 } else { L - 5.5 };
                (
                    Restart::GoalKick,
                    v2(x, if b.pos.y < W / 2.0 { 30.0 } else { 38.0 }),
                    defending,
                )
            }
        };
        self.event(EventKind::BallOut, Some(last_team), last).detail = Some(kind.name());
        self.out_done = true;
        let ready = match kind {
            Restart::ThrowIn => 3.0,
            Restart::GoalKick => 4.0,
            _ => 5.0,
        };
        self.start_dead(kind, spot, team, 1.2, ready);
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
            .clamp(16.0, 48.0)
    }

    fn update_rig(&mut self) {
        let b = &self.ball;
        let want = v2(
            (b.pos.x + b.vel.x * 0.5).clamp(12.0, L - 12.0),
            (W / 2.0 + (b.pos.y - W / 2.0) * 0.6).clamp(18.0, W - 16.0),
        );
        let w = 1.6;
        let r = &mut self.rig;
        let acc = (want - r.target) * (w * w) - r.vel * (2.0 * w);
        r.vel = r.vel + acc * DT;
        r.target = r.target + r.vel * DT;
        let fov = self.desired_fov(self.rig.target);
        self.rig.fov_deg += (fov - self.rig.fov_deg) * (0.8 * DT);
    }
}
