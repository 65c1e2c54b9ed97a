//! The event engine: pure, one step per frame, times taken from the frame (never the wall clock).
//!
//! - `ball_lost`: the ball was tracked and is gone for `ball_lost_frames` frames.
//! - `possession`: one player is the nearest to the ball, within `possession_distance_m`, for
//!   `possession_frames` consecutive frames, and was not already the holder (who stays the
//!   nearest against a player less than `possession_keep_m` nearer); at the start and
//!   after a goal, the kick-off: the player last at the ball on the centre spot, published once
//!   the ball has left the spot and dated to that last frame (the kick; the ball waiting on the
//!   spot is nobody's, and no pass flies to it).
//! - `possession_change`: a new holder of the other team than the previous one (of the two
//!   sides: a player the shirt clustering put in neither, `other`, is no side — a pass to or
//!   from him is neither completed nor intercepted). After a ball out over a touchline the
//!   side that has the ball next got it by the throw-in: the change is dated to the throw when
//!   it was seen — the last frame the ball, held up for it, was seen at rest for
//!   `possession_frames` or more before it set off, or its release seen beyond the line, or
//!   the thrower's ball first seen in the air — else to when it left the nearer touchline,
//!   going back from where the ball came down at `throw_speed_mps` — with no player (the thrower is not seen; he holds the ball overhead), `restart:
//!   throw_in` and the receiver as `received_by`; with it the thrower's `possession` and his
//!   `pass` to the receiver (`complete`; throw-ins are passes in match data), by nobody known.
//!   A holder at the ball within twice `possession_frames` of the throw is the thrower himself:
//!   the change is his, and no throw pass.
//! - `pass`: a new holder, the ball having travelled at least `pass_received_min_m` within
//!   `pass_max_secs` from the previous one: `outcome` `complete` to a teammate, `intercepted`
//!   by an opponent (then also a `possession_change`), as match data counts pass attempts;
//!   published on reception, dated to the frame the ball left the passer. A kick that nobody
//!   receives is an attempt too: the ball `pass_min_distance_m` from the passer's last touch
//!   and at least twice the reach from the passer, and no new holder `pass_max_secs` after the
//!   touch: `outcome` `out` if the ball went over a touchline meanwhile, else `unreceived` —
//!   unless the flight was a shot, went in, or left over a goal line (a shot wide or a cross).
//!   [`EventEngine::finish`] publishes a kick still in flight when the stream ends (`unknown`)
//!   and a ball out over a goal line still waiting for its confirmation.
//! - `shot`: (not while the ball is dead after a goal) the ball at `shot_min_speed_mps` or faster (no faster than a ball is kicked,
//!   `shot_max_speed_mps`), heading between the posts of a goal
//!   within `shot_max_distance_m` (once per flight); and a goal's flight with no shot seen
//!   (a ball in the air projects beyond the posts): the holder's last touch, if within
//!   `shot_max_distance_m` of the goal but beyond twice `possession_distance_m` of the line
//!   (a player beside the ball as it crosses is no shot), and `pass_max_secs` before it,
//!   published with the goal
//!   and dated to the kick.
//! - `ball_out`: the ball beyond the lines by `ball_out_margin_m` for `ball_out_frames` detected
//!   frames (not when it went in), dated to the exit. Over a goal line it is published
//!   `goal_confirm_secs` later unless the ball turns up in the net meanwhile; over a touchline
//!   `touchline_confirm_secs` later unless the ball comes back into play meanwhile (a ball in
//!   the air over the far half projects beyond the far touchline) — except when it was seen
//!   surely beyond the line (beyond the line the camera stands behind, where nothing in the
//!   air is read: `BallObs::camera_at`), then it is out whatever follows. Its `restart`
//!   detail: `throw_in` over a touchline; over a goal line `corner_kick` when the last holder's
//!   side defends that goal, `goal_kick` when the other side does (which side defends which
//!   goal: `ends.rs`, from where the sides stand), none when either is unknown.
//!   A ball out nobody saw (a ball lofted over the far touchline, in the air as it crosses and
//!   lost before it lands) is found by its throw-in: the ball back in play within
//!   `throw_in_band_m` of a touchline after `restart_gap_secs` without a position on the pitch
//!   (no ball out or goal published meanwhile) went out over that line — dated to the last
//!   frame it was seen out (lying beyond the lines, or come down there from its flight), else
//!   to where its flight was lost (the last frame it was still seen in the air), at the spot
//!   its release was seen beyond the line (else where it came back), confidence 0.5; its kick
//!   is a pass nobody received (`out`). So is a throw thrown far: the ball back on the pitch
//!   within `throw_reach_m` of a touchline after that gap, come down from sightings in the air
//!   that began after its earlier flight was lost (the thrower's ball overhead beyond the far
//!   touchline, and its throw, read far beyond the line: nothing of it is placed before it
//!   lands). Neither a ball moving beyond the lines (in the air, or
//!   in the thrower's hands) nor the painted centre spot with no kick-off awaited (the
//!   detector's best "ball" while the real one is held up) is the ball back on the pitch.
//! - `goal`: the ball crosses a goal line between the posts, or lies in the net (behind the line,
//!   between the posts, within `net_depth_m`) for `ball_out_frames` detected frames — a ball
//!   flying in above the ground is projected beyond the far post by the ground homography and
//!   looks like a miss until it drops. Dated to the crossing or the exit.
//!
//! After a ball out or a goal, the ball counts as back in play once it is seen inside the lines
//! for `ball_out_frames` detected frames (a stray detection on the pitch does not re-arm them),
//! and after a goal not before `goal_dead_secs` (the celebration and the kick-off: a white
//! spot taken for the ball meanwhile does not make a second goal).
//!
//! Everything but `ball_lost` needs pitch positions (a calibration); a ball position far outside
//! the pitch (a ball in the air, projected through the ground homography) is ignored.

use std::collections::VecDeque;

use serde_json::{Map, Value};
use sportz_contract::{EventKind, TeamSide};

use crate::Point;
use crate::pitch::{GOAL_HALF_WIDTH_M, LENGTH_M, WIDTH_M, is_inside, surely_beyond_a_line};

/// Stamps kept for dating back (6 s at 25 fps; a throw flies under 2 s).
const RECENT_FRAMES: usize = 150;

mod ends;

