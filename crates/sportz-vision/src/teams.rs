//! Teams by shirt colour: the mean colour of each player's torso (grass pixels left out), two
//! clusters by k-means with outliers (referees, goalkeepers) set aside, and a vote per track over
//! its life so a player's side does not flicker with one bad crop.
//!
//! Which cluster is `home` is a convention: the darker shirt colour (lower R+G+B). The UI may swap.
//! Referees (by detector class, or by colour) and goalkeepers (whose shirts match neither team)
//! come out as `other`.
//!
//! The colours published for drawing the sides ([`TeamAssigner::kit_colours`]) come from [`kit`]:
//! the dominant shirt colour, which the mean torso colour is not.

use std::collections::HashMap;

use sportz_contract::{ObjectClass, TeamSide};
use thiserror::Error;

use crate::{BBox, RgbImage};

mod kit;
pub use kit::{KIT_SAMPLE, KitPixels, dominant_colour, kit_pixels, shirt_sample};

/// A colour as RGB in `0..=1`.
pub type Colour = [f32; 3];

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum TeamError {
    #[error("need at least {needed} distinct shirt colours to find two teams, got {found}")]
    TooFewColours { needed: usize, found: usize },
}

/// The mean colour of the torso of a person's box (the middle half across, from 15% to 50% down),
/// without grass-green pixels; `None` when the box is off the image or mostly grass.
#[must_use]
pub fn torso_colour(image: &RgbImage<'_>, bbox: &BBox) -> Option<Colour> {
    kit::shirt_sample(image, bbox).0
}

/// Grass-green: green above both red and blue by more than 15.
fn is_grass([r, g, b]: [u8; 3]) -> bool {
    let (r, g, b) = (i32::from(r), i32::from(g), i32::from(b));
    g > r + 15 && g > b + 15
}

fn dist(a: &Colour, b: &Colour) -> f32 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y) * (x - y))
        .sum::<f32>()
        .sqrt()
}

fn mean(points: &[&Colour]) -> Colour {
    let n = points.len().max(1) as f32;
    let mut m = [0.0; 3];
    for p in points {
        for (a, v) in m.iter_mut().zip(p.iter()) {
            *a += v / n;
        }
    }
    m
}

fn nearest_of(centres: &[Colour; 2], c: &Colour) -> usize {
    usize::from(dist(c, &centres[1]) < dist(c, &centres[0]))
}

/// Lloyd iterations where members farther than `tau` do not move their centre; the cost counts
/// them as `tau²`.
fn trimmed_lloyd(samples: &[Colour], mut centres: [Colour; 2], tau: f32) -> ([Colour; 2], f32) {
    for _ in 0..30 {
        let mut groups: [Vec<&Colour>; 2] = [Vec::new(), Vec::new()];
        for s in samples {
            let k = nearest_of(&centres, s);
            if dist(s, &centres[k]) <= tau {
                groups[k].push(s);
            }
        }
        let next: [Colour; 2] = std::array::from_fn(|k| {
            if groups[k].is_empty() {
                centres[k]
            } else {
                mean(&groups[k])
            }
        });
        if next == centres {
            break;
        }
        centres = next;
    }
    let cost = samples
        .iter()
        .map(|s| {
            let d = dist(s, &centres[nearest_of(&centres, s)]);
            d.min(tau).powi(2)
        })
        .sum();
    (centres, cost)
}

/// Settings of the team clustering.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeamConfig {
    /// Colours collected (over all tracks) before the two clusters are fitted.
    pub warmup_samples: usize,
    /// A colour farther than this many cluster spreads from both centres is an outlier…
    pub outlier_spreads: f32,
    /// …and also farther than this (RGB distance in 0..1 units). Players' shirts shade,
    /// carry numbers and mix with what is behind them: over four synthetic matches 5 % of a
    /// team's torso colours lie 0.12–0.18 from its median colour (the spread the first 40
    /// samples give is about 0.03), goalkeepers' and referees' 0.29 or more from the nearer
    /// team; at 0.12 a quarter of one team's samples were outliers (seed 46877's yellow shirts)
    /// and whole tracks of field players came out `other`.
    pub min_outlier_distance: f32,
    /// The clustering leaves colours farther than this from their centre out of the mean (a
    /// referee's or goalkeeper's shirt can neither seed nor drag a team).
    pub trim_distance: f32,
    /// Votes a track needs before it is given a side.
    pub min_votes: u32,
}

impl Default for TeamConfig {
    fn default() -> Self {
        Self {
            warmup_samples: 40,
            outlier_spreads: 3.0,
            min_outlier_distance: 0.22,
            trim_distance: 0.24,
            min_votes: 3,
        }
    }
}

