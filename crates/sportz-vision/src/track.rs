//! The player tracker: ByteTrack-class two-stage association over a box Kalman filter.
//!
//! Each frame: predict every track; match confident detections to tracked and lost tracks
//! (optimal assignment), then once more with wider boxes for what is left; match the leftover
//! tracks to the low-confidence detections; match tentative tracks to what is left; start
//! tentative tracks from confident leftovers (birth) and drop tracks lost for too long (death).
//! A tentative track gets its id when it is confirmed, so ids are consecutive and a one-frame
//! false positive never consumes one.
//!
//! The association cost mixes overlap and motion: `(1 − w)·(1 − IoU) + w·min(d²/χ², 1)`, where the
//! IoU is of boxes grown by a buffer (C-BIoU: players stop and turn faster than a constant-velocity
//! filter expects, and small boxes soon stop overlapping their prediction) and `d²` is the
//! Mahalanobis distance from the Kalman prediction (two overlapping players are told apart by
//! where each was going). Pairs under the minimum IoU never match.

use std::collections::HashMap;

use sportz_contract::ObjectClass;

use crate::BBox;
use crate::assign::assign;
use crate::detect::Detection;
use crate::kalman::BoxKalman;
use crate::teams::Colour;

/// Euclidean distance of two RGB colours (0..1 per channel).
fn colour_distance(a: &Colour, b: &Colour) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// Thresholds of the tracker: ByteTrack's, plus the buffers and the motion share of the cost
/// (tuned on the SoccerTrack sequences, see `tests/soccertrack_tracker.rs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackerConfig {
    /// Detections at or above this confidence take part in the first association.
    pub high_threshold: f32,
    /// Detections below this are ignored; between low and high they only extend tracked tracks.
    pub low_threshold: f32,
    /// A detection left unmatched starts a track only at or above this confidence (birth).
    pub birth_threshold: f32,
    /// Minimum IoU to match in the first association.
    pub first_min_iou: f32,
    /// Boxes are grown by this fraction of their size on each side before the IoU of every
    /// association (buffered IoU, C-BIoU).
    pub buffer: f32,
    /// A second cascade for confident detections and tracks left unmatched, with this wider
    /// buffer (players stop and turn abruptly; small boxes stop overlapping their prediction).
    pub wide_buffer: f32,
    /// Minimum IoU to match a low-confidence detection.
    pub second_min_iou: f32,
    /// Minimum IoU to confirm a tentative track.
    pub tentative_min_iou: f32,
    /// Frames a track may go unmatched before it is dropped (death).
    pub max_lost_frames: u64,
    /// Weigh IoU by the detection's confidence in the confident associations (ByteTrack's
    /// `fuse_score`).
    pub fuse_confidence: bool,
    /// Let lost tracks, not only tracked ones, take low-confidence detections.
    pub low_for_lost: bool,
    /// Share of the association cost that is motion (the squared Mahalanobis distance of the
    /// detection from the track's Kalman prediction) rather than overlap: it tells apart
    /// overlapping players by where each was going.
    pub motion_weight: f64,
    /// The squared Mahalanobis distance (4 degrees of freedom) at which the motion cost
    /// saturates at 1.
    pub motion_saturation_chi2: f64,
    /// Added to the association cost at most, for a detection whose shirt colour differs from
    /// the track's (when both are known, [`ByteTracker::update_with_colours`]): two players of
    /// different teams crossing keep their own tracks. 0.6: a track then takes a detection of
    /// the other kit only on a near-perfect overlap and motion (0.3 before; tuning seeds 55511 and
    /// 64029 AssA 0.69 → 0.77 and 0.57 → 0.65; the shared real clip 35 → 36 ids).
    pub appearance_weight: f64,
    /// The colour distance (RGB, 0..1 per channel, Euclidean) at which that term is full.
    pub appearance_saturation: f64,
}