/// Every threshold of the engine.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EventConfig {
    pub ball_lost_frames: u32,
    pub possession_distance_m: f64,
    pub possession_frames: u32,
    /// The holder stays the nearest player to the ball while within `possession_distance_m`
    /// of it and no other player is this much nearer (an opponent jockeying in front of the
    /// carrier stands at the ball too: without this the possession flips between them).
    pub possession_keep_m: f64,
    /// How far a kick nobody received must take the ball from the passer's last touch.
    pub pass_min_distance_m: f64,
    /// How far the ball must travel between the passer's last touch and a new holder for a
    /// pass: less than for a kick nobody received, the receiver confirms it (short passes, and
    /// passes intercepted a step away, are common; the ball's position is good to about a metre).
    pub pass_received_min_m: f64,
    pub pass_max_secs: f64,
    pub shot_min_speed_mps: f64,
    /// Faster is no kick but a ball track hopping between candidates (after a goal, around the
    /// net: false shots at 62–93 m/s on three of ten tuning seeds).
    pub shot_max_speed_mps: f64,
    pub shot_max_distance_m: f64,
    /// A shot may head this far outside a post and still count (the keeper may save it).
    pub shot_post_margin_m: f64,
    /// Ball speed is measured over this many seconds of detected positions.
    pub speed_window_secs: f64,
    pub ball_out_frames: u32,
    pub ball_out_margin_m: f64,
    /// A ball read beyond the line the camera stands behind is surely out
    /// (`BallObs::camera_at`) only from a detection at least this confident: on the shared
    /// real clip a weak "ball" (0.25–0.33) stood 1.9 m beyond the near touchline for ten
    /// frames while the real one was dribbled along it.
    pub sure_out_confidence: f64,
    /// How long a ball out over a goal line waits for the ball to turn up in the net.
    pub goal_confirm_secs: f64,
    /// How long a ball out over a touchline waits for the ball to come back into play (then it
    /// never went out: a ball in the air over the far half projects beyond the far touchline —
    /// the four false ball outs of the first five tuning seeds were lofted passes received a
    /// second later; a ball dribbled along the near touchline is seen a metre beyond it):
    /// moving at `back_in_play_mps` or faster over `ball_out_frames` or more detected frames
    /// inside the lines (not a ball lying on the line), the first of them no more than
    /// `back_jump_m` from where the ball was last seen. A ball that did go out comes back
    /// only by a throw-in, seconds later — and, held up for it, jumps metres inside the near
    /// touchline.
    pub touchline_confirm_secs: f64,
    pub back_in_play_mps: f64,
    pub back_jump_m: f64,
    /// How far behind the goal line the net reaches, with room for the camera's error.
    pub net_depth_m: f64,
    /// After a goal the ball is dead for at least this long.
    pub goal_dead_secs: f64,
    /// A ball unseen on the pitch for at least this long that comes back in play within
    /// `throw_in_band_m` of a touchline came back by a throw-in: it went out over that line
    /// unseen (a ball lofted over the far touchline is in the air as it crosses, projected far
    /// beyond the line, and lost before it lands). Longer than a long ball hangs in the air.
    pub restart_gap_secs: f64,
    pub throw_in_band_m: f64,
    /// ... or, thrown far, within this of a touchline coming down from the air: seen in the
    /// air (no place on the pitch) up to `throw_landing_secs` before, in sightings that began
    /// after the earlier flight was lost — the thrower's ball held up overhead and its flight.
    /// A throw-in is thrown 10–20 m (the tuning seeds' far-touchline throw-ins came down
    /// 11–16 m in; the thrower's ball overhead beyond the far touchline reads tens of metres
    /// beyond it, so nothing of the throw is placed before it lands).
    pub throw_reach_m: f64,
    pub throw_landing_secs: f64,
    /// A throw-in nobody saw taken (the thrower and the ball in his hands unseen — beyond the far
    /// touchline the ball is small and read far beyond the line) is dated back from where the
    /// ball came down: its distance from the line at this speed, m/s (the tuning seeds'
    /// far-touchline throws flew 13–15 m in 1.4–1.5 s; a real throw-in leaves the hands at
    /// 10–15 m/s).
    pub throw_speed_mps: f64,
    /// A ball position farther than this outside the lines is not on the ground (a ball in the
    /// air projects far beyond the pitch, even above the horizon): the frame is ignored.
    pub implausible_beyond_m: f64,
    /// A ball placed in the air higher than this (metres, its underside; `BallObs::height_m`)
    /// is in flight: out of every player's reach, over the crossbar's height near it, and
    /// treated as a ball in the air without a place (nobody has it, it crosses no line).
    pub in_flight_above_m: f64,
    /// At the start and after a goal, a ball within this of the centre spot is the kick-off:
    /// the player last at it there has the ball from that frame on, once it has left the spot
    /// (the kick-off pass is often seen only as the ball leaves the spot, after a cut back from
    /// the celebrations; while the ball waits on the spot, nobody has it yet).
    pub kickoff_spot_m: f64,
    /// After a goal, detected frames with the ball beyond `pass_min_distance_m` of the spot,
    /// once it was seen there, that end the wait for a kick-off nobody was seen to take.
    pub kickoff_missed_frames: u32,
}

impl EventConfig {
    /// Below this the ball is not in flight (m/s): half a shot's least speed. A ball this slow
    /// re-arms the shot detector, and one this slow beyond a line is lying out there.
    fn settled_mps(&self) -> f64 {
        0.5 * self.shot_min_speed_mps
    }
}

