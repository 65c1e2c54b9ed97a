//! The event engine: pure, one step per frame, times taken from the frame (never the wall clock).
//!
//! - `ball_lost`: the ball was tracked and is gone for `ball_lost_frames` frames.
//! - `possession`: one player is the nearest to the ball, within `possession_distance_m`, for
//!   `possession_frames` consecutive frames, and was not already the holder.
//! - `possession_change`: a new holder of the other team than the previous one.
//! - `pass`: a new holder of the same team as the previous one, the ball having travelled at
//!   least `pass_min_distance_m` within `pass_max_secs`; published on reception, dated to the
//!   frame the ball left the passer.
//! - `shot`: the ball at `shot_min_speed_mps` or faster, heading between the posts of a goal
//!   within `shot_max_distance_m` (once per flight).
//! - `ball_out`: the ball beyond the lines by `ball_out_margin_m` for `ball_out_frames` detected
//!   frames (not when it went in).
//! - `goal`: the ball crosses a goal line between the posts.
//!
//! Everything but `ball_lost` needs pitch positions (a calibration); a ball position far outside
//! the pitch (a ball in the air, projected through the ground homography) is ignored.

use std::collections::VecDeque;

use serde_json::{Map, Value};
use sportz_contract::{EventKind, TeamSide};

use crate::Point;
use crate::pitch::{GOAL_HALF_WIDTH_M, LENGTH_M, WIDTH_M, is_inside};

/// Every threshold of the engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventConfig {
    pub ball_lost_frames: u32,
    pub possession_distance_m: f64,
    pub possession_frames: u32,
    pub pass_min_distance_m: f64,
    pub pass_max_secs: f64,
    pub shot_min_speed_mps: f64,
    pub shot_max_distance_m: f64,
    /// A shot may head this far outside a post and still count (the keeper may save it).
    pub shot_post_margin_m: f64,
    /// Ball speed is measured over this many seconds of detected positions.
    pub speed_window_secs: f64,
    pub ball_out_frames: u32,
    pub ball_out_margin_m: f64,
    /// A ball position farther than this outside the lines is not on the ground (a ball in the
    /// air projects far beyond the pitch, even above the horizon): the frame is ignored.
    pub implausible_beyond_m: f64,
}

impl Default for EventConfig {
    fn default() -> Self {
        Self {
            // half a second without a ball (after the tracker's own coasting): a dropout of a
            // frame or two is not news
            ball_lost_frames: 12,
            possession_distance_m: 1.5,
            possession_frames: 5,
            pass_min_distance_m: 5.0,
            pass_max_secs: 5.0,
            shot_min_speed_mps: 15.0,
            shot_max_distance_m: 35.0,
            shot_post_margin_m: 1.0,
            speed_window_secs: 0.12,
            ball_out_frames: 3,
            ball_out_margin_m: 0.3,
            implausible_beyond_m: 10.0,
        }
    }
}

/// The ball as the engine sees it in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BallObs {
    /// Metres, when calibrated.
    pub pitch: Option<Point>,
    pub predicted: bool,
    pub confidence: f64,
}

/// A player as the engine sees it in one frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlayerObs {
    pub track_id: u64,
    pub team: Option<TeamSide>,
    /// Metres (foot point), when calibrated.
    pub pitch: Option<Point>,
}

/// One frame of input.
#[derive(Debug, Clone, Copy)]
pub struct EventFrame<'a> {
    pub frame_number: u64,
    /// Seconds from the start of the video.
    pub video_timestamp: f64,
    /// Unix seconds of the frame.
    pub timestamp: f64,
    pub ball: Option<BallObs>,
    pub players: &'a [PlayerObs],
}

/// One detected event (ids are given by [`crate::frame::event_data`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub kind: EventKind,
    pub frame_number: u64,
    pub video_timestamp: f64,
    pub timestamp: f64,
    /// Order of the event within its frame.
    pub seq: u16,
    pub pitch: Option<Point>,
    pub team: Option<TeamSide>,
    pub player_track_id: Option<u64>,
    pub confidence: f64,
    pub details: Map<String, Value>,
}

