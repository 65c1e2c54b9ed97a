//! Which goal each side defends, from where its players stand: defenders stay goal-side of
//! their opponents, so the side whose outfield players stand nearer the left goal line on average
//! defends it — whichever team has the ball (attacking, a side pushes up but the opponents'
//! block stays deeper still; at a kick-off each side is in its own half). The gap between the
//! two sides' mean `x` is averaged over about a minute, so teams changing ends at half-time are
//! followed within a minute or two of the second half.
//!
//! It tells a ball out over a goal line apart: a corner when the side defending that goal touched
//! it last, a goal kick otherwise.

use sportz_contract::TeamSide;

use super::PlayerObs;

/// Seconds over which the gap between the sides is averaged (an exponential average).
const TIME_CONSTANT_S: f64 = 60.0;
/// Players of each side with a pitch position a frame needs to count.
const MIN_PLAYERS: usize = 3;
/// The averaged gap, metres, below which the ends are not told.
const MIN_GAP_M: f64 = 2.0;
/// The longest step between two counted frames (a long gap without positions counts as this).
const MAX_STEP_S: f64 = 1.0;

#[derive(Debug, Clone, Copy)]
pub(super) struct Ends {
    /// Exponentially weighted sum of (away mean x − home mean x), and of the weights.
    sum: f64,
    weight: f64,
    last_t: Option<f64>,
}

impl Ends {
    pub(super) const fn new() -> Self {
        Self {
            sum: 0.0,
            weight: 0.0,
            last_t: None,
        }
    }

    /// One frame at video time `t`.
    pub(super) fn observe(&mut self, t: f64, players: &[PlayerObs]) {
        let mean_x = |side: TeamSide| {
            let xs: Vec<f64> = players
                .iter()
                .filter(|p| p.team == Some(side))
                .filter_map(|p| p.pitch.map(|q| q.x))
                .collect();
            (xs.len() >= MIN_PLAYERS).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
        };
        let (Some(home), Some(away)) = (mean_x(TeamSide::Home), mean_x(TeamSide::Away)) else {
            return;
        };
        let step = self
            .last_t
            .map_or(MAX_STEP_S, |last| (t - last).clamp(0.0, MAX_STEP_S));
        self.last_t = Some(t);
        let keep = (-step / TIME_CONSTANT_S).exp();
        self.sum = self.sum * keep + (1.0 - keep) * (away - home);
        self.weight = self.weight * keep + (1.0 - keep);
    }

    /// The side defending the left goal (x = 0) or the right one; `None` until the sides have
    /// stood clearly apart.
    pub(super) fn defender_of(&self, left_goal: bool) -> Option<TeamSide> {
        if self.weight <= 0.0 {
            return None;
        }
        let gap = self.sum / self.weight;
        if gap.abs() < MIN_GAP_M {
            return None;
        }
        // away further right on average: home defends the left goal
        let home_left = gap > 0.0;
        Some(if left_goal == home_left {
            TeamSide::Home
        } else {
            TeamSide::Away
        })
    }

    /// The restart after the ball went out over the left or right goal line, last touched by
    /// `last_touch`: `corner_kick` when that side defends the goal, else `goal_kick`; `None`
    /// when the side or the ends are not known.
    pub(super) fn goal_line_restart(
        &self,
        left_goal: bool,
        last_touch: Option<TeamSide>,
    ) -> Option<&'static str> {
        let touch = last_touch.filter(|t| *t != TeamSide::Other)?;
        let defender = self.defender_of(left_goal)?;
        Some(if touch == defender {
            "corner_kick"
        } else {
            "goal_kick"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Point;

    fn side(team: TeamSide, xs: &[f64]) -> Vec<PlayerObs> {
        xs.iter()
            .enumerate()
            .map(|(i, &x)| PlayerObs {
                track_id: i as u64 + if team == TeamSide::Home { 1 } else { 100 },
                team: Some(team),
                pitch: Some(Point::new(x, 34.0)),
            })
            .collect()
    }

    /// `secs` of frames at 25 fps with home and away standing at these x.
    fn play(ends: &mut Ends, from: f64, secs: f64, home: &[f64], away: &[f64]) -> f64 {
        let mut players = side(TeamSide::Home, home);
        players.extend(side(TeamSide::Away, away));
        let n = (secs * 25.0) as usize;
        for i in 0..n {
            ends.observe(from + i as f64 / 25.0, &players);
        }
        from + secs
    }

    #[test]
    fn the_side_standing_nearer_a_goal_defends_it_and_decides_corner_or_goal_kick() {
        let mut ends = Ends::new();
        assert_eq!(ends.defender_of(true), None, "nothing seen");
        assert_eq!(ends.goal_line_restart(true, Some(TeamSide::Home)), None);
        // home attacking the right goal: pushed up to 55–75, away's block deeper at 60–95
        let t = play(
            &mut ends,
            0.0,
            10.0,
            &[40.0, 55.0, 65.0, 75.0],
            &[60.0, 80.0, 88.0, 95.0],
        );
        assert_eq!(ends.defender_of(true), Some(TeamSide::Home));
        assert_eq!(ends.defender_of(false), Some(TeamSide::Away));
        // over the right goal line: away's goal
        let right = |touch| ends.goal_line_restart(false, Some(touch));
        assert_eq!(right(TeamSide::Away), Some("corner_kick"));
        assert_eq!(right(TeamSide::Home), Some("goal_kick"));
        assert_eq!(
            ends.goal_line_restart(true, Some(TeamSide::Away)),
            Some("goal_kick")
        );
        assert_eq!(ends.goal_line_restart(false, Some(TeamSide::Other)), None);
        assert_eq!(ends.goal_line_restart(false, None), None);
        // away attacking for a while: home's block deeper at 10–40, away at 20–50 — the same ends
        let t = play(
            &mut ends,
            t,
            20.0,
            &[10.0, 20.0, 30.0, 40.0],
            &[20.0, 35.0, 45.0, 50.0],
        );
        assert_eq!(ends.defender_of(true), Some(TeamSide::Home));
        // the second half: the teams change ends; within a few minutes the ends follow
        play(
            &mut ends,
            t + 900.0,
            180.0,
            &[60.0, 75.0, 85.0, 95.0],
            &[30.0, 45.0, 55.0, 70.0],
        );
        assert_eq!(ends.defender_of(true), Some(TeamSide::Away));
    }

    #[test]
    fn sides_mixed_together_or_too_few_tell_no_ends() {
        let mut ends = Ends::new();
        play(
            &mut ends,
            0.0,
            30.0,
            &[30.0, 50.0, 70.0],
            &[31.0, 50.0, 71.0],
        );
        assert_eq!(ends.defender_of(true), None, "1 m apart on average");
        let mut few = Ends::new();
        play(&mut few, 0.0, 30.0, &[10.0, 20.0], &[80.0, 90.0, 95.0]);
        assert_eq!(few.defender_of(true), None, "two home players are no side");
    }
}
