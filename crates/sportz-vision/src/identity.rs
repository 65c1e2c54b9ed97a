//! Identities that outlive the player tracker's tracks: re-identification by pitch position.
//!
//! The tracker ([`crate::track`]) keeps an id while it can follow a box from frame to frame.
//! When a player leaves the picture (the camera pans away), is missed for a few frames, or the
//! picture cuts to another shot and back, the tracker starts a new track. [`IdentityKeeper`]
//! sits after it and maps tracker ids to the ids that are published: a new track takes over
//! the identity of a recently vanished one when its pitch position is where that player could
//! be by now (a radius that grows with the time away) and the team is not the other one (a
//! new track's role, and its side where its shirt colour lies unclearly between the kits, come
//! from a frame or two and are overruled right where the vanished player is looked for:
//! [`IdentityConfig::mismatch_gate_m`]). The
//! tracks free to take an identity over and the vanished identities are matched jointly (one
//! optimal assignment per frame, [`crate::assign`]) by how likely each pair is: after a cut a
//! whole group of players comes back at once, and its configuration, not each track's nearest
//! old position, says who is who; an identity seen a moment ago close by beats one long gone
//! whose wider radius also reaches. Without a camera (no pitch positions) a new
//! track gets a fresh, provisional id: the first frame with a camera may still hand it a
//! vanished identity (a shot's first frame has no camera, and every track starts there).
//! An identity seen without a camera keeps the last pitch position it had, and the time of it.
//! Across a cut ([`IdentityKeeper::cut`]) the radius starts wider: the new shot's camera sees
//! feet from another angle, and a close-up in between hid how the play moved. How far it moved
//! is read from the new shot's first frame with pitch positions: the shift that lays most of
//! the returning group onto players who vanished (on the tuning seeds' truth, over a close-up
//! or another camera's shot the group had moved 2–16 m; a median player moved 7 m, 3 m once the
//! group's shift is taken off).
//!
//! A vanished player is looked for where the play has taken him, not where he was: the keeper
//! integrates how far the players it keeps seeing move from frame to frame (the play's drift —
//! a team moves up and down the pitch as a block with the ball), and a vanished identity is
//! looked for moved by the drift since it was last seen. Only players seen in both frames
//! count, so neither a pan nor a cut, which change who is in the picture, moves the drift. On
//! the ten tuning seeds' truth (464 returns to the picture after ≥ 1 s away), a returning player
//! was a median 9.7 m from where he was last seen after 3–6 s away and 17.1 m after 12 s or
//! more; moved with the drift, 6.2 m and 6.0 m.

use std::collections::HashMap;

use sportz_contract::{ObjectClass, TeamSide};

use crate::Point;
use crate::assign::assign;