/// Two shirt-colour clusters: `centres[0]` is home, `centres[1]` away.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TeamModel {
    pub centres: [Colour; 2],
    /// Median distance of each cluster's members to its centre.
    pub spreads: [f32; 2],
    outlier_spreads: f32,
    min_outlier_distance: f32,
}

impl TeamModel {
    /// Trimmed two-means: Lloyd iterations where colours farther than `trim_distance` from their
    /// centre do not move it, started from every pair of a few farthest-point seeds
    /// (deterministic), keeping the pair with the lowest trimmed cost. A referee's or goalkeeper's
    /// shirt can neither seed nor drag a team.
    pub fn fit(samples: &[Colour], cfg: &TeamConfig) -> Result<Self, TeamError> {
        let first = *samples.first().ok_or(TeamError::TooFewColours {
            needed: 2,
            found: 0,
        })?;
        let mut seeds = vec![first];
        while seeds.len() < 5 {
            let far = samples
                .iter()
                .map(|s| {
                    (
                        s,
                        seeds
                            .iter()
                            .map(|c| dist(s, c))
                            .fold(f32::INFINITY, f32::min),
                    )
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            match far {
                Some((s, d)) if d > 1e-3 => seeds.push(*s),
                _ => break,
            }
        }
        if seeds.len() < 2 {
            return Err(TeamError::TooFewColours {
                needed: 2,
                found: 1,
            });
        }
        let tau = cfg.trim_distance;
        let mut best: Option<([Colour; 2], f32)> = None;
        for i in 0..seeds.len() {
            for j in i + 1..seeds.len() {
                let (centres, cost) = trimmed_lloyd(samples, [seeds[i], seeds[j]], tau);
                if best.is_none_or(|(_, c)| cost < c) {
                    best = Some((centres, cost));
                }
            }
        }
        let (mut centres, _) = best.expect("at least one seed pair");
        let brightness = |c: &Colour| c.iter().sum::<f32>();
        if brightness(&centres[1]) < brightness(&centres[0]) {
            centres.swap(0, 1);
        }
        // robust spread: the median distance of each cluster's members (within tau) to its centre
        let spreads = std::array::from_fn(|k| {
            let mut d: Vec<f32> = samples
                .iter()
                .filter(|s| nearest_of(&centres, s) == k)
                .map(|s| dist(s, &centres[k]))
                .filter(|d| *d <= tau)
                .collect();
            d.sort_by(f32::total_cmp);
            d.get(d.len() / 2).copied().unwrap_or(0.0)
        });
        Ok(Self {
            centres,
            spreads,
            outlier_spreads: cfg.outlier_spreads,
            min_outlier_distance: cfg.min_outlier_distance,
        })
    }

    fn nearest(&self, c: &Colour) -> usize {
        nearest_of(&self.centres, c)
    }

    fn is_outlier(&self, c: &Colour, k: usize) -> bool {
        let d = dist(c, &self.centres[k]);
        d > self.min_outlier_distance && d > self.outlier_spreads * self.spreads[k]
    }

    /// How unsure the side of one colour is: its distance to the nearer centre over its
    /// distance to the farther (0: on a centre, 1: halfway between the two).
    #[must_use]
    pub fn ambiguity(&self, c: &Colour) -> f32 {
        let (a, b) = (dist(c, &self.centres[0]), dist(c, &self.centres[1]));
        if a.max(b) > 0.0 {
            a.min(b) / a.max(b)
        } else {
            1.0
        }
    }

    /// The side of one colour: the nearer centre, or `Other` for an outlier.
    #[must_use]
    pub fn classify(&self, c: &Colour) -> TeamSide {
        let k = self.nearest(c);
        if self.is_outlier(c, k) {
            TeamSide::Other
        } else if k == 0 {
            TeamSide::Home
        } else {
            TeamSide::Away
        }
    }
}

const SIDES: [TeamSide; 3] = [TeamSide::Home, TeamSide::Away, TeamSide::Other];

/// Collects torso colours per track, fits the model after the warm-up and keeps a vote per track.
#[derive(Debug, Clone)]
pub struct TeamAssigner {
    cfg: TeamConfig,
    model: Option<TeamModel>,
    warmup: Vec<Colour>,
    /// Colours seen before the model existed, per track, replayed as votes once it does.
    early: HashMap<u64, Vec<Colour>>,
    votes: HashMap<u64, [u32; 3]>,
    referees: HashMap<u64, u32>,
    /// Shirt pixels per side (`centres` order), for the published kit colours.
    kits: [kit::KitPool; 2],
}

impl TeamAssigner {
    #[must_use]
    pub fn new(cfg: TeamConfig) -> Self {
        Self {
            cfg,
            model: None,
            warmup: Vec::new(),
            early: HashMap::new(),
            votes: HashMap::new(),
            referees: HashMap::new(),
            kits: Default::default(),
        }
    }

    #[must_use]
    pub const fn model(&self) -> Option<&TeamModel> {
        self.model.as_ref()
    }

    /// One observation of a track: its detector class and torso colour (if a crop was usable).
    pub fn observe(&mut self, track_id: u64, class: Option<ObjectClass>, colour: Option<Colour>) {
        if class == Some(ObjectClass::Referee) {
            *self.referees.entry(track_id).or_default() += 1;
            return;
        }
        let Some(colour) = colour else { return };
        match &self.model {
            Some(model) => self.vote(track_id, model.classify(&colour)),
            None => {
                self.warmup.push(colour);
                let early = self.early.entry(track_id).or_default();
                if early.len() < 16 {
                    early.push(colour);
                }
                if self.warmup.len() >= self.cfg.warmup_samples
                    && let Ok(model) = TeamModel::fit(&self.warmup, &self.cfg)
                {
                    self.model = Some(model);
                    self.warmup = Vec::new();
                    for (id, colours) in std::mem::take(&mut self.early) {
                        for c in colours {
                            self.vote(id, model.classify(&c));
                        }
                    }
                }
            }
        }
    }

    /// Shirt pixels of one person ([`kit_pixels`]) with its torso colour: pooled for the side
    /// that colour says once the model exists; referees' and outliers' are not.
    pub fn observe_kit(
        &mut self,
        class: Option<ObjectClass>,
        colour: Option<Colour>,
        pixels: &KitPixels,
    ) {
        if class == Some(ObjectClass::Referee) || pixels.as_slice().is_empty() {
            return;
        }
        let (Some(model), Some(colour)) = (&self.model, colour) else {
            return;
        };
        let k = match model.classify(&colour) {
            TeamSide::Home => 0,
            TeamSide::Away => 1,
            TeamSide::Other => return,
        };
        self.kits[k].add(pixels.as_slice());
    }

    /// The colours to draw the two sides in (home, away): each side's dominant shirt colour
    /// once enough of its pixels are pooled, its cluster centre until then; `None` before the
    /// model exists.
    #[must_use]
    pub fn kit_colours(&self) -> Option<[Colour; 2]> {
        let model = self.model.as_ref()?;
        Some(std::array::from_fn(|k| {
            self.kits[k].colour().unwrap_or(model.centres[k])
        }))
    }

    fn vote(&mut self, track_id: u64, side: TeamSide) {
        let i = SIDES.iter().position(|s| *s == side).unwrap_or(2);
        self.votes.entry(track_id).or_default()[i] += 1;
    }

    /// Whether the two sides wear one kit: both sides' pooled shirt colours are known and lie
    /// within [`kit::ONE_KIT_RGB`] of each other, so the clustering split one kit by shading or
    /// numbers, not two teams (`sportz synth --one-kit`). Sides are then not told apart.
    #[must_use]
    pub fn one_kit(&self) -> bool {
        match (self.kits[0].colour(), self.kits[1].colour()) {
            (Some(a), Some(b)) => dist(&a, &b) * 255.0 < kit::ONE_KIT_RGB,
            _ => false,
        }
    }

    /// The track's side by majority over its life; `None` until it has enough votes, and for
    /// the two teams' sides when both wear one kit ([`Self::one_kit`]).
    #[must_use]
    pub fn team_of(&self, track_id: u64) -> Option<TeamSide> {
        let votes = self.votes.get(&track_id).copied().unwrap_or_default();
        let refs = self.referees.get(&track_id).copied().unwrap_or(0);
        if refs > 0 && refs >= votes.iter().sum::<u32>() {
            return Some(TeamSide::Other);
        }
        let (i, n) = votes
            .iter()
            .enumerate()
            .max_by_key(|(i, n)| (**n, std::cmp::Reverse(*i)))?;
        let side = (*n >= self.cfg.min_votes).then_some(SIDES[i])?;
        (side == TeamSide::Other || !self.one_kit()).then_some(side)
    }

    /// Drops a finished track's votes.
    pub fn forget(&mut self, track_id: u64) {
        self.votes.remove(&track_id);
        self.early.remove(&track_id);
        self.referees.remove(&track_id);
    }
}

#[cfg(test)]
mod tests;
