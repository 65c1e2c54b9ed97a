//! The player on the ball and possession: when to dribble, pass or shoot, who receives, how a kick
//! is struck (on the ground or lofted to arrive), the director's scripted clearance and shot, and
//! how the ball changes hands (pickups, interceptions, tackles).

use sportz_contract::{EventKind, ObjectClass, PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, TeamSide};

use super::{G, Guard, Sim, attacked_goal, clamp_pitch, dir, lofted_speed, other, team_index};
use crate::geom::{V2, v2};

impl Sim {
    pub(super) fn update_owner(&mut self) {
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

    pub(super) fn choose_receiver(
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

    pub(super) fn nearest_of(&self, team: TeamSide, at: V2, except: Option<usize>) -> usize {
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
    pub(super) fn kick_to(
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

    pub(super) fn gain(&mut self, j: usize, detail: Option<&'static str>) {
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

    pub(super) fn pickups(&mut self) {
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

    pub(super) fn tackles(&mut self) {
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
}