/// Settings of the identity keeper.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdentityConfig {
    /// Radius around the last pitch position at no time away, metres.
    pub base_radius_m: f64,
    /// Added to the radius per second away, m/s (a running player's sustained pace).
    pub speed_mps: f64,
    /// The radius never grows beyond this, metres: after a long time away only a track in the
    /// same part of the pitch takes the identity over.
    pub max_radius_m: f64,
    /// Identities away longer than this are not taken over, seconds. Long: a broadcast camera
    /// leaves one end of the pitch for half a minute and comes back to much the same players
    /// in much the same places (8 s → 30 s: tuning seed 55511 AssA 0.57 → 0.69).
    pub max_gap_secs: f64,
    /// Frames in a row a track must be seen after taking a vanished identity over before the
    /// identity's memory (where and when it was last seen) is its: a track gone sooner — a
    /// duplicate box, a one-frame false detection — gives the identity back as it was, so
    /// the player it belongs to can still take it when he comes back.
    pub confirm_frames: u32,
    /// Seconds a new track with no pitch position yet is held back (not published) while
    /// vanished identities wait for a camera. After a cut every track starts afresh and the
    /// new shot's camera comes a few frames later (1–6 offline, more live): published at once,
    /// each player showed a fresh id for those frames and then switched back to his own — two
    /// switches per player per cut (seed 10111: 61 switches → 34 with the hold). A track that
    /// still has no camera after this long (a close-up) is published with its fresh id.
    pub hold_secs: f64,
    /// How much of the play's drift since a vanished identity was last seen it is looked for
    /// with (0: where it was last seen; 1: moved with the drift).
    pub play_shift: f64,
    /// Players seen in two frames in a row a frame's step of the drift needs: one or two
    /// players are no play.
    pub drift_min_players: usize,
    /// A player moving faster than this between two frames (m/s) is left out of the drift: an
    /// id that jumped to someone else, or a camera's jump.
    pub drift_max_mps: f64,
    /// A continuing track farther than this plus `drift_max_mps` × the time since from where
    /// its identity was last seen on the pitch (metres) is someone else: the tracker matched a
    /// lost track again to a player far from the one it followed (seed 46877: 12.5 m away
    /// after 0.3 s, and the player, back a frame later, got a fresh id for 19 s). At 3 m a
    /// box's jitter of 3.8 m in one frame (seed 22013) split a player's id.
    pub jump_m: f64,
    /// Added to the radius of an identity last seen before the picture cut to the current
    /// shot, metres: another camera sees a player's feet from another angle, and the play
    /// went on unseen while the shot in between (a close-up) had no pitch.
    pub cut_slack_m: f64,
    /// After a cut, the first frame with pitch positions estimates how far the play moved
    /// while it was not followed (a close-up has no pitch, another camera sees it from
    /// elsewhere): the shift that carries most vanished identities to within this many metres
    /// of a new track of theirs (same side, same role), at most `regroup_max_shift_m` long and
    /// agreed by at least `regroup_min_pairs` pairs and half the new tracks. Identities seen
    /// before the cut are looked for moved by it for the rest of the shot.
    pub regroup_inlier_m: f64,
    pub regroup_max_shift_m: f64,
    pub regroup_min_pairs: usize,
    /// Within this many metres of where a vanished identity is looked for, a new track may take
    /// it over even when its class says the other role (a referee for a player) or, when this
    /// frame's shirt colour is unclear ([`IdentityConfig::unclear_side`]), the other side: a
    /// new track's class and side come from a frame or two. On four tuning seeds every role or
    /// side block within 1.5 m (10 of 10, seeds 10111, 55021, 22013) turned the player himself
    /// away, and he kept a fresh id for the rest of the match (seed 10111: 635 and 666 frames).
    pub mismatch_gate_m: f64,
    /// A side read from a shirt colour is unclear from this [`Observed::side_ambiguity`] on.
    /// The wrong readings that turned players away (seed 10111, kits #1f45c9 and #6fb3ec) had
    /// 0.53–0.83; with distinct kits (seeds 99103, 13579, 44017) the readings within 1.5 m of
    /// a vanished player of the other side had 0.04–0.17 and were right: two players of
    /// opposite sides in one spot, where overruling them swapped ids (seed 99103 HOTA 0.81 →
    /// 0.77).
    pub unclear_side: f32,
    /// Added to the surprise of a take-over across a side or role mismatch, so an identity
    /// that agrees wins over one that does not (a wrong side in one frame is about a 1-in-20
    /// event: −ln 0.05 ≈ 3).
    pub mismatch_penalty: f64,
    /// Added to the surprise of taking over an identity seen fewer than `confirm_frames`
    /// frames: more likely a second box on a player, or a box that flickered to a new track for
    /// a frame, than a player (seed 57131: a one-frame id, vanished 0.4 m from the player's
    /// own, took him back after a cut and kept him for 303 frames).
    pub brief_penalty: f64,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            base_radius_m: 1.5,
            speed_mps: 4.0,
            max_radius_m: 25.0,
            max_gap_secs: 30.0,
            confirm_frames: 5,
            hold_secs: 0.5,
            play_shift: 1.0,
            drift_min_players: 3,
            drift_max_mps: 12.0,
            jump_m: 6.0,
            cut_slack_m: 3.0,
            regroup_inlier_m: 3.0,
            regroup_max_shift_m: 20.0,
            regroup_min_pairs: 4,
            mismatch_gate_m: 1.5,
            unclear_side: 0.25,
            mismatch_penalty: 3.0,
            brief_penalty: 3.0,
        }
    }
}