impl Default for TrackerConfig {
    fn default() -> Self {
        Self {
            high_threshold: 0.5,
            low_threshold: 0.1,
            birth_threshold: 0.6,
            first_min_iou: 0.2,
            buffer: 0.1,
            wide_buffer: 0.3,
            second_min_iou: 0.5,
            tentative_min_iou: 0.3,
            max_lost_frames: 30,
            fuse_confidence: false,
            low_for_lost: true,
            motion_weight: 0.5,
            motion_saturation_chi2: 50.0,
            appearance_weight: 0.6,
            appearance_saturation: 0.25,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Tentative,
    Tracked,
    Lost,
}

#[derive(Debug, Clone)]
struct Track {
    id: Option<u64>,
    kalman: BoxKalman,
    state: State,
    last_frame: u64,
    confidence: f32,
    class_votes: HashMap<ObjectClass, u32>,
    /// Running mean of the shirt colour of the track's detections, when given.
    colour: Option<Colour>,
}

impl Track {
    fn bbox(&self) -> BBox {
        let [cx, cy, w, h] = self.kalman.state();
        // pixel coordinates fit f32
        BBox::from_cxcywh(cx as f32, cy as f32, w as f32, h as f32)
    }

    fn class(&self) -> Option<ObjectClass> {
        // most votes; ties go to the more specific class (goalkeeper, referee before player)
        let rank = |c: &ObjectClass| match c {
            ObjectClass::Player => 0,
            ObjectClass::Goalkeeper => 1,
            ObjectClass::Referee => 2,
            ObjectClass::Ball => 3,
        };
        self.class_votes
            .iter()
            .max_by_key(|(c, n)| (**n, rank(c)))
            .map(|(c, _)| *c)
    }

    fn absorb(&mut self, d: &Detection, colour: Option<Colour>, frame: u64) {
        self.kalman.update(measure(&d.bbox));
        if let Some(c) = colour {
            self.colour = Some(match self.colour {
                Some(old) => std::array::from_fn(|k| 0.9 * old[k] + 0.1 * c[k]),
                None => c,
            });
        }
        self.last_frame = frame;
        self.confidence = d.confidence;
        if let Some(c) = d.class {
            *self.class_votes.entry(c).or_default() += 1;
        }
    }
}

fn measure(b: &BBox) -> [f64; 4] {
    let (cx, cy) = b.centre();
    [
        f64::from(cx),
        f64::from(cy),
        f64::from(b.width()),
        f64::from(b.height()),
    ]
}

/// A confirmed track as of the last step.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackedObject {
    pub track_id: u64,
    /// The detection box this frame.
    pub bbox: BBox,
    pub confidence: f32,
    /// The class most of the track's detections had.
    pub class: Option<ObjectClass>,
    /// Kalman velocity of the box centre, px/frame.
    pub velocity_px_per_frame: (f64, f64),
}

/// ByteTrack-class multi-object tracker for people.
#[derive(Debug, Clone)]
pub struct ByteTracker {
    cfg: TrackerConfig,
    tracks: Vec<Track>,
    frame: u64,
    next_id: u64,
}

impl ByteTracker {
    #[must_use]
    pub const fn new(cfg: TrackerConfig) -> Self {
        Self {
            cfg,
            tracks: Vec::new(),
            frame: 0,
            next_id: 1,
        }
    }

    /// Number of live tracks (tentative, tracked and lost).
    #[must_use]
    pub fn live_tracks(&self) -> usize {
        self.tracks.len()
    }

    /// Moves every track (tracked, lost and tentative) with the picture before the next
    /// [`update`](Self::update): `h` maps the previous frame's pixels to the coming frame's (the
    /// camera tracker's frame-to-frame motion). A pan or a zoom then no longer looks like every
    /// player jumping, and a lost track stays where its player is.
    pub fn compensate(&mut self, h: &crate::pitch::Homography) {
        for t in &mut self.tracks {
            t.kalman.warp(h);
        }
    }

    /// Drops the track with this id (its identity was taken over by another track).
    pub fn remove(&mut self, track_id: u64) {
        self.tracks.retain(|t| t.id != Some(track_id));
    }

    /// Drops every track (the picture cut to another shot: no box continues). Ids keep counting.
    pub fn reset(&mut self) {
        self.tracks.clear();
    }

    /// One frame: the detections (boxes in pixels) in, the confirmed tracks matched this frame out.
    /// The returned detections are the input ones with `track_id` (and a voted `class`) filled.
    pub fn update(&mut self, detections: &[Detection]) -> Vec<Detection> {
        self.update_tracks(detections)
            .into_iter()
            .map(|(i, t)| Detection {
                track_id: Some(t.track_id),
                class: t.class.or(detections[i].class),
                ..detections[i]
            })
            .collect()
    }