#[derive(Debug, Clone, Copy)]
struct Holder {
    track_id: u64,
    team: Option<TeamSide>,
    /// Last time and ball position with the ball at the holder's feet.
    last_t: f64,
    last_ball: Point,
    /// The frame number and Unix time of `last_t`.
    last_frame: u64,
    last_unix: f64,
}

/// The event engine's state between frames.
#[derive(Debug, Clone)]
pub struct EventEngine {
    cfg: EventConfig,
    had_ball: bool,
    missing_frames: u32,
    last_ball_pitch: Option<Point>,
    holder: Option<Holder>,
    candidate: Option<(u64, u32)>,
    /// Detected ball positions `(t, pitch)`, recent first at the back.
    history: VecDeque<(f64, Point)>,
    shot_armed: bool,
    out_frames: u32,
    out_fired: bool,
    goal_fired: bool,
    previous_pitch: Option<Point>,
}

fn detail(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

fn round2(v: f64) -> Value {
    Value::from((v * 100.0).round() / 100.0)
}

impl EventEngine {
    #[must_use]
    pub const fn new(cfg: EventConfig) -> Self {
        Self {
            cfg,
            had_ball: false,
            missing_frames: 0,
            last_ball_pitch: None,
            holder: None,
            candidate: None,
            history: VecDeque::new(),
            shot_armed: true,
            out_frames: 0,
            out_fired: false,
            goal_fired: false,
            previous_pitch: None,
        }
    }

    #[must_use]
    pub const fn config(&self) -> &EventConfig {
        &self.cfg
    }

    /// The player in possession (or who last was), if any.
    #[must_use]
    pub fn holder(&self) -> Option<(u64, Option<TeamSide>)> {
        self.holder.map(|h| (h.track_id, h.team))
    }

    /// One frame in, the events it produced out.
    pub fn step(&mut self, f: &EventFrame<'_>) -> Vec<Event> {
        let mut out = Vec::new();
        let mut emit = |kind: EventKind,
                        pitch: Option<Point>,
                        team: Option<TeamSide>,
                        player: Option<u64>,
                        confidence: f64,
                        details: Map<String, Value>| {
            let seq = u16::try_from(out.len()).unwrap_or(u16::MAX);
            out.push(Event {
                kind,
                frame_number: f.frame_number,
                video_timestamp: f.video_timestamp,
                timestamp: f.timestamp,
                seq,
                pitch,
                team,
                player_track_id: player,
                confidence: confidence.clamp(0.0, 1.0),
                details,
            });
        };
        // the holder a pass left, when one is found this frame
        let mut kicked: Option<Holder> = None;
        let Some(ball) = f.ball else {
            self.missing_frames += 1;
            if self.had_ball && self.missing_frames >= self.cfg.ball_lost_frames {
                self.had_ball = false;
                let (team, player) = self
                    .holder
                    .map_or((None, None), |h| (h.team, Some(h.track_id)));
                emit(
                    EventKind::BallLost,
                    self.last_ball_pitch,
                    team,
                    player,
                    1.0,
                    Map::new(),
                );
            }
            self.candidate = None;
            self.previous_pitch = None;
            return out;
        };
        self.had_ball = true;
        self.missing_frames = 0;
        let Some(pos) = ball
            .pitch
            .filter(|p| is_inside(*p, self.cfg.implausible_beyond_m))
        else {
            return out;
        };
        self.last_ball_pitch = Some(pos);
        let t = f.video_timestamp;

        // goal: the ball crossed a goal line between the posts since the last position
        if let Some(prev) = self.previous_pitch {
            for (line, name) in [(0.0, "left"), (LENGTH_M, "right")] {
                let crossed =
                    (prev.x - line) * (pos.x - line) < 0.0 || (pos.x == line && prev.x != line);
                let outward = if line == 0.0 {
                    pos.x < prev.x
                } else {
                    pos.x > prev.x
                };
                if crossed && outward && !self.goal_fired {
                    let y = prev.y + (pos.y - prev.y) * (line - prev.x) / (pos.x - prev.x);
                    if (y - WIDTH_M / 2.0).abs() < GOAL_HALF_WIDTH_M {
                        self.goal_fired = true;
                        self.out_fired = true; // the ball is out because it went in
                        let (team, player) = self
                            .holder
                            .map_or((None, None), |h| (h.team, Some(h.track_id)));
                        emit(
                            EventKind::Goal,
                            Some(Point::new(line, y)),
                            team,
                            player,
                            ball.confidence,
                            detail(&[("goal", Value::from(name))]),
                        );
                    }
                }
            }
        }
        self.previous_pitch = Some(pos);

        // ball out: beyond the lines for k detected frames
        let outside = !is_inside(pos, self.cfg.ball_out_margin_m);
        if !outside && is_inside(pos, 0.0) {
            self.out_frames = 0;
            self.out_fired = false;
            self.goal_fired = false;
        }
        if outside && !ball.predicted {
            self.out_frames += 1;
            if self.out_frames >= self.cfg.ball_out_frames && !self.out_fired {
                self.out_fired = true;
                let over = if pos.x < 0.0 || pos.x > LENGTH_M {
                    "goal_line"
                } else {
                    "touchline"
                };
                let (team, player) = self
                    .holder
                    .map_or((None, None), |h| (h.team, Some(h.track_id)));
                let at = Point::new(pos.x.clamp(0.0, LENGTH_M), pos.y.clamp(0.0, WIDTH_M));
                emit(
                    EventKind::BallOut,
                    Some(at),
                    team,
                    player,
                    ball.confidence,
                    detail(&[("line", Value::from(over))]),
                );
            }
        }

        if ball.predicted {
            return out;
        }

        // speed from detected positions over the window
        self.history.push_back((t, pos));
        while self.history.len() > 2
            && self
                .history
                .front()
                .is_some_and(|(t0, _)| t - t0 > self.cfg.speed_window_secs)
        {
            self.history.pop_front();
        }
        let velocity = match (self.history.front(), self.history.back()) {
            (Some((t0, p0)), Some((t1, p1))) if t1 - t0 > 1e-6 => {
                Some(((p1.x - p0.x) / (t1 - t0), (p1.y - p0.y) / (t1 - t0)))
            }
            _ => None,
        };

        // possession
        let nearest = f
            .players
            .iter()
            .filter_map(|p| p.pitch.map(|pp| (p, pp.distance(&pos))))
            .filter(|(_, d)| *d <= self.cfg.possession_distance_m)
            .min_by(|a, b| a.1.total_cmp(&b.1));
        match nearest {
            Some((p, d)) => {
                let count = match self.candidate {
                    Some((id, n)) if id == p.track_id => n + 1,
                    _ => 1,
                };
                self.candidate = Some((p.track_id, count));
                let is_holder = self.holder.is_some_and(|h| h.track_id == p.track_id);
                if is_holder {
                    if let Some(h) = self.holder.as_mut() {
                        h.last_t = t;
                        h.last_ball = pos;
                        h.last_frame = f.frame_number;
                        h.last_unix = f.timestamp;
                        if h.team.is_none() {
                            h.team = p.team;
                        }
                    }
                } else if count >= self.cfg.possession_frames {
                    let confidence =
                        ball.confidence * (1.0 - 0.5 * d / self.cfg.possession_distance_m);
                    let new = Holder {
                        track_id: p.track_id,
                        team: p.team,
                        last_t: t,
                        last_ball: pos,
                        last_frame: f.frame_number,
                        last_unix: f.timestamp,
                    };
                    if let Some(prev) = self.holder {
                        let travelled = prev.last_ball.distance(&pos);
                        match (prev.team, p.team) {
                            (Some(a), Some(b)) if a != b => {
                                emit(
                                    EventKind::PossessionChange,
                                    Some(pos),
                                    p.team,
                                    Some(p.track_id),
                                    confidence,
                                    detail(&[
                                        ("from_player", Value::from(prev.track_id)),
                                        (
                                            "from_team",
                                            serde_json::to_value(a).unwrap_or(Value::Null),
                                        ),
                                    ]),
                                );
                            }
                            (Some(a), Some(b))
                                if a == b
                                    && travelled >= self.cfg.pass_min_distance_m
                                    && t - prev.last_t <= self.cfg.pass_max_secs =>
                            {
                                kicked = Some(prev);
                                emit(
                                    EventKind::Pass,
                                    Some(prev.last_ball),
                                    prev.team,
                                    Some(prev.track_id),
                                    confidence,
                                    detail(&[
                                        ("receiver", Value::from(p.track_id)),
                                        ("distance_m", round2(travelled)),
                                        ("duration_secs", round2(t - prev.last_t)),
                                        ("end_x", round2(pos.x)),
                                        ("end_y", round2(pos.y)),
                                    ]),
                                );
                            }
                            _ => {}
                        }
                    }
                    emit(
                        EventKind::Possession,
                        Some(pos),
                        p.team,
                        Some(p.track_id),
                        confidence,
                        Map::new(),
                    );
                    self.holder = Some(new);
                    self.shot_armed = true;
                }
            }
            None => self.candidate = None,
        }

        // shot: fast, towards the goal mouth, within range; once per flight
        if let Some((vx, vy)) = velocity {
            let speed = vx.hypot(vy);
            if speed < 0.5 * self.cfg.shot_min_speed_mps {
                self.shot_armed = true;
            }
            if speed >= self.cfg.shot_min_speed_mps && self.shot_armed {
                for (line, name) in [(0.0, "left"), (LENGTH_M, "right")] {
                    let towards = if line == 0.0 { vx < 0.0 } else { vx > 0.0 };
                    if !towards {
                        continue;
                    }
                    let s = (line - pos.x) / vx;
                    let y = pos.y + vy * s;
                    let distance = pos.distance(&Point::new(line, y));
                    if (y - WIDTH_M / 2.0).abs() <= GOAL_HALF_WIDTH_M + self.cfg.shot_post_margin_m
                        && distance <= self.cfg.shot_max_distance_m
                    {
                        self.shot_armed = false;
                        let (team, player) = self
                            .holder
                            .map_or((None, None), |h| (h.team, Some(h.track_id)));
                        let on_target = (y - WIDTH_M / 2.0).abs() < GOAL_HALF_WIDTH_M;
                        emit(
                            EventKind::Shot,
                            Some(pos),
                            team,
                            player,
                            ball.confidence,
                            detail(&[
                                ("goal", Value::from(name)),
                                ("speed_mps", round2(speed)),
                                ("distance_m", round2(distance)),
                                ("on_target", Value::from(on_target)),
                            ]),
                        );
                    }
                }
            }
        }
        // a pass is known when it is received but dated when the ball left the passer (as
        // match data is: the truth, Opta, StatsBomb); its id stays unique among the events of
        // that earlier frame by a sequence number above theirs
        if let Some(from) = kicked {
            for e in out.iter_mut().filter(|e| e.kind == EventKind::Pass) {
                e.frame_number = from.last_frame;
                e.video_timestamp = from.last_t;
                e.timestamp = from.last_unix;
                e.seq = e.seq.saturating_add(BACKDATED_SEQ);
            }
        }
        out
    }
}

/// Added to the sequence number of an event dated to an earlier frame than the one that found it.
const BACKDATED_SEQ: u16 = 0x100;

#[cfg(test)]
mod tests;