/// One confirmed track in this frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Observed {
    pub tracker_id: u64,
    /// Foot point on the pitch, metres (`None` without a camera).
    pub pitch: Option<Point>,
    pub class: Option<ObjectClass>,
    /// The side this frame's shirt colour says (`None` before the kit colours are known).
    pub side: Option<TeamSide>,
    /// How unsure that reading is: the colour's distance to the nearer kit over its distance
    /// to the farther ([`crate::teams::TeamModel::ambiguity`]; 0: on a kit, 1: halfway).
    pub side_ambiguity: f32,
}

/// What [`IdentityKeeper::assign`] decided for one frame.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Assigned {
    /// The published id of each observation, in order.
    pub ids: Vec<u64>,
    /// Tracker ids whose identity a new track took over: the tracker should drop them (they
    /// may still be alive as lost tracks and would otherwise come back under a duplicate id).
    pub superseded: Vec<u64>,
    /// Identities taken over this frame: (published id, seconds it was away).
    pub recovered: Vec<(u64, f64)>,
    /// Whether each observation is held back this frame ([`IdentityConfig::hold_secs`]): its
    /// id is provisional and may yet become a vanished player's.
    pub held: Vec<bool>,
}

#[derive(Debug, Clone)]
struct Identity {
    tracker_id: u64,
    /// When this id was first published or held (the track's start for a fresh id).
    first_seen: f64,
    last_seen: f64,
    /// The last pitch position seen, when, and where the play was then.
    last_pitch: Option<Sighting>,
    /// Frames seen as a referee and frames seen with any class: the role is the majority's, not
    /// the last frame's (one frame of a player classed a referee made his identity a referee's,
    /// and his next track, a player again, could not take it back: seed 22013).
    referee_frames: u32,
    classed_frames: u32,
    /// Frames seen under this id.
    frames: u32,
    /// A take-over not yet confirmed: the frames seen since, and the memory before it.
    pending: Option<(u32, Memory)>,
}

/// Where and when an identity was last seen (what a take-over changes).
#[derive(Debug, Clone, Copy)]
struct Memory {
    last_seen: f64,
    last_pitch: Option<Sighting>,
}

/// Where an identity was seen on the pitch, when, and the play's drift then.
#[derive(Debug, Clone, Copy)]
struct Sighting {
    at: Point,
    t_secs: f64,
    drift: Point,
}

impl Sighting {
    /// Where the identity is looked for with the play's drift at `drift` now: moved with
    /// [`IdentityConfig::play_shift`] of the drift since it was seen.
    fn expected(&self, drift: Point, play_shift: f64) -> Point {
        Point::new(
            self.at.x + play_shift * (drift.x - self.drift.x),
            self.at.y + play_shift * (drift.y - self.drift.y),
        )
    }
}

impl Identity {
    /// Whether most frames with a class saw a referee.
    fn referee(&self) -> bool {
        2 * self.referee_frames > self.classed_frames
    }

    /// Never seen with a pitch position: a new track's fresh id that a vanished identity may
    /// still replace once the camera is back.
    fn provisional(&self) -> bool {
        self.last_pitch.is_none()
    }
}

/// Maps tracker ids to published ids, re-identifying players by pitch position and team.
#[derive(Debug, Clone)]
pub struct IdentityKeeper {
    cfg: IdentityConfig,
    published_of: HashMap<u64, u64>,
    identities: HashMap<u64, Identity>,
    next_id: u64,
    /// The play's drift so far: the sum of each frame's mean step of the players seen in it
    /// and the frame before, metres.
    drift: Point,
    /// The time of the last frame.
    last_t: Option<f64>,
    /// When the current shot began (the last cut).
    shot_start: f64,
    /// How far the play moved unseen over the last cut ([`IdentityConfig::regroup_inlier_m`]);
    /// `None` until the shot's first frame with pitch positions.
    shot_shift: Option<Point>,
}