    /// Like [`update`](Self::update), with each detection's shirt colour (`colours[i]` for
    /// `detections[i]`; `None` where no crop was usable), which then weighs in the association;
    /// the index of each returned track's detection comes with it.
    pub fn update_with_colours(
        &mut self,
        detections: &[Detection],
        colours: &[Option<Colour>],
    ) -> Vec<(usize, Detection)> {
        self.update_tracks_with(detections, colours)
            .into_iter()
            .map(|(i, t)| {
                (
                    i,
                    Detection {
                        track_id: Some(t.track_id),
                        class: t.class.or(detections[i].class),
                        ..detections[i]
                    },
                )
            })
            .collect()
    }

    /// Like [`update`](Self::update), with the index of each track's detection and its velocity.
    pub fn update_tracks(&mut self, detections: &[Detection]) -> Vec<(usize, TrackedObject)> {
        self.update_tracks_with(detections, &[])
    }

    fn update_tracks_with(
        &mut self,
        detections: &[Detection],
        colours: &[Option<Colour>],
    ) -> Vec<(usize, TrackedObject)> {
        let colour_of = |d: usize| colours.get(d).copied().flatten();
        self.frame += 1;
        let frame = self.frame;
        let cfg = self.cfg;
        let valid =
            |d: &Detection| d.bbox.is_valid() && d.bbox.area() > 0.0 && d.confidence.is_finite();
        let high: Vec<usize> = (0..detections.len())
            .filter(|&i| valid(&detections[i]) && detections[i].confidence >= cfg.high_threshold)
            .collect();
        let low: Vec<usize> = (0..detections.len())
            .filter(|&i| {
                let c = detections[i].confidence;
                valid(&detections[i]) && c >= cfg.low_threshold && c < cfg.high_threshold
            })
            .collect();
        for t in &mut self.tracks {
            t.kalman.predict();
        }
        let mut matched_dets: Vec<(usize, usize)> = Vec::new(); // (track index, detection index)

        // 1. confident detections ↔ tracked and lost tracks, by buffered IoU and motion
        let pool: Vec<usize> = (0..self.tracks.len())
            .filter(|&t| self.tracks[t].state != State::Tentative)
            .collect();
        let (m1, pool_left, high_left) = self.associate(
            &pool,
            &high,
            (detections, colours),
            cfg.first_min_iou,
            cfg.buffer,
            true,
        );
        matched_dets.extend(m1);
        // 1b. the same with a wider buffer, for what the first pass left
        let (m1b, pool_left, high_left) = self.associate(
            &pool_left,
            &high_left,
            (detections, colours),
            cfg.first_min_iou,
            cfg.wide_buffer,
            true,
        );
        matched_dets.extend(m1b);

        // 2. low-confidence detections ↔ the tracks left (ByteTrack takes only tracked ones; lost
        // ones too here, at the stricter IoU, so a player seen weakly after a miss is not lost)
        let tracked_left: Vec<usize> = pool_left
            .iter()
            .copied()
            .filter(|&t| self.cfg.low_for_lost || self.tracks[t].state == State::Tracked)
            .collect();
        let (m2, tracked_unmatched, _) = self.associate(
            &tracked_left,
            &low,
            (detections, colours),
            cfg.second_min_iou,
            cfg.buffer,
            false,
        );
        matched_dets.extend(m2);
        for t in tracked_unmatched {
            self.tracks[t].state = State::Lost;
        }

        // 3. tentative tracks ↔ confident leftovers; unmatched tentative tracks die
        let tentative: Vec<usize> = (0..self.tracks.len())
            .filter(|&t| self.tracks[t].state == State::Tentative)
            .collect();
        let (m3, tentative_unmatched, high_left) = self.associate(
            &tentative,
            &high_left,
            (detections, colours),
            cfg.tentative_min_iou,
            cfg.buffer,
            true,
        );
        matched_dets.extend(m3);

        let mut out = Vec::new();
        for &(t, d) in &matched_dets {
            let track = &mut self.tracks[t];
            track.absorb(&detections[d], colour_of(d), frame);
            track.state = State::Tracked;
            if track.id.is_none() {
                track.id = Some(self.next_id);
                self.next_id += 1;
            }
        }
        let mut dead = tentative_unmatched;
        // 4. birth
        for d in high_left {
            let det = &detections[d];
            if det.confidence < cfg.birth_threshold {
                continue;
            }
            let mut track = Track {
                id: None,
                kalman: BoxKalman::new(measure(&det.bbox)),
                state: State::Tentative,
                last_frame: frame,
                confidence: det.confidence,
                class_votes: HashMap::new(),
                colour: colour_of(d),
            };
            if let Some(c) = det.class {
                track.class_votes.insert(c, 1);
            }
            // the first frame has nothing to confirm against: its tracks start confirmed
            if frame == 1 {
                track.state = State::Tracked;
                track.id = Some(self.next_id);
                self.next_id += 1;
            }
            self.tracks.push(track);
            if frame == 1 {
                matched_dets.push((self.tracks.len() - 1, d));
            }
        }
        for &(t, d) in &matched_dets {
            let track = &self.tracks[t];
            let [vx, vy, _, _] = track.kalman.velocity();
            out.push((
                d,
                TrackedObject {
                    track_id: track.id.expect("matched tracks are confirmed"),
                    bbox: detections[d].bbox,
                    confidence: detections[d].confidence,
                    class: track.class(),
                    velocity_px_per_frame: (vx, vy),
                },
            ));
        }
        // 5. death
        for (t, track) in self.tracks.iter().enumerate() {
            if track.state == State::Lost && frame - track.last_frame > cfg.max_lost_frames {
                dead.push(t);
            }
        }
        dead.sort_unstable();
        dead.dedup();
        for t in dead.into_iter().rev() {
            self.tracks.remove(t);
        }
        out.sort_by_key(|(_, o)| o.track_id);
        out
    }

