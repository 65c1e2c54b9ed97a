//! Restarts: the dead-ball phase of the match engine. A kick-off, throw-in, goal kick or corner
//! picks its taker, places the ball once the players have had time to walk to it, and goes live
//! with the restart kick once the taker stands on the spot.

use sportz_contract::TeamSide;

use super::{Guard, Phase, Restart, Sim, attacked_goal, dir, team_index};
use crate::geom::{V2, v2};

impl Sim {
    pub(super) fn start_dead(
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

    pub(super) fn update_dead(&mut self) {
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
}