impl IdentityKeeper {
    #[must_use]
    pub fn new(cfg: IdentityConfig) -> Self {
        Self {
            cfg,
            published_of: HashMap::new(),
            identities: HashMap::new(),
            next_id: 1,
            drift: Point::new(0.0, 0.0),
            last_t: None,
            shot_start: f64::NEG_INFINITY,
            shot_shift: None,
        }
    }

    /// The picture cut to another shot at `t_secs`: identities seen before are looked for with
    /// [`IdentityConfig::cut_slack_m`] more.
    pub fn cut(&mut self, t_secs: f64) {
        self.shot_start = t_secs;
        self.shot_shift = None;
    }

    /// One frame at video time `t_secs`: the tracker's confirmed tracks in, their published ids
    /// out. `team_of` gives an identity's side so far (a track is not taken for a player of the
    /// other side).
    pub fn assign(
        &mut self,
        t_secs: f64,
        observed: &[Observed],
        team_of: impl Fn(u64) -> Option<TeamSide>,
    ) -> Assigned {
        let cfg = self.cfg;
        let mut ids: Vec<Option<u64>> = observed
            .iter()
            .map(|o| self.published_of.get(&o.tracker_id).copied())
            .collect();
        // a track the tracker carried onto someone else (a lost track matched again far from
        // where its player was) is a new track: the identity stays where it was last seen.
        // When most continuing tracks jump at once it is the camera that jumped: ids stay.
        let jumped: Vec<bool> = ids
            .iter()
            .zip(observed)
            .map(|(slot, o)| slot.is_some_and(|id| self.jumped(id, o, t_secs)))
            .collect();
        let continuing = ids
            .iter()
            .zip(observed)
            .filter(|(slot, o)| slot.is_some() && o.pitch.is_some())
            .count();
        let jumps = jumped.iter().filter(|j| **j).count();
        if 2 * jumps < continuing {
            for ((slot, o), _) in ids
                .iter_mut()
                .zip(observed)
                .zip(&jumped)
                .filter(|(_, j)| **j)
            {
                self.published_of.remove(&o.tracker_id);
                *slot = None;
            }
        }
        let present: Vec<u64> = ids.iter().flatten().copied().collect();
        // observations that may take a vanished identity over: new tracks, and tracks whose id
        // is still provisional
        let free: Vec<bool> = ids
            .iter()
            .map(|id| {
                id.is_none_or(|id| self.identities.get(&id).is_some_and(Identity::provisional))
            })
            .collect();
        self.step_drift(t_secs, observed, &ids);
        let mut out = Assigned::default();
        for (i, id) in self.take_overs(t_secs, observed, &free, &present, &team_of) {
            if let Some(provisional) = ids[i] {
                // the fresh id this track had without a camera goes
                self.identities.remove(&provisional);
            }
            ids[i] = Some(id);
            let who = self.identities.get_mut(&id).expect("a vanished identity");
            if unmap(&mut self.published_of, who.tracker_id, id) {
                out.superseded.push(who.tracker_id);
            }
            out.recovered.push((id, t_secs - who.last_seen));
            let memory = Memory {
                last_seen: who.last_seen,
                last_pitch: who.last_pitch,
            };
            // a take-over of an unconfirmed take-over keeps the memory from before the first
            who.pending = Some((0, who.pending.map_or(memory, |(_, m)| m)));
        }
        for (slot, o) in ids.iter_mut().zip(observed) {
            let id = *slot.get_or_insert_with(|| {
                let id = self.next_id;
                self.next_id += 1;
                id
            });
            self.published_of.insert(o.tracker_id, id);
            let before = self.identities.get(&id);
            let last_pitch = o
                .pitch
                .map(|at| Sighting {
                    at,
                    t_secs,
                    drift: self.drift,
                })
                .or_else(|| before.and_then(|w| w.last_pitch));
            let pending = before
                .and_then(|w| w.pending)
                .map(|(n, m)| (n + 1, m))
                .filter(|(n, _)| *n < cfg.confirm_frames);
            let identity = Identity {
                tracker_id: o.tracker_id,
                first_seen: before.map_or(t_secs, |w| w.first_seen),
                last_seen: t_secs,
                last_pitch,
                referee_frames: before.map_or(0, |w| w.referee_frames)
                    + u32::from(o.class == Some(ObjectClass::Referee)),
                classed_frames: before.map_or(0, |w| w.classed_frames)
                    + u32::from(o.class.is_some()),
                frames: before.map_or(0, |w| w.frames) + 1,
                pending,
            };
            self.identities.insert(id, identity);
        }
        // unconfirmed take-overs whose track was not seen this frame are undone: the identity
        // is remembered where it was before, and the track, if it comes back, is a new one
        // (every identity seen this frame was just stamped `last_seen = t_secs`)
        for (&id, who) in &mut self.identities {
            if let Some((_, m)) = who.pending
                && who.last_seen < t_secs
            {
                unmap(&mut self.published_of, who.tracker_id, id);
                who.last_seen = m.last_seen;
                who.last_pitch = m.last_pitch;
                who.pending = None;
            }
        }
        // identities away too long are gone for good
        let expired: Vec<(u64, u64)> = self
            .identities
            .iter()
            .filter(|(_, w)| t_secs - w.last_seen > cfg.max_gap_secs)
            .map(|(&id, w)| (id, w.tracker_id))
            .collect();
        for (id, tracker_id) in expired {
            self.identities.remove(&id);
            unmap(&mut self.published_of, tracker_id, id);
        }
        out.ids = ids.into_iter().flatten().collect();
        out.held = self.held(t_secs, &out.ids);
        out
    }