impl Default for EventConfig {
    fn default() -> Self {
        Self {
            // half a second without a ball (after the tracker's own coasting): a dropout of a
            // frame or two is not news
            ball_lost_frames: 12,
            possession_distance_m: 1.5,
            possession_frames: 5,
            possession_keep_m: 0.6,
            pass_min_distance_m: 5.0,
            pass_received_min_m: 2.5,
            pass_max_secs: 5.0,
            shot_min_speed_mps: 15.0,
            shot_max_speed_mps: crate::ball::MAX_BALL_MPS,
            shot_max_distance_m: 35.0,
            shot_post_margin_m: 1.0,
            speed_window_secs: 0.12,
            ball_out_frames: 3,
            ball_out_margin_m: 0.3,
            sure_out_confidence: 0.5,
            goal_confirm_secs: 2.0,
            touchline_confirm_secs: 1.2,
            back_in_play_mps: 3.0,
            back_jump_m: 4.0,
            net_depth_m: 3.0,
            goal_dead_secs: 10.0,
            restart_gap_secs: 2.5,
            throw_in_band_m: 3.0,
            throw_reach_m: 25.0,
            throw_landing_secs: 0.6,
            throw_speed_mps: 10.0,
            implausible_beyond_m: 10.0,
            in_flight_above_m: 2.0,
            kickoff_spot_m: 2.0,
            kickoff_missed_frames: 25,
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
    /// The frame had a camera: a ball without `pitch` is then one in the air (or off the
    /// pitch), still seen — not a close-up or a replay.
    pub with_camera: bool,
    /// How high the ball is, metres, when its flight placed it (`pitch` is then under it).
    pub height_m: Option<f64>,
    /// Where the camera stands on the ground (metres), when known: a ball read beyond a line
    /// the camera stands beyond too is surely out, however high it is
    /// ([`crate::pitch::surely_beyond_a_line`]).
    pub camera_at: Option<Point>,
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

/// When an event happened: the frame, its video time and its Unix time.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Stamp {
    frame: u64,
    t: f64,
    unix: f64,
}

impl Stamp {
    const fn of(f: &EventFrame<'_>) -> Self {
        Self {
            frame: f.frame_number,
            t: f.video_timestamp,
            unix: f.timestamp,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Holder {
    track_id: u64,
    team: Option<TeamSide>,
    /// Got the ball at a kick-off (the pass then starts from the centre spot).
    kickoff: bool,
    /// The last frame and ball position with the ball at the holder's feet.
    last: Stamp,
    last_ball: Point,
}

/// A player taking the ball: who, how far from it, when and where it was.
#[derive(Debug, Clone, Copy)]
struct Taking {
    player: PlayerObs,
    distance: f64,
    at: Stamp,
    ball: Point,
    /// The ball's (detection's) confidence.
    confidence: f64,
}

/// A ball out, waiting to be published: over a goal line unless it turns out to be a goal, over
/// a touchline unless it comes back into play.
#[derive(Debug, Clone, Copy)]
struct Exit {
    goal_line: bool,
    at: Stamp,
    pitch: Point,
    team: Option<TeamSide>,
    player: Option<u64>,
    confidence: f64,
    restart: Option<&'static str>,
    /// Seen surely beyond the line (`BallObs::camera_at`): not undone by the ball seen inside
    /// again — a ball picked up beyond the near touchline is read inside it while in the hands.
    sure: bool,
}

/// A frame, and where on the pitch the ball was seen in it.
type Sighting = (Stamp, Point);

/// The last detected ball position on the pitch, for a ball out seen only by its throw-in.
#[derive(Debug, Clone, Copy)]
struct GroundSeen {
    at: Stamp,
    /// Seen out: lying beyond the lines, or come down there from its flight (not a ball in
    /// the air projected beyond them).
    seen_out: bool,
    /// The last frame the ball was still seen after it (in the air, with a camera; holes of
    /// up to `ball_lost_frames` frames): where its flight was lost.
    flight_end: Stamp,
    /// The first sighting beyond the lines after the flight was lost: a throw-in's release.
    released: Option<Sighting>,
}

/// A kick found after the fact (a pass attempt nobody received, a shot seen only by its
/// goal), ready to publish.
#[derive(Debug, Clone)]
struct FoundKick {
    at: Stamp,
    pitch: Point,
    team: Option<TeamSide>,
    player: u64,
    confidence: f64,
    details: Map<String, Value>,
}

impl FoundKick {
    /// The holder's last touch, found after the fact (so with half the confidence of a kick
    /// seen as such).
    fn from_holder(h: &Holder, details: Map<String, Value>) -> Self {
        Self {
            at: h.last,
            pitch: h.last_ball,
            team: h.team,
            player: h.track_id,
            confidence: 0.5,
            details,
        }
    }
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
    /// The last frames' stamps, for an event dated back to a moment no sighting marks.
    recent: VecDeque<Stamp>,
    /// The ball's first place on the pitch after a ball out over a touchline: where the throw
    /// came down.
    landed: Option<Sighting>,
    shot_armed: bool,
    out_frames: u32,
    /// One of those frames saw the ball surely beyond the lines.
    out_sure: bool,
    /// Consecutive detected frames with the ball inside the lines, and where the first was
    /// (when reached at a ball's speed).
    in_frames: u32,
    in_from: Option<(f64, Point)>,
    /// Consecutive detected frames with the ball in a net.
    net_frames: u32,
    out_fired: bool,
    goal_fired: bool,
    /// Video time of the last goal.
    last_goal_t: Option<f64>,
    pending_exit: Option<Exit>,
    previous_pitch: Option<Point>,
    last_ground: Option<GroundSeen>,
    /// The last run of sightings in the air that did not continue a flight (its first and last
    /// frames, holes of up to `ball_lost_frames`): a thrower's ball and its throw.
    unplaced: Option<(Stamp, Stamp)>,
    /// The last detected frame with the ball on the pitch, and for how many detected frames
    /// in a row up to it the ball was at rest (slower than `back_in_play_mps`).
    last_seen: Option<(Stamp, Point, u32)>,
    /// Where and when the ball last set off after resting for `possession_frames` or more: the
    /// last frame at rest (a throw, after the ball was held up for it), or the release of a
    /// throw-in seen beyond the line.
    moved_from: Option<Sighting>,
    /// A ball out over a touchline (when it went out) since anybody last had the ball: the
    /// next holder's side got it by the throw-in.
    throw_in_after: Option<Stamp>,
    /// Since the holder's last touch: the ball has left the passer (far from the touch and
    /// from the passer), the farthest it got from the touch, and whether the flight was a shot.
    kick_far: bool,
    kick_reach: f64,
    kick_shot: bool,
    /// The ball went out over a touchline since the kick.
    kick_out: bool,
    /// The last touch (frame) whose kick was published as a pass nobody received.
    kick_closed: Option<u64>,
    /// Waiting for a kick-off: at the start (until anybody has the ball) or after a goal (until
    /// the kick-off, with or without the ball seen at anybody's feet on the spot).
    kickoff: Option<Kickoff>,
    /// While waiting for a kick-off: the player last at the ball on the centre spot.
    kicker: Option<Taking>,
    /// Which goal each side defends.
    ends: ends::Ends,
}

/// Which kick-off the engine waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kickoff {
    Start,
    /// After a goal: `None` until the ball is seen on the spot, then the detected frames
    /// since with the ball away from it.
    AfterGoal(Option<u32>),
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
            recent: VecDeque::new(),
            landed: None,
            shot_armed: true,
            out_frames: 0,
            out_sure: false,
            in_frames: 0,
            in_from: None,
            net_frames: 0,
            out_fired: false,
            goal_fired: false,
            last_goal_t: None,
            pending_exit: None,
            previous_pitch: None,
            last_ground: None,
            last_seen: None,
            moved_from: None,
            throw_in_after: None,
            unplaced: None,
            kick_far: false,
            kick_reach: 0.0,
            kick_shot: false,
            kick_out: false,
            kick_closed: None,
            kickoff: Some(Kickoff::Start),
            kicker: None,
            ends: ends::Ends::new(),
        }
    }

    /// A new holder: the pass or interception from the previous one, a change of side, the
    /// possession itself (`kickoff`: taken at a kick-off; `outside`: the ball beyond the lines).
    fn take_ball(&mut self, emit: &mut Emitted, w: &Taking, kickoff: bool, outside: bool) {
        let (p, now, pos, t) = (w.player, w.at, w.ball, w.at.t);
        let confidence = w.confidence * (1.0 - 0.5 * w.distance / self.cfg.possession_distance_m);
        let new = Holder {
            track_id: p.track_id,
            team: p.team,
            kickoff,
            last: now,
            last_ball: pos,
        };
        // picked up beyond the lines (for the throw-in, the goal kick): the kick
        // went out, nobody received it
        if outside && let Some(k) = self.unreceived_pass(Some(pos), false) {
            emit_kick(emit, EventKind::Pass, k);
        }
        if let Some(prev) = self.holder {
            // a kick-off is taken from the spot
            let from = if prev.kickoff
                && prev.last_ball.distance(&CENTRE_SPOT) <= self.cfg.kickoff_spot_m
            {
                CENTRE_SPOT
            } else {
                prev.last_ball
            };
            let travelled = from.distance(&pos);
            // (not a kick already published as a pass nobody received)
            let kicked = travelled >= self.cfg.pass_received_min_m
                && t - prev.last.t <= self.cfg.pass_max_secs
                && self.kick_closed != Some(prev.last.frame);
            // (between the two sides: a player of neither, an outlier in no kit, is no side)
            let side = |t: Option<TeamSide>| t.filter(|s| *s != TeamSide::Other);
            let other_team =
                matches!((side(prev.team), side(p.team)), (Some(a), Some(b)) if a != b);
            let same_team = matches!((side(prev.team), side(p.team)), (Some(a), Some(b)) if a == b);
            // after a ball out over a touchline the side that has the ball next got it by the
            // throw-in: the change is dated to the throw (by a thrower unseen, the ball held up
            // overhead), when the ball was seen setting off from rest after the exit
            let thrown = self.throw_in_after.and_then(|exit| {
                self.moved_from
                    .filter(|(s, _)| s.frame >= exit.frame && t - s.t <= self.cfg.pass_max_secs)
                    .or_else(|| self.unseen_throw(exit))
            });
            // a pass is an attempt: completed to a teammate or intercepted by an
            // opponent (as match data counts them); known on reception, dated to
            // the kick
            if kicked && (same_team || other_team) {
                let (outcome, to) = if same_team {
                    ("complete", "receiver")
                } else {
                    ("intercepted", "intercepted_by")
                };
                emit.push(
                    EventKind::Pass,
                    prev.last,
                    Some(from),
                    prev.team,
                    Some(prev.track_id),
                    confidence,
                    detail(&[
                        ("outcome", Value::from(outcome)),
                        (to, Value::from(p.track_id)),
                        ("distance_m", round2(travelled)),
                        ("duration_secs", round2(t - prev.last.t)),
                        ("end_x", round2(pos.x)),
                        ("end_y", round2(pos.y)),
                    ]),
                );
            }
            if other_team {
                let mut pairs = vec![
                    ("from_player", Value::from(prev.track_id)),
                    (
                        "from_team",
                        serde_json::to_value(prev.team).unwrap_or(Value::Null),
                    ),
                ];
                // (a holder at the ball from the throw on is the thrower himself)
                let received = thrown.filter(|(throw, _)| {
                    now.frame.saturating_sub(throw.frame)
                        > 2 * u64::from(self.cfg.possession_frames)
                });
                let (at, place, player) = match (thrown, received) {
                    (Some((throw, from)), Some(_)) => {
                        pairs.extend([
                            ("restart", Value::from("throw_in")),
                            ("received_by", Value::from(p.track_id)),
                        ]);
                        (throw, from, None)
                    }
                    (Some((throw, from)), None) => {
                        pairs.push(("restart", Value::from("throw_in")));
                        (throw, from, Some(p.track_id))
                    }
                    (None, _) => (now, pos, Some(p.track_id)),
                };
                emit.push(
                    EventKind::PossessionChange,
                    at,
                    Some(place),
                    p.team,
                    player,
                    confidence,
                    detail(&pairs),
                );
                // the thrower had the ball, and threw it to the receiver, his teammate: a
                // pass (throw-ins are passes in match data), by a player unseen
                if let Some((throw, from)) = received {
                    let restart = ("restart", Value::from("throw_in"));
                    emit.push(
                        EventKind::Possession,
                        throw,
                        Some(from),
                        p.team,
                        None,
                        confidence,
                        detail(std::slice::from_ref(&restart)),
                    );
                    emit.push(
                        EventKind::Pass,
                        throw,
                        Some(from),
                        p.team,
                        None,
                        confidence,
                        detail(&[
                            ("outcome", Value::from("complete")),
                            ("receiver", Value::from(p.track_id)),
                            ("distance_m", round2(from.distance(&pos))),
                            ("duration_secs", round2(t - throw.t)),
                            ("end_x", round2(pos.x)),
                            ("end_y", round2(pos.y)),
                            restart,
                        ]),
                    );
                }
            }
        }
        self.throw_in_after = None;
        emit.push(
            EventKind::Possession,
            now,
            Some(pos),
            p.team,
            Some(p.track_id),
            confidence,
            if kickoff {
                detail(&[("restart", Value::from("kickoff"))])
            } else {
                Map::new()
            },
        );
        self.holder = Some(new);
        self.shot_armed = true;
    }

    /// Whether the ball is dead at video time `t` after a goal (`goal_dead_secs`).
    fn dead_after_goal(&self, t: f64) -> bool {
        self.last_goal_t
            .is_some_and(|g| t - g < self.cfg.goal_dead_secs)
    }

    /// A new last touch: any flight before it is over.
    fn touched(&mut self) {
        self.kick_far = false;
        self.kick_reach = 0.0;
        self.kick_shot = false;
        self.kick_out = false;
    }

    /// The holder's kick as a pass nobody received, if the ball left the holder, was no shot,
    /// and was not published yet; marks it published. `end`: where the ball was last seen;
    /// `ended`: the stream ended before the time was up.
    fn unreceived_pass(&mut self, end: Option<Point>, ended: bool) -> Option<FoundKick> {
        let h = self.holder?;
        if !self.kick_far || self.kick_shot || self.kick_closed == Some(h.last.frame) {
            return None;
        }
        self.kick_closed = Some(h.last.frame);
        let outcome = match (self.kick_out, ended) {
            (true, _) => "out",
            (false, false) => "unreceived",
            (false, true) => "unknown",
        };
        let mut pairs = vec![
            ("outcome", Value::from(outcome)),
            ("distance_m", round2(self.kick_reach)),
        ];
        if let Some(e) = end {
            pairs.extend([("end_x", round2(e.x)), ("end_y", round2(e.y))]);
        }
        // nobody confirmed it by receiving the ball
        Some(FoundKick::from_holder(&h, detail(&pairs)))
    }

    /// The shot a goal (crossing `line` at `at`) was scored from when none was published in
    /// its flight: the holder's last touch, when within the range and time of a shot and
    /// beyond twice the reach from the line.
    fn unseen_shot(&self, at: Stamp, line: Point, goal: &str) -> Option<FoundKick> {
        let h = self.holder.filter(|_| !self.kick_shot)?;
        let distance = h.last_ball.distance(&line);
        let secs = at.t - h.last.t;
        // (a player beside the ball as it crosses the line is no kick from there)
        if distance < 2.0 * self.cfg.possession_distance_m
            || distance > self.cfg.shot_max_distance_m
            || !(0.0..=self.cfg.pass_max_secs).contains(&secs)
        {
            return None;
        }
        // seen in by the goal, not in flight
        Some(FoundKick::from_holder(
            &h,
            detail(&[
                ("goal", Value::from(goal)),
                ("speed_mps", round2(distance / secs.max(1e-3))),
                ("distance_m", round2(distance)),
                ("on_target", Value::from(true)),
            ]),
        ))
    }

    /// Whether a sighting now continues the ball's flight since it was last on the ground
    /// (seen at most `ball_lost_frames` frames before).
    fn in_flight(&self, now: Stamp) -> bool {
        let hole = u64::from(self.cfg.ball_lost_frames);
        self.last_ground
            .is_some_and(|g| now.frame.saturating_sub(g.flight_end.frame) <= hole)
    }

    /// The ball seen in the air (with a camera; no position on the pitch, or one moving beyond
    /// the lines, `beyond`): its flight goes on — or, seen beyond the lines after the flight was
    /// lost, it is in a thrower's hands there.
    fn seen_in_flight(&mut self, now: Stamp, beyond: Option<Point>) {
        let flying = self.in_flight(now);
        if let Some(g) = self.last_ground.as_mut() {
            if flying {
                g.flight_end = now;
            } else if g.released.is_none() {
                g.released = beyond.map(|p| (now, p));
            }
        }
        if !flying {
            let hole = u64::from(self.cfg.ball_lost_frames);
            self.unplaced = Some(match self.unplaced {
                Some((first, last)) if now.frame.saturating_sub(last.frame) <= hole => (first, now),
                _ => (now, now),
            });
        }
    }

    /// The ball back in play within `throw_in_band_m` of a touchline after `restart_gap_secs`
    /// unseen on the pitch, or come down from a throw within `throw_reach_m` of one: a
    /// throw-in, so it went out over that line unseen — when it was seen lying beyond the
    /// lines, else when its flight was lost; and the throw, when it was seen: its release
    /// beyond that line, else the first sighting of the thrower's ball in the air (on the line
    /// where the ball came down). `None` when a ball out or a goal was published meanwhile.
    fn unseen_throw_in(&self, now: Stamp, pos: Point) -> Option<(Stamp, Point, Option<Sighting>)> {
        let g = self.last_ground?;
        if self.out_fired || !is_inside(pos, 0.0) || now.t - g.at.t < self.cfg.restart_gap_secs {
            return None;
        }
        let (band, reach) = (self.cfg.throw_in_band_m, self.cfg.throw_reach_m);
        let (line, from_line) = if pos.y <= WIDTH_M / 2.0 {
            (0.0, pos.y)
        } else {
            (WIDTH_M, WIDTH_M - pos.y)
        };
        let thrown = self.thrown(now);
        if from_line > band && (from_line > reach || thrown.is_none()) {
            return None;
        }
        let at = if g.seen_out { g.at } else { g.flight_end };
        // where it was thrown from, when the release was seen beyond this line
        let release = g.released.filter(|(_, r)| {
            if line == 0.0 {
                r.y < 0.0
            } else {
                r.y > WIDTH_M
            }
        });
        let x = release.map_or(pos.x, |(_, r)| r.x);
        let throw = release.or_else(|| thrown.map(|first| (first, Point::new(x, line))));
        Some((at, Point::new(x, line), throw))
    }

    /// A throw-in after the ball out at `exit` that nobody saw taken: dated back from where the
    /// ball came down by its distance from the nearer touchline at `throw_speed_mps` (not
    /// before the exit), on that line.
    fn unseen_throw(&self, exit: Stamp) -> Option<Sighting> {
        let (down, p) = self.landed.filter(|(s, _)| s.frame >= exit.frame)?;
        let line = if p.y <= WIDTH_M / 2.0 { 0.0 } else { WIDTH_M };
        Some((self.thrown_back(down, p, exit), Point::new(p.x, line)))
    }

    /// When a throw that came down at `p` at `down` left the nearer touchline, at
    /// `throw_speed_mps` — the nearest frame kept, not before `since`.
    fn thrown_back(&self, down: Stamp, p: Point, since: Stamp) -> Stamp {
        let from_line = p.y.min(WIDTH_M - p.y).clamp(0.0, self.cfg.throw_reach_m);
        let at = down.t - from_line / self.cfg.throw_speed_mps;
        self.recent
            .iter()
            .filter(|s| s.frame >= since.frame && s.t <= down.t)
            .min_by(|a, b| (a.t - at).abs().total_cmp(&(b.t - at).abs()))
            .copied()
            .unwrap_or(down)
    }

    /// The ball comes down now from a throw: sightings in the air since it was last on the
    /// pitch, not continuing its flight (the thrower's ball held up overhead, then its flight),
    /// up to `throw_landing_secs` before — the first of them.
    fn thrown(&self, now: Stamp) -> Option<Stamp> {
        let on_pitch = self.last_ground.map(|g| g.at.t);
        self.unplaced
            .filter(|(first, last)| {
                on_pitch.is_none_or(|t| first.t > t)
                    && now.t - last.t <= self.cfg.throw_landing_secs
            })
            .map(|(first, _)| first)
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

    /// The end of the stream: what was waiting for frames that will not come — a ball out over
    /// a goal line not yet confirmed (published as a ball out), and a kick in flight (a pass
    /// with `outcome` `unknown`). Each is dated to its own frame.
    pub fn finish(&mut self) -> Vec<Event> {
        let mut emit = Emitted::new(u64::MAX, END_SEQ);
        if let Some(x) = self.pending_exit.take() {
            emit_exit(&mut emit, &x);
        }
        if let Some(k) = self.unreceived_pass(self.last_ball_pitch, true) {
            emit_kick(&mut emit, EventKind::Pass, k);
        }
        emit.out
    }

    /// One frame in, the events it produced out.
    pub fn step(&mut self, f: &EventFrame<'_>) -> Vec<Event> {
        let now = Stamp::of(f);
        if self.recent.len() == RECENT_FRAMES {
            self.recent.pop_front();
        }
        self.recent.push_back(now);
        // an event dated to an earlier frame than this one keeps its id unique among that
        // frame's events by a sequence number above theirs
        let mut emit = Emitted::new(now.frame, BACKDATED_SEQ);
        // a ball out that did not turn up in the net, or back in play, in time
        if let Some(x) = self.pending_exit.filter(|x| {
            let wait = if x.goal_line {
                self.cfg.goal_confirm_secs
            } else {
                self.cfg.touchline_confirm_secs
            };
            now.t - x.at.t >= wait
        }) {
            self.pending_exit = None;
            emit_exit(&mut emit, &x);
        }
        // a kick nobody received in time
        if self
            .holder
            .is_some_and(|h| now.t - h.last.t > self.cfg.pass_max_secs)
            && let Some(k) = self.unreceived_pass(self.last_ball_pitch, false)
        {
            emit_kick(&mut emit, EventKind::Pass, k);
        }
        // the holder's side, once the team assigner knows it (the first seconds of a stream)
        if let Some(h) = self.holder.as_mut().filter(|h| h.team.is_none()) {
            h.team = in_frame(f, h.track_id).and_then(|p| p.team);
        }
        self.ends.observe(f.video_timestamp, f.players);
        let (holder_team, holder_id) = self
            .holder
            .map_or((None, None), |h| (h.team, Some(h.track_id)));
        let Some(ball) = f.ball else {
            self.missing_frames += 1;
            if self.had_ball && self.missing_frames >= self.cfg.ball_lost_frames {
                self.had_ball = false;
                emit.push(
                    EventKind::BallLost,
                    now,
                    self.last_ball_pitch,
                    holder_team,
                    holder_id,
                    1.0,
                    Map::new(),
                );
            }
            self.candidate = None;
            self.previous_pitch = None;
            return emit.out;
        };
        self.had_ball = true;
        self.missing_frames = 0;
        let Some(pos) = ball
            .pitch
            .filter(|p| is_inside(*p, self.cfg.implausible_beyond_m))
            .filter(|_| {
                ball.height_m
                    .is_none_or(|h| h <= self.cfg.in_flight_above_m)
            })
        else {
            if ball.with_camera && !ball.predicted {
                self.seen_in_flight(now, None);
            }
            return emit.out;
        };
        self.last_ball_pitch = Some(pos);
        let t = f.video_timestamp;

        // goal: the ball crossed a goal line between the posts since the last position, or
        // lies in a net
        let mut goal: Option<(Stamp, Point, &str)> = None;
        if let Some(prev) = self.previous_pitch {
            for (line, name) in [(0.0, "left"), (LENGTH_M, "right")] {
                let crossed =
                    (prev.x - line) * (pos.x - line) < 0.0 || (pos.x == line && prev.x != line);
                let outward = if line == 0.0 {
                    pos.x < prev.x
                } else {
                    pos.x > prev.x
                };
                if crossed && outward {
                    let y = prev.y + (pos.y - prev.y) * (line - prev.x) / (pos.x - prev.x);
                    if between_the_posts(y, 0.0) {
                        goal = Some((now, Point::new(line, y), name));
                    }
                }
            }
        }
        self.previous_pitch = Some(pos);
        let behind_a_goal_line = (-self.cfg.net_depth_m..0.0).contains(&pos.x)
            || (pos.x > LENGTH_M && pos.x <= LENGTH_M + self.cfg.net_depth_m);
        let in_net = behind_a_goal_line && between_the_posts(pos.y, 0.0);
        if ball.predicted {
            // a net is judged on detections only
        } else if in_net {
            self.net_frames += 1;
            if goal.is_none() && self.net_frames >= self.cfg.ball_out_frames {
                let (line, name) = if pos.x < 0.0 {
                    (0.0, "left")
                } else {
                    (LENGTH_M, "right")
                };
                let at = self
                    .pending_exit
                    .filter(|x| x.goal_line)
                    .map_or(now, |x| x.at);
                goal = Some((at, Point::new(line, pos.y), name));
            }
        } else {
            self.net_frames = 0;
        }
        if let Some((at, point, name)) = goal.filter(|_| !self.goal_fired) {
            self.goal_fired = true;
            // a goal is scored from a shot: one not seen as such (a ball in the air projects
            // beyond the posts) is the holder's last kick, dated to it
            if let Some(kick) = self.unseen_shot(at, point, name) {
                emit_kick(&mut emit, EventKind::Shot, kick);
            }
            // the kick went in: no pass; the next restart is a kick-off
            self.kick_closed = self.holder.map(|h| h.last.frame);
            self.kickoff = Some(Kickoff::AfterGoal(None));
            self.last_goal_t = Some(t);
            self.out_fired = true; // the ball is out because it went in
            self.pending_exit = None;
            emit.push(
                EventKind::Goal,
                at,
                Some(point),
                holder_team,
                holder_id,
                ball.confidence,
                detail(&[("goal", Value::from(name))]),
            );
        }

        // the holder's kick: the ball away from the last touch and from the holder (not the ball
        // placed on the spot for a kick-off: dead, no flight)
        let on_spot = pos.distance(&CENTRE_SPOT) <= self.cfg.kickoff_spot_m;
        let placed = self.kickoff.is_some() && on_spot;
        if let (Some(h), false, false) = (self.holder, ball.predicted, placed) {
            let from_touch = h.last_ball.distance(&pos);
            let from_holder = in_frame(f, h.track_id)
                .and_then(|p| p.pitch)
                .map(|p| p.distance(&pos));
            self.kick_reach = self.kick_reach.max(from_touch);
            if from_touch >= self.cfg.pass_min_distance_m
                && from_holder.is_none_or(|d| d >= 2.0 * self.cfg.possession_distance_m)
            {
                self.kick_far = true;
            }
        }

        // the ball back in play by a throw-in after it was unseen: it went out there
        if !ball.predicted
            && let Some((at, point, release)) = self.unseen_throw_in(now, pos)
        {
            self.out_fired = true;
            self.throw_in_after = Some(at);
            // the throw is dated by its release, or the thrower's ball in the air, where seen
            if release.is_some() {
                self.moved_from = release;
            }
            // inferred, not seen
            emit_exit(
                &mut emit,
                &Exit {
                    goal_line: false,
                    at,
                    pitch: point,
                    team: holder_team,
                    player: holder_id,
                    confidence: 0.5,
                    restart: Some("throw_in"),
                    sure: false,
                },
            );
            // the kick went out: a pass nobody received, or none
            self.kick_out = self.kick_far;
            if let Some(k) = self.unreceived_pass(Some(point), false) {
                emit_kick(&mut emit, EventKind::Pass, k);
            }
            self.kick_closed = self.holder.map(|h| h.last.frame);
        }

        // ball out: beyond the lines for k detected frames; back in play once seen inside for
        // k detected frames
        let outside = !is_inside(pos, self.cfg.ball_out_margin_m);
        if !outside && is_inside(pos, 0.0) {
            self.out_frames = 0;
            self.out_sure = false;
        }
        if !ball.predicted {
            if !is_inside(pos, 0.0) {
                self.in_frames = 0;
            } else {
                if self.in_frames == 0 {
                    // (not jumping in from where it was last seen: held up for a throw-in,
                    // the ball is seen metres inside the near touchline)
                    self.in_from = self
                        .history
                        .back()
                        .is_some_and(|(_, p0)| p0.distance(&pos) <= self.cfg.back_jump_m)
                        .then_some((t, pos));
                }
                self.in_frames += 1;
            }
            // back in play soon after a ball out over a touchline: it was in the air, or at a
            // dribbler's feet on the line
            if self.in_frames >= self.cfg.ball_out_frames
                && self.pending_exit.is_some_and(|x| !x.goal_line && !x.sure)
                && self.in_from.is_some_and(|(t0, p0)| {
                    p0.distance(&pos) >= self.cfg.back_in_play_mps * (t - t0).max(1e-6)
                })
            {
                self.pending_exit = None;
                self.kick_out = false;
                self.throw_in_after = None;
            }
            if self.in_frames >= self.cfg.ball_out_frames && !self.dead_after_goal(t) {
                self.out_fired = false;
                self.goal_fired = false;
            }
        }
        if outside && !ball.predicted {
            self.out_frames += 1;
            self.out_sure |= ball.confidence >= self.cfg.sure_out_confidence
                && ball
                    .camera_at
                    .is_some_and(|c| surely_beyond_a_line(pos, c, self.cfg.ball_out_margin_m));
            if let Some(x) = self.pending_exit.as_mut() {
                x.sure |= self.out_sure;
            }
            if self.out_frames >= self.cfg.ball_out_frames && !self.out_fired {
                self.out_fired = true;
                let at = Point::new(pos.x.clamp(0.0, LENGTH_M), pos.y.clamp(0.0, WIDTH_M));
                let goal_line = pos.x < 0.0 || pos.x > LENGTH_M;
                let restart = if goal_line {
                    // a kick out over a goal line is a shot wide or a cross: no pass
                    self.kick_closed = self.holder.map(|h| h.last.frame);
                    self.ends.goal_line_restart(pos.x < 0.0, holder_team)
                } else {
                    // a kick out over a touchline: a pass nobody received, unless somebody
                    // has the ball in time after all (a ball in the air projects beyond the
                    // line)
                    if self.kick_far {
                        self.kick_out = true;
                    }
                    self.throw_in_after = Some(now);
                    Some("throw_in")
                };
                // (an earlier exit still waiting is published, not overwritten)
                if let Some(x) = self.pending_exit.take() {
                    emit_exit(&mut emit, &x);
                }
                self.pending_exit = Some(Exit {
                    goal_line,
                    at: now,
                    pitch: at,
                    team: holder_team,
                    player: holder_id,
                    confidence: ball.confidence,
                    restart,
                    sure: self.out_sure,
                });
            }
        }

        if ball.predicted {
            return emit.out;
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

        // seen out: beyond the lines and slow there, by a speed measured over the window — or,
        // with no sighting on the pitch just before (no run of them to measure a speed over),
        // come down there from its flight. Any other sighting beyond the lines is moving: a
        // ball in the air projected past them (its flight goes on), or, after the flight was
        // lost, a throw-in's release — not the ball back on the pitch.
        let unbroken = self
            .history
            .iter()
            .rev()
            .nth(1)
            .is_some_and(|(t1, _)| t - t1 <= self.cfg.speed_window_secs);
        let speed = velocity.map(|(vx, vy)| vx.hypot(vy));
        let seen_out = !is_inside(pos, self.cfg.ball_out_margin_m)
            && if unbroken {
                speed.is_some_and(|v| v < self.cfg.settled_mps())
            } else {
                self.in_flight(now)
            };
        // the centre spot with no kick-off awaited is the paint: the detector's best "ball"
        // while the real one is held up for a throw-in
        let paint = on_spot && self.kickoff.is_none();
        if !is_inside(pos, 0.0) && !seen_out {
            self.seen_in_flight(now, Some(pos));
        } else if !paint {
            self.last_ground = Some(GroundSeen {
                at: now,
                seen_out,
                flight_end: now,
                released: None,
            });
        }

        // where the ball came down after a ball out over a touchline: the throw-in
        if !paint
            && is_inside(pos, 0.0)
            && let Some(exit) = self.throw_in_after
            && self.landed.is_none_or(|(s, _)| s.frame < exit.frame)
        {
            self.landed = Some((now, pos));
        }
        // where the ball last set off from rest (not from the paint)
        if !paint {
            let moving = speed.is_some_and(|v| v >= self.cfg.back_in_play_mps);
            let rested = self.last_seen.map_or(0, |(_, _, n)| n);
            if moving
                && rested >= self.cfg.possession_frames
                && let Some((at, p, _)) = self.last_seen
            {
                self.moved_from = Some((at, p));
            }
            let rest = match (moving, unbroken) {
                (true, _) => 0,
                (false, true) => rested + 1,
                (false, false) => 1,
            };
            self.last_seen = Some((now, pos, rest));
        }

        // possession (and the kick-off after a goal, when the ball leaves the spot unseen at
        // anybody's feet)
        if let Some(Kickoff::AfterGoal(away)) = self.kickoff {
            let away = match away {
                _ if on_spot => Some(0),
                Some(n) if pos.distance(&CENTRE_SPOT) > self.cfg.pass_min_distance_m => Some(n + 1),
                other => other,
            };
            // a second in play away from the spot: the kick-off was missed
            self.kickoff =
                (away < Some(self.cfg.kickoff_missed_frames)).then_some(Kickoff::AfterGoal(away));
        }
        // the ball has left the spot: the kick-off was taken by the player last at it
        if !on_spot && let Some(k) = self.kicker.take() {
            self.kickoff = None;
            self.take_ball(&mut emit, &k, true, false);
            self.candidate = None;
            self.touched();
        }
        let mut at_ball = f
            .players
            .iter()
            .filter_map(|p| p.pitch.map(|pp| (p, pp.distance(&pos))))
            .filter(|(_, d)| *d <= self.cfg.possession_distance_m);
        let nearest = at_ball.clone().min_by(|a, b| a.1.total_cmp(&b.1));
        // the holder keeps the ball against a player only a little nearer
        let holding = self.holder.map(|h| h.track_id);
        let nearest = at_ball
            .find(|(p, d)| {
                holding == Some(p.track_id)
                    && nearest.is_some_and(|(_, n)| *d <= n + self.cfg.possession_keep_m)
            })
            .or(nearest);
        match nearest {
            Some((p, d)) => {
                let count = match self.candidate {
                    Some((id, n)) if id == p.track_id => n + 1,
                    _ => 1,
                };
                self.candidate = Some((p.track_id, count));
                let is_holder = self.holder.is_some_and(|h| h.track_id == p.track_id);
                let mut touched = false;
                if is_holder {
                    if let Some(h) = self.holder.as_mut() {
                        // the ball at the feet for two frames running, not one stray detection
                        // beside the player after the kick (which would date the pass late)
                        if count >= 2 {
                            h.last = now;
                            h.last_ball = pos;
                            touched = true;
                        }
                    }
                } else if self.kickoff.is_some() && on_spot {
                    // the kick-off: the player at the ball on the spot has it from the kick (the
                    // last frame it lies there), published once it has left the spot
                    self.kicker = Some(Taking {
                        player: *p,
                        distance: d,
                        at: now,
                        ball: pos,
                        confidence: ball.confidence,
                    });
                } else if count >= self.cfg.possession_frames {
                    // at the start a first holder elsewhere ends the wait (the stream began in
                    // play); after a goal only the kick-off does
                    if self.kickoff == Some(Kickoff::Start) {
                        self.kickoff = None;
                    }
                    let taking = Taking {
                        player: *p,
                        distance: d,
                        at: now,
                        ball: pos,
                        confidence: ball.confidence,
                    };
                    self.take_ball(&mut emit, &taking, false, outside);
                    touched = true;
                }
                if touched {
                    self.touched();
                }
            }
            None => self.candidate = None,
        }

        // shot: fast, towards the goal mouth, within range; once per flight; not while the ball
        // is dead after a goal (it flies on into the net, or is knocked back from it)
        if let Some((vx, vy)) = velocity.filter(|_| !self.dead_after_goal(t)) {
            let speed = vx.hypot(vy);
            if speed < self.cfg.settled_mps() {
                self.shot_armed = true;
            }
            if (self.cfg.shot_min_speed_mps..=self.cfg.shot_max_speed_mps).contains(&speed)
                && self.shot_armed
            {
                for (line, name) in [(0.0, "left"), (LENGTH_M, "right")] {
                    let towards = if line == 0.0 { vx < 0.0 } else { vx > 0.0 };
                    if !towards {
                        continue;
                    }
                    let s = (line - pos.x) / vx;
                    let y = pos.y + vy * s;
                    let distance = pos.distance(&Point::new(line, y));
                    if between_the_posts(y, self.cfg.shot_post_margin_m)
                        && distance <= self.cfg.shot_max_distance_m
                    {
                        self.shot_armed = false;
                        self.kick_shot = true;
                        // the holder as of this frame (possession may have just changed)
                        let (team, player) = self
                            .holder
                            .map_or((None, None), |h| (h.team, Some(h.track_id)));
                        let on_target = between_the_posts(y, 0.0);
                        emit.push(
                            EventKind::Shot,
                            now,
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
        emit.out
    }
}

/// Whether a point `y` metres across a goal line is within `margin_m` of the goal mouth.
fn between_the_posts(y: f64, margin_m: f64) -> bool {
    (y - WIDTH_M / 2.0).abs() < GOAL_HALF_WIDTH_M + margin_m
}

/// The events of one call, numbered as they are published.
struct Emitted {
    out: Vec<Event>,
    /// The frame being stepped (events dated to an earlier one are numbered above `backdated`).
    now: u64,
    backdated: u16,
}

impl Emitted {
    const fn new(now: u64, backdated: u16) -> Self {
        Self {
            out: Vec::new(),
            now,
            backdated,
        }
    }

    #[expect(
        clippy::too_many_arguments,
        reason = "one event's fields, as the engine gives them"
    )]
    fn push(
        &mut self,
        kind: EventKind,
        at: Stamp,
        pitch: Option<Point>,
        team: Option<TeamSide>,
        player: Option<u64>,
        confidence: f64,
        details: Map<String, Value>,
    ) {
        let mut seq = u16::try_from(self.out.len()).unwrap_or(u16::MAX);
        if at.frame < self.now {
            seq = seq.saturating_add(self.backdated);
        }
        self.out.push(Event {
            kind,
            frame_number: at.frame,
            video_timestamp: at.t,
            timestamp: at.unix,
            seq,
            pitch,
            team,
            player_track_id: player,
            confidence: confidence.clamp(0.0, 1.0),
            details,
        });
    }
}

/// Publishes a ball out (one that was waiting to be confirmed, or one inferred).
fn emit_exit(emit: &mut Emitted, x: &Exit) {
    let line = if x.goal_line {
        "goal_line"
    } else {
        "touchline"
    };
    let mut details = detail(&[("line", Value::from(line))]);
    if let Some(r) = x.restart {
        details.insert("restart".to_owned(), Value::from(r));
    }
    emit.push(
        EventKind::BallOut,
        x.at,
        Some(x.pitch),
        x.team,
        x.player,
        x.confidence,
        details,
    );
}

/// Publishes a kick found after the fact.
fn emit_kick(emit: &mut Emitted, kind: EventKind, k: FoundKick) {
    emit.push(
        kind,
        k.at,
        Some(k.pitch),
        k.team,
        Some(k.player),
        k.confidence,
        k.details,
    );
}

/// The player with this track id in the frame, if seen.
fn in_frame<'a>(f: &EventFrame<'a>, track_id: u64) -> Option<&'a PlayerObs> {
    f.players.iter().find(|p| p.track_id == track_id)
}

/// The centre spot, where kick-offs are taken.
const CENTRE_SPOT: Point = Point::new(LENGTH_M / 2.0, WIDTH_M / 2.0);

/// Added to the sequence number of an event dated to an earlier frame than the one that found it.
const BACKDATED_SEQ: u16 = 0x100;

/// Added to the sequence number of an event published at the end of the stream (apart from
/// those backdated during it).
const END_SEQ: u16 = 0x200;

#[cfg(test)]
mod tests;