    /// Optimal IoU assignment between some tracks and some detections: matched pairs, unmatched
    /// tracks, unmatched detections.
    fn associate(
        &self,
        tracks: &[usize],
        dets: &[usize],
        (detections, colours): (&[Detection], &[Option<Colour>]),
        min_iou: f32,
        buffer: f32,
        fuse_confidence: bool,
    ) -> (Vec<(usize, usize)>, Vec<usize>, Vec<usize>) {
        let cost: Vec<Vec<f64>> = tracks
            .iter()
            .map(|&t| {
                let track = &self.tracks[t];
                let tb = track.bbox().buffered(buffer);
                dets.iter()
                    .map(|&d| {
                        let det = &detections[d];
                        let iou = tb.iou(&det.bbox.buffered(buffer));
                        let sim = if fuse_confidence && self.cfg.fuse_confidence {
                            iou * det.confidence
                        } else {
                            iou
                        };
                        let d2 = track.kalman.mahalanobis_sq(measure(&det.bbox));
                        if iou < min_iou {
                            f64::INFINITY
                        } else {
                            let w = self.cfg.motion_weight;
                            let appearance = match (track.colour, colours.get(d).copied().flatten())
                            {
                                (Some(a), Some(b)) => {
                                    self.cfg.appearance_weight
                                        * (colour_distance(&a, &b) / self.cfg.appearance_saturation)
                                            .min(1.0)
                                }
                                _ => 0.0,
                            };
                            (1.0 - w) * (1.0 - f64::from(sim))
                                + w * (d2 / self.cfg.motion_saturation_chi2).min(1.0)
                                + appearance
                        }
                    })
                    .collect()
            })
            .collect();
        let pairs = assign(&cost, 1.0);
        let matched: Vec<(usize, usize)> =
            pairs.iter().map(|&(r, c)| (tracks[r], dets[c])).collect();
        let unmatched_tracks = tracks
            .iter()
            .copied()
            .filter(|t| !matched.iter().any(|m| m.0 == *t))
            .collect();
        let unmatched_dets = dets
            .iter()
            .copied()
            .filter(|d| !matched.iter().any(|m| m.1 == *d))
            .collect();
        (matched, unmatched_tracks, unmatched_dets)
    }
}

#[cfg(test)]
mod tests;
