//! Movement: where each person wants to be (formation slot shifted with the ball, pressing and
//! chasing, the restart taker, the referee) and how they run there.

use sportz_contract::{ObjectClass, PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, TeamSide};

use super::{
    DT, Guard, Phase, Restart, Sim, absolute, attacked_goal, clamp_pitch, dir, other, team_index,
};
use crate::geom::{V2, v2};

impl Sim {
    /// Where person `i` wants to be and how fast they may run there.
    pub(super) fn target_of(&self, i: usize) -> (V2, f64) {
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

    pub(super) fn move_people(&mut self) {
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
}