    /// Whether the observation, continuing `id`'s track, is too far from where `id` was last
    /// seen on the pitch to be him: more than [`IdentityConfig::jump_m`] plus
    /// [`IdentityConfig::drift_max_mps`] × the time since.
    fn jumped(&self, id: u64, o: &Observed, t_secs: f64) -> bool {
        let seen = self.identities.get(&id).and_then(|w| w.last_pitch);
        match (o.pitch, seen) {
            (Some(now), Some(seen)) => {
                now.distance(&seen.at)
                    > self.cfg.jump_m + self.cfg.drift_max_mps * (t_secs - seen.t_secs)
            }
            _ => false,
        }
    }

    /// Adds this frame's step to the play's drift: the mean step since the last frame of the
    /// identities seen in both (`ids`: each observation's id before any take-over).
    fn step_drift(&mut self, t_secs: f64, observed: &[Observed], ids: &[Option<u64>]) {
        let Some(last_t) = self.last_t.replace(t_secs) else {
            return;
        };
        let max_step = self.cfg.drift_max_mps * (t_secs - last_t);
        let steps: Vec<Point> = observed
            .iter()
            .zip(ids)
            .filter_map(|(o, id)| {
                let seen = self.identities.get(&(*id)?)?.last_pitch?;
                let now = o.pitch?;
                (seen.t_secs == last_t && now.distance(&seen.at) <= max_step)
                    .then(|| Point::new(now.x - seen.at.x, now.y - seen.at.y))
            })
            .collect();
        if steps.len() >= self.cfg.drift_min_players.max(1) {
            let n = steps.len() as f64;
            self.drift.x += steps.iter().map(|p| p.x).sum::<f64>() / n;
            self.drift.y += steps.iter().map(|p| p.y).sum::<f64>() / n;
        }
    }

    /// Which of this frame's ids ([`Assigned::ids`]) are held back: provisional ones younger
    /// than [`IdentityConfig::hold_secs`] while some identity with a pitch position is away
    /// (one the track may turn out to be once the camera is back).
    fn held(&self, t_secs: f64, ids: &[u64]) -> Vec<bool> {
        let hold = self.cfg.hold_secs;
        let waiting = hold > 0.0
            && self
                .identities
                .values()
                .any(|w| w.last_seen < t_secs && w.last_pitch.is_some());
        ids.iter()
            .map(|id| {
                waiting
                    && self
                        .identities
                        .get(id)
                        .is_some_and(|w| w.provisional() && t_secs - w.first_seen < hold)
            })
            .collect()
    }

