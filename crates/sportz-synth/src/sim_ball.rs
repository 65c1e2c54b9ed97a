//! The ball: carried at the owner's feet or in flight (gravity, bounce, rolling friction, the
//! net), and the lines it crosses (goals, touchlines, goal lines) with the restart each calls for.

use sportz_contract::{EventKind, PITCH_LENGTH_M as L, PITCH_WIDTH_M as W, TeamSide};

use super::{
    BALL_R, CROSSBAR_M, DT, G, GOAL_HALF_M, Guard, HZ, Phase, Restart, Sim, clamp_pitch, dir,
    other, team_index,
};
use crate::geom::v2;

impl Sim {
    pub(super) fn update_ball(&mut self) {
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

    pub(super) fn check_lines(&mut self) {
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
}
