//! Identities that outlive the player tracker's tracks: re-identification by pitch position.
//!
//! The tracker ([`crate::track`]) keeps an id while it can follow a box from frame to frame.
//! When a player leaves the picture (the camera pans away), is missed for a few frames, or the
//! picture cuts to another shot and back, the tracker starts a new track. [`IdentityKeeper`]
//! sits after it and maps tracker ids to the ids that are published: a new track takes over
//! the identity of a recently vanished one when its pitch position is where that player could
//! be by now (a radius that grows with the time away), the team is not the other one, and no
//! other vanished identity is nearly as close. Without a camera (no pitch positions) a new
//! track gets a fresh, provisional id: the first frame with a camera may still hand it a
//! vanished identity (a shot's first frame has no camera, and every track starts there).
//! An identity seen without a camera keeps the last pitch position it had, and the time of it.

use std::collections::HashMap;

use sportz_contract::{ObjectClass, TeamSide};

use crate::Point;

/// Settings of the identity keeper.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IdentityConfig {
    /// Radius around the last pitch position at no time away, metres.
    pub base_radius_m: f64,
    /// Added to the radius per second away, m/s (a running player's sustained pace).
    pub speed_mps: f64,
    /// The radius never grows beyond this, metres: after a long time away only a track in the
    /// same part of the pitch (and no rival) takes the identity over.
    pub max_radius_m: f64,
    /// Identities away longer than this are not taken over, seconds.
    pub max_gap_secs: f64,
    /// The nearest vanished identity is taken only if the next one is this much farther
    /// (in units of their radii); otherwise the new track gets a fresh id.
    pub margin: f64,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            base_radius_m: 1.5,
            speed_mps: 4.0,
            max_radius_m: 25.0,
            max_gap_secs: 8.0,
            margin: 0.35,
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
}

#[derive(Debug, Clone)]
struct Identity {
    tracker_id: u64,
    last_seen: f64,
    /// The last pitch position seen and when.
    last_pitch: Option<(Point, f64)>,
    referee: bool,
}

impl Identity {
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
}

impl IdentityKeeper {
    #[must_use]
    pub fn new(cfg: IdentityConfig) -> Self {
        Self {
            cfg,
            published_of: HashMap::new(),
            identities: HashMap::new(),
            next_id: 1,
        }
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
        let present: Vec<u64> = ids.iter().flatten().copied().collect();
        // observations that may take a vanished identity over: new tracks, and tracks whose id
        // is still provisional
        let mut free: Vec<bool> = ids
            .iter()
            .map(|id| {
                id.is_none_or(|id| self.identities.get(&id).is_some_and(Identity::provisional))
            })
            .collect();
        // (normalised distance, observation, identity) for every plausible take-over
        let mut pairs: Vec<(f64, usize, u64)> = Vec::new();
        for (i, o) in observed.iter().enumerate() {
            let Some(p) = o.pitch.filter(|_| free[i]) else {
                continue;
            };
            let referee = o.class == Some(ObjectClass::Referee);
            for (&id, who) in &self.identities {
                let Some((q, at)) = who.last_pitch else {
                    continue;
                };
                let gap = t_secs - at;
                if present.contains(&id) || t_secs <= who.last_seen || gap > cfg.max_gap_secs {
                    continue;
                }
                if who.referee != referee || sides_differ(team_of(id), o.side) {
                    continue;
                }
                let radius = (cfg.base_radius_m + cfg.speed_mps * gap).min(cfg.max_radius_m);
                let d = p.distance(&q) / radius;
                if d <= 1.0 {
                    pairs.push((d, i, id));
                }
            }
        }
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
        let mut out = Assigned::default();
        let mut taken: Vec<u64> = Vec::new();
        for &(d, i, id) in &pairs {
            if !free[i] || taken.contains(&id) {
                continue;
            }
            // ambiguous: another free identity nearly as close to this track, or another new
            // track nearly as close to this identity
            let rival = pairs.iter().any(|&(d2, i2, id2)| {
                d2 < d + cfg.margin
                    && ((i2 == i && id2 != id && !taken.contains(&id2))
                        || (id2 == id && i2 != i && free[i2]))
            });
            if rival {
                continue;
            }
            if let Some(provisional) = ids[i] {
                // the fresh id this track had without a camera goes
                self.identities.remove(&provisional);
            }
            ids[i] = Some(id);
            free[i] = false;
            taken.push(id);
            let who = &self.identities[&id];
            out.superseded.push(who.tracker_id);
            out.recovered.push((id, t_secs - who.last_seen));
            self.published_of.remove(&who.tracker_id);
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
                .map(|p| (p, t_secs))
                .or_else(|| before.and_then(|w| w.last_pitch));
            let identity = Identity {
                tracker_id: o.tracker_id,
                last_seen: t_secs,
                last_pitch,
                referee: o.class == Some(ObjectClass::Referee),
            };
            self.identities.insert(id, identity);
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
            self.published_of.remove(&tracker_id);
        }
        out.ids = ids.into_iter().flatten().collect();
        out
    }
}

fn sides_differ(a: Option<TeamSide>, b: Option<TeamSide>) -> bool {
    matches!(
        (a, b),
        (Some(TeamSide::Home), Some(TeamSide::Away)) | (Some(TeamSide::Away), Some(TeamSide::Home))
    )
}

#[cfg(test)]
mod tests;