    /// Which free observations take which vanished identities over: one joint assignment
    /// (minimum total [`surprise`]) rather than one track at a time, so that after a cut, when
    /// a whole group of players comes back at once, each takes the identity the group's
    /// configuration says, not merely the nearest.
    fn take_overs(
        &mut self,
        t_secs: f64,
        observed: &[Observed],
        free: &[bool],
        present: &[u64],
        team_of: &impl Fn(u64) -> Option<TeamSide>,
    ) -> Vec<(usize, u64)> {
        let cfg = self.cfg;
        let rows: Vec<(usize, Point)> = observed
            .iter()
            .enumerate()
            .filter(|(i, _)| free[*i])
            .filter_map(|(i, o)| Some((i, o.pitch?)))
            .collect();
        let mut cols: Vec<Vanished> = self
            .identities
            .iter()
            .filter_map(|(&id, who)| {
                let seen = who.last_pitch?;
                let gap = t_secs - seen.t_secs;
                let vanished = !present.contains(&id) && t_secs > who.last_seen;
                (vanished && gap <= cfg.max_gap_secs).then(|| {
                    let before_cut = seen.t_secs < self.shot_start;
                    let slack = if before_cut { cfg.cut_slack_m } else { 0.0 };
                    Vanished {
                        id,
                        at: seen.expected(self.drift, cfg.play_shift),
                        radius: (cfg.base_radius_m + slack + cfg.speed_mps * gap)
                            .min(cfg.max_radius_m),
                        referee: who.referee(),
                        side: team_of(id),
                        before_cut,
                        brief: who.frames < cfg.confirm_frames,
                    }
                })
            })
            .collect();
        if rows.is_empty() || cols.is_empty() {
            return Vec::new();
        }
        // the shot's first frame with pitch positions (every track new) says how far the play
        // moved over the cut
        let with_pitch = observed.iter().filter(|o| o.pitch.is_some()).count();
        if self.shot_start.is_finite() && self.shot_shift.is_none() && rows.len() == with_pitch {
            let new: Vec<(Point, &Observed)> =
                rows.iter().map(|&(i, p)| (p, &observed[i])).collect();
            self.shot_shift =
                Some(regroup_shift(&cfg, &new, &cols).unwrap_or(Point::new(0.0, 0.0)));
        }
        if let Some(shift) = self.shot_shift {
            for c in cols.iter_mut().filter(|c| c.before_cut) {
                c.at = Point::new(c.at.x + shift.x, c.at.y + shift.y);
            }
        }
        cols.sort_by_key(|c| c.id);
        // surprise, infinite where the take-over is impossible
        let cost: Vec<Vec<f64>> = rows
            .iter()
            .map(|&(i, p)| {
                let o = &observed[i];
                cols.iter()
                    .map(|c| {
                        let metres = p.distance(&c.at);
                        let d = metres / c.radius;
                        let cost = surprise(d, c.radius / cfg.base_radius_m)
                            + if c.brief { cfg.brief_penalty } else { 0.0 };
                        if d > 1.0 {
                            f64::INFINITY
                        } else if c.may_be(o) {
                            cost
                        } else if metres <= cfg.mismatch_gate_m && c.may_be_misread(o, &cfg) {
                            cost + cfg.mismatch_penalty
                        } else {
                            f64::INFINITY
                        }
                    })
                    .collect()
            })
            .collect();
        assign(&cost, f64::INFINITY)
            .into_iter()
            .map(|(r, c)| (rows[r].0, cols[c].id))
            .collect()
    }
}

/// A vanished identity a new track may be: where it is looked for and how widely.
#[derive(Debug, Clone, Copy)]
struct Vanished {
    id: u64,
    at: Point,
    radius: f64,
    referee: bool,
    side: Option<TeamSide>,
    /// Last seen before the current shot began.
    before_cut: bool,
    /// Seen fewer than [`IdentityConfig::confirm_frames`] frames.
    brief: bool,
}

impl Vanished {
    /// Whether the observation may be this identity at all: the same role, not the other side.
    fn may_be(&self, o: &Observed) -> bool {
        self.referee == (o.class == Some(ObjectClass::Referee)) && !sides_differ(self.side, o.side)
    }

    /// Whether the observation may be this identity misread: its role, or an unclear side
    /// ([`IdentityConfig::mismatch_gate_m`]).
    fn may_be_misread(&self, o: &Observed, cfg: &IdentityConfig) -> bool {
        !sides_differ(self.side, o.side) || o.side_ambiguity >= cfg.unclear_side
    }
}

/// The shift of the play over a cut ([`IdentityConfig::regroup_inlier_m`]): among the offsets
/// from a vanished identity to a new track that may be it, the one that brings the most new
/// tracks within the inlier distance of such an identity (fewest metres left over on a tie),
/// refined by the mean offset left between those tracks and their nearest identities. `None`
/// when too few agree.
fn regroup_shift(
    cfg: &IdentityConfig,
    new: &[(Point, &Observed)],
    vanished: &[Vanished],
) -> Option<Point> {
    let may_be = |o: &Observed| {
        let o = *o;
        vanished
            .iter()
            .filter(move |v| v.before_cut && v.may_be(&o))
    };
    let offset = |p: Point, q: Point| Point::new(p.x - q.x, p.y - q.y);
    let length = |r: &Point| r.x.hypot(r.y);
    // each new track's offset from its nearest possible identity moved by `shift`, where
    // within the inlier distance
    let fit = |shift: Point| -> Vec<Point> {
        new.iter()
            .filter_map(|&(p, o)| {
                may_be(o)
                    .map(|v| offset(p, Point::new(v.at.x + shift.x, v.at.y + shift.y)))
                    .filter(|r| length(r) <= cfg.regroup_inlier_m)
                    .min_by(|a, b| length(a).total_cmp(&length(b)))
            })
            .collect()
    };
    let mut best: Option<(f64, Point, Vec<Point>)> = None;
    for &(p, o) in new {
        for v in may_be(o) {
            let shift = offset(p, v.at);
            if length(&shift) > cfg.regroup_max_shift_m {
                continue;
            }
            let left = fit(shift);
            let metres: f64 = left.iter().map(length).sum();
            if best.as_ref().is_none_or(|(m, _, l)| {
                left.len() > l.len() || (left.len() == l.len() && metres < *m)
            }) {
                best = Some((metres, shift, left));
            }
        }
    }
    let (_, shift, left) = best?;
    let n = left.len();
    if n < cfg.regroup_min_pairs || 2 * n < new.len() {
        return None;
    }
    let k = n as f64;
    Some(Point::new(
        shift.x + left.iter().map(|r| r.x).sum::<f64>() / k,
        shift.y + left.iter().map(|r| r.y).sum::<f64>() / k,
    ))
}

/// How unlikely a track is to be a vanished identity: the negative log-likelihood (up to a
/// constant) of a 2-D Gaussian whose σ is half the identity's radius, for a track `d` radii
/// away from where it was last seen, when the radius has grown `growth` times its base. An
/// identity seen a moment ago close by beats one long gone whose wide radius also reaches.
fn surprise(d: f64, growth: f64) -> f64 {
    2.0 * d * d + 2.0 * growth.ln()
}

/// Removes the tracker id's mapping if it still maps to `id` (a track that jumped to someone
/// else maps to another id now); whether it did.
fn unmap(published_of: &mut HashMap<u64, u64>, tracker_id: u64, id: u64) -> bool {
    let mapped = published_of.get(&tracker_id) == Some(&id);
    if mapped {
        published_of.remove(&tracker_id);
    }
    mapped
}

fn sides_differ(a: Option<TeamSide>, b: Option<TeamSide>) -> bool {
    matches!(
        (a, b),
        (Some(TeamSide::Home), Some(TeamSide::Away)) | (Some(TeamSide::Away), Some(TeamSide::Home))
    )
}

#[cfg(test)]
mod tests;
