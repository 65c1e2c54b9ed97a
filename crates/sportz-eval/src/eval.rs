//! `evaluate`: truth against predictions, into a [`Report`].

use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use sportz_contract::{EventKind, FrameData, ObjectClass, PitchPoint, Player};
use sportz_synth::{FrameTruth, ObjectTruth, Visibility};

use crate::input::{Predictions, Truth};
use crate::mot::{self, Clear, HotaAtAlpha, Identity, Sequence, Timestep};
use crate::{EvalError, assign};

/// The IoU at which IDF1 and CLEAR count a match, and at which a prediction is matched to an
/// ignored truth box (as in `TrackEval`).
pub const MATCH_IOU: f64 = 0.5;

/// How predicted frames are paired with truth frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FrameAlignment {
    /// By `video_timestamp`: each predicted frame goes to the truth frame nearest in time, when
    /// it is within half a truth frame period. Works when `sportz track --fps` sampled the video
    /// at another rate (its `frame_number` then counts sampled frames, not video frames).
    #[default]
    Timestamp,
    /// By `frame_number`: equal numbers pair up (both are 0-based). Only right when the
    /// prediction ran at the video's own frame rate.
    FrameNumber,
}

impl std::str::FromStr for FrameAlignment {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "timestamp" => Ok(Self::Timestamp),
            "frame_number" | "frame-number" => Ok(Self::FrameNumber),
            _ => Err(format!(
                "unknown frame alignment `{s}`, expected timestamp or frame_number"
            )),
        }
    }
}

/// What `sportz eval` can tune. [`Default`] gives the documented defaults.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EvalOptions {
    /// An event matches a true event of the same kind within this many seconds (default 1.0).
    pub event_tolerance_s: f64,
    /// A predicted ball is right within this many pixels of the true centre (default 5.0).
    pub ball_tolerance_px: f64,
    /// A partially visible person counts as truth only when at least this share of the figure
    /// is seen (`visible_fraction`, default 0.25); below it the person is ignored.
    pub min_visible_fraction: f64,
    /// How predicted frames pair with truth frames (default by timestamp).
    pub alignment: FrameAlignment,
}

impl Default for EvalOptions {
    fn default() -> Self {
        Self {
            event_tolerance_s: 1.0,
            ball_tolerance_px: 5.0,
            min_visible_fraction: 0.25,
            alignment: FrameAlignment::Timestamp,
        }
    }
}

/// Frame counts and how they were paired.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FrameCounts {
    pub truth_frames: usize,
    pub pred_frames: usize,
    /// Truth frames with a predicted frame: the frames every metric is computed on.
    pub evaluated_frames: usize,
    /// Predicted frames that no truth frame took (out of range, or a second one for the same
    /// truth frame).
    pub pred_frames_unaligned: usize,
    pub alignment: FrameAlignment,
}

/// Player tracking metrics (HOTA family, IDF1, CLEAR) and the pitch error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerMetrics {
    /// Truth detections counted (visible people, referee excluded), over all evaluated frames.
    pub truth_objects: u64,
    /// Distinct truth ids among them.
    pub truth_ids: usize,
    /// Predicted player/goalkeeper detections scored.
    pub pred_objects: u64,
    pub pred_ids: usize,
    /// Predictions left out: classed `referee`, or matched (IoU ≥ 0.5) to an ignored truth
    /// person (the referee, an occluded or barely visible player).
    pub pred_ignored: u64,
    /// Means over α = 0.05 … 0.95.
    pub hota: f64,
    pub det_a: f64,
    pub ass_a: f64,
    pub loc_a: f64,
    pub det_re: f64,
    pub det_pr: f64,
    pub ass_re: f64,
    pub ass_pr: f64,
    pub identity: Identity,
    pub clear: Clear,
    /// Mean distance between truth and predicted foot points, metres, over the pairs matched at
    /// α = 0.5 where the prediction has a pitch position; `null` when there is none.
    pub pitch_error_m: Option<f64>,
    pub pitch_pairs: u64,
    pub per_alpha: Vec<HotaAtAlpha>,
}

/// Ball detection within a pixel radius, and the ball's pitch error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BallMetrics {
    pub tolerance_px: f64,
    /// Evaluated frames where the true ball is visible (the recall denominator).
    pub truth_visible: u64,
    /// Evaluated frames with a predicted ball (the precision denominator).
    pub pred: u64,
    /// Of those, extrapolated (`predicted: true`) balls.
    pub pred_extrapolated: u64,
    /// Visible true balls with a predicted ball within the radius.
    pub recall_hits: u64,
    /// Predicted balls within the radius of the true centre (visible or not).
    pub precision_hits: u64,
    pub recall: Option<f64>,
    pub precision: Option<f64>,
    /// Mean distance between the true ground point and the predicted pitch position, metres,
    /// over the precision hits that have a pitch position.
    pub pitch_error_m: Option<f64>,
    pub pitch_frames: u64,
}

/// Precision, recall and F1 of one event kind.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventScore {
    /// The contract's name of the kind, or `all`.
    pub kind: String,
    pub truth: u64,
    pub pred: u64,
    pub matched: u64,
    pub precision: Option<f64>,
    pub recall: Option<f64>,
    pub f1: Option<f64>,
}

/// Kinds that exist on one side only, so cannot be scored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct NotComparable {
    pub truth_only: Vec<String>,
    pub pred_only: Vec<String>,
}

/// Event detection within a time tolerance.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EventMetrics {
    pub tolerance_s: f64,
    /// One row per comparable kind, then `all` (micro-averaged).
    pub per_kind: Vec<EventScore>,
    pub not_comparable: NotComparable,
    /// True events outside the evaluated time span (not scored).
    pub truth_outside_span: u64,
}

/// Everything `sportz eval` reports; `Serialize` for `--json`, [`Report::table`] for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub options: EvalOptions,
    pub frames: FrameCounts,
    pub players: PlayerMetrics,
    pub ball: BallMetrics,
    pub events: EventMetrics,
}

/// The contract kind a synth (truth) event kind is compared with. The synth speaks the
/// contract's own `EventKind` (its docs list the same seven names: `ball_lost`, `possession`,
/// `possession_change`, `pass`, `shot`, `ball_out`, `goal`), so every kind maps to itself; the
/// match is exhaustive so a kind added on either side must be placed here.
#[must_use]
pub const fn contract_kind_of_truth(kind: EventKind) -> Option<EventKind> {
    match kind {
        EventKind::BallLost => Some(EventKind::BallLost),
        EventKind::Possession => Some(EventKind::Possession),
        EventKind::PossessionChange => Some(EventKind::PossessionChange),
        EventKind::Pass => Some(EventKind::Pass),
        EventKind::Shot => Some(EventKind::Shot),
        EventKind::BallOut => Some(EventKind::BallOut),
        EventKind::Goal => Some(EventKind::Goal),
    }
}

/// The truth's pitch coordinates in the contract's convention. Both are metres on a 105×68
/// pitch with the origin at a corner, x along the length, y = 0 on the far touchline (the synth
/// reuses `sportz_contract::PitchPoint` and documents the same convention), so this is the
/// identity; it is the one place to change should either side move.
#[must_use]
pub const fn truth_pitch_to_contract(p: PitchPoint) -> PitchPoint {
    p
}

fn dist(a: PitchPoint, b: PitchPoint) -> f64 {
    (a.x - b.x).hypot(a.y - b.y)
}

fn ratio(num: u64, den: u64) -> Option<f64> {
    (den > 0).then(|| num as f64 / den as f64)
}

/// Pairs of (truth index, prediction index) in truth order, and the unaligned count.
fn align(
    truth: &[FrameTruth],
    pred: &[FrameData],
    how: FrameAlignment,
) -> Result<(Vec<(usize, usize)>, usize), EvalError> {
    let mut taken: Vec<Option<usize>> = vec![None; truth.len()];
    match how {
        FrameAlignment::FrameNumber => {
            let by_number: HashMap<u64, usize> = truth
                .iter()
                .enumerate()
                .map(|(i, f)| (f.frame_number, i))
                .collect();
            for (j, p) in pred.iter().enumerate() {
                if let Some(&i) = by_number.get(&p.frame_number)
                    && taken[i].is_none()
                {
                    taken[i] = Some(j);
                }
            }
        }
        FrameAlignment::Timestamp => {
            let period = truth_period(truth);
            for (j, p) in pred.iter().enumerate() {
                let t = p.video_timestamp;
                let k = truth.partition_point(|f| f.video_timestamp < t);
                let best = [k.checked_sub(1), (k < truth.len()).then_some(k)]
                    .into_iter()
                    .flatten()
                    .min_by(|&a, &b| {
                        (truth[a].video_timestamp - t)
                            .abs()
                            .total_cmp(&(truth[b].video_timestamp - t).abs())
                    });
                if let Some(i) = best
                    && (truth[i].video_timestamp - t).abs() <= period / 2.0 + 1e-9
                    && taken[i].is_none()
                {
                    taken[i] = Some(j);
                }
            }
        }
    }
    let pairs: Vec<(usize, usize)> = taken
        .iter()
        .enumerate()
        .filter_map(|(i, j)| j.map(|j| (i, j)))
        .collect();
    if pairs.is_empty() {
        let span = |a: f64, b: f64| format!("{a:.2}–{b:.2} s");
        let (p0, p1) = pred
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.video_timestamp), b.max(p.video_timestamp))
            });
        let (t0, t1) = (
            truth.first().map_or(0.0, |f| f.video_timestamp),
            truth.last().map_or(0.0, |f| f.video_timestamp),
        );
        return Err(EvalError::Alignment(format!(
            "none of the {} predicted frames ({}) lines up with one of the {} truth frames ({}) by {}",
            pred.len(),
            span(p0, p1),
            truth.len(),
            span(t0, t1),
            match how {
                FrameAlignment::Timestamp => "video_timestamp",
                FrameAlignment::FrameNumber => "frame_number",
            }
        )));
    }
    Ok((pairs.clone(), pred.len() - pairs.len()))
}

/// Seconds between truth frames: the median step of `video_timestamp`, else `t / n` of a lone
/// frame, else 1/25 s.
fn truth_period(truth: &[FrameTruth]) -> f64 {
    let mut steps: Vec<f64> = truth
        .windows(2)
        .map(|w| w[1].video_timestamp - w[0].video_timestamp)
        .filter(|d| *d > 0.0)
        .collect();
    if !steps.is_empty() {
        steps.sort_by(f64::total_cmp);
        return steps[steps.len() / 2];
    }
    truth
        .first()
        .filter(|f| f.frame_number > 0 && f.video_timestamp > 0.0)
        .map_or(1.0 / 25.0, |f| f.video_timestamp / f.frame_number as f64)
}

/// Whether a truth person is player truth: not the referee, in frame, and visible enough.
fn counts(o: &ObjectTruth, opts: &EvalOptions) -> bool {
    o.role != ObjectClass::Referee
        && o.bbox.is_some()
        && match o.visibility {
            Visibility::Visible => true,
            Visibility::Partial => o.visible_fraction >= opts.min_visible_fraction,
            Visibility::Occluded | Visibility::OffScreen => false,
        }
}

const fn is_player_class(c: ObjectClass) -> bool {
    matches!(c, ObjectClass::Player | ObjectClass::Goalkeeper)
}

struct PlayerFrame<'a> {
    gt: Vec<&'a ObjectTruth>,
    pred: Vec<&'a Player>,
}

/// Splits one frame into scored truth and scored predictions, dropping predictions on ignored
/// truth (`TrackEval`'s distractor preprocessing: one Hungarian on IoU over all truth boxes, and
/// a prediction matched at IoU ≥ 0.5 to an ignored one is removed).
fn player_frame<'a>(
    t: &'a FrameTruth,
    p: &'a FrameData,
    opts: &EvalOptions,
    ignored: &mut u64,
) -> PlayerFrame<'a> {
    let gt: Vec<&ObjectTruth> = t.objects.iter().filter(|o| counts(o, opts)).collect();
    let ignore_boxes: Vec<[f64; 4]> = t
        .objects
        .iter()
        .filter(|o| !counts(o, opts))
        .filter_map(|o| o.bbox)
        .collect();
    let mut pred: Vec<&Player> = Vec::new();
    for pl in &p.players {
        if is_player_class(pl.class) {
            pred.push(pl);
        } else if pl.class == ObjectClass::Referee {
            *ignored += 1;
        }
    }
    if !ignore_boxes.is_empty() && !pred.is_empty() {
        let boxes: Vec<[f64; 4]> = gt
            .iter()
            .map(|o| o.bbox.expect("counted truth has a box"))
            .chain(ignore_boxes.iter().copied())
            .collect();
        let sim: Vec<f64> = boxes
            .iter()
            .flat_map(|b| pred.iter().map(move |q| mot::iou(b, &q.bbox)))
            .collect();
        let mut drop = vec![false; pred.len()];
        for (g, q) in assign::max_score(boxes.len(), pred.len(), &sim) {
            if g >= gt.len() && sim[g * pred.len() + q] >= MATCH_IOU - f64::EPSILON {
                drop[q] = true;
            }
        }
        let before = pred.len();
        let mut k = 0;
        pred.retain(|_| {
            k += 1;
            !drop[k - 1]
        });
        *ignored += (before - pred.len()) as u64;
    }
    PlayerFrame { gt, pred }
}

fn players(
    truth: &[FrameTruth],
    pred: &[FrameData],
    pairs: &[(usize, usize)],
    opts: &EvalOptions,
) -> PlayerMetrics {
    let mut ignored = 0u64;
    let frames: Vec<PlayerFrame> = pairs
        .iter()
        .map(|&(i, j)| player_frame(&truth[i], &pred[j], opts, &mut ignored))
        .collect();
    let mut gt_ids: HashMap<u32, usize> = HashMap::new();
    let mut pred_ids: HashMap<u64, usize> = HashMap::new();
    let mut seq = Sequence::default();
    let (mut n_gt, mut n_pred) = (0u64, 0u64);
    for fr in &frames {
        let mut step = Timestep::default();
        for o in &fr.gt {
            let n = gt_ids.len();
            step.gt_ids.push(*gt_ids.entry(o.id).or_insert(n));
        }
        for q in &fr.pred {
            let n = pred_ids.len();
            step.pred_ids.push(*pred_ids.entry(q.track_id).or_insert(n));
        }
        step.sim = fr
            .gt
            .iter()
            .flat_map(|o| {
                let b = o.bbox.expect("counted truth has a box");
                fr.pred.iter().map(move |q| mot::iou(&b, &q.bbox))
            })
            .collect();
        n_gt += fr.gt.len() as u64;
        n_pred += fr.pred.len() as u64;
        seq.steps.push(step);
    }
    seq.num_gt_ids = gt_ids.len();
    seq.num_pred_ids = pred_ids.len();

    let h = mot::hota(&seq);
    let (mut err_sum, mut err_n) = (0.0, 0u64);
    for (fr, matches) in frames.iter().zip(&h.matches_at_half) {
        for &(g, q) in matches {
            if let Some(pp) = fr.pred[q].pitch {
                err_sum += dist(truth_pitch_to_contract(fr.gt[g].pitch), pp);
                err_n += 1;
            }
        }
    }
    let mean = |pick: fn(&HotaAtAlpha) -> f64| {
        h.per_alpha.iter().map(pick).sum::<f64>() / h.per_alpha.len() as f64
    };
    PlayerMetrics {
        truth_objects: n_gt,
        truth_ids: gt_ids.len(),
        pred_objects: n_pred,
        pred_ids: pred_ids.len(),
        pred_ignored: ignored,
        hota: mean(|a| a.hota),
        det_a: mean(|a| a.det_a),
        ass_a: mean(|a| a.ass_a),
        loc_a: mean(|a| a.loc_a),
        det_re: mean(|a| a.det_re),
        det_pr: mean(|a| a.det_pr),
        ass_re: mean(|a| a.ass_re),
        ass_pr: mean(|a| a.ass_pr),
        identity: mot::identity(&seq, MATCH_IOU),
        clear: mot::clear(&seq, MATCH_IOU),
        pitch_error_m: (err_n > 0).then(|| err_sum / err_n as f64),
        pitch_pairs: err_n,
        per_alpha: h.per_alpha,
    }
}

fn ball(
    truth: &[FrameTruth],
    pred: &[FrameData],
    pairs: &[(usize, usize)],
    opts: &EvalOptions,
) -> BallMetrics {
    let mut m = BallMetrics {
        tolerance_px: opts.ball_tolerance_px,
        truth_visible: 0,
        pred: 0,
        pred_extrapolated: 0,
        recall_hits: 0,
        precision_hits: 0,
        recall: None,
        precision: None,
        pitch_error_m: None,
        pitch_frames: 0,
    };
    let mut err_sum = 0.0;
    for &(i, j) in pairs {
        let tb = &truth[i].ball;
        if tb.visible {
            m.truth_visible += 1;
        }
        let Some(pb) = &pred[j].ball else { continue };
        m.pred += 1;
        m.pred_extrapolated += u64::from(pb.predicted);
        let d = (pb.pixel.x - tb.pixel.x).hypot(pb.pixel.y - tb.pixel.y);
        if d <= opts.ball_tolerance_px + 1e-9 {
            m.precision_hits += 1;
            m.recall_hits += u64::from(tb.visible);
            if let Some(pp) = pb.pitch {
                err_sum += dist(truth_pitch_to_contract(tb.pitch), pp);
                m.pitch_frames += 1;
            }
        }
    }
    m.recall = ratio(m.recall_hits, m.truth_visible);
    m.precision = ratio(m.precision_hits, m.pred);
    {
        m.pitch_error_m = (m.pitch_frames > 0).then(|| err_sum / m.pitch_frames as f64);
    }
    m
}

/// Maximum one-to-one matching of sorted times within `tol`: for points on a line and windows
/// of equal width, taking for each truth (in order) the earliest unmatched prediction inside its
/// window is optimal.
fn match_times(truth: &[f64], pred: &[f64], tol: f64) -> u64 {
    let (mut j, mut n) = (0, 0);
    for &t in truth {
        while j < pred.len() && pred[j] < t - tol - 1e-9 {
            j += 1;
        }
        if j < pred.len() && pred[j] <= t + tol + 1e-9 {
            n += 1;
            j += 1;
        }
    }
    n
}

fn score(kind: String, truth: u64, pred: u64, matched: u64) -> EventScore {
    let precision = ratio(matched, pred);
    let recall = ratio(matched, truth);
    let f1 = match (precision, recall) {
        (Some(p), Some(r)) if p + r > 0.0 => Some(2.0 * p * r / (p + r)),
        (Some(_), Some(_)) => Some(0.0),
        _ => None,
    };
    EventScore {
        kind,
        truth,
        pred,
        matched,
        precision,
        recall,
        f1,
    }
}

fn events(truth: &Truth, pred: &Predictions, span: (f64, f64), opts: &EvalOptions) -> EventMetrics {
    let tol = opts.event_tolerance_s;
    let mut truth_only = Vec::new();
    let mut truth_by_kind: HashMap<EventKind, Vec<f64>> = HashMap::new();
    let mut outside = 0u64;
    for e in &truth.events {
        let Some(k) = contract_kind_of_truth(e.kind) else {
            truth_only.push(e.kind.as_str().to_owned());
            continue;
        };
        if e.time_secs < span.0 - 1e-9 || e.time_secs > span.1 + 1e-9 {
            outside += 1;
            continue;
        }
        truth_by_kind.entry(k).or_default().push(e.time_secs);
    }
    let comparable: Vec<EventKind> = EventKind::ALL
        .into_iter()
        .filter(|k| {
            EventKind::ALL
                .iter()
                .any(|t| contract_kind_of_truth(*t) == Some(*k))
        })
        .collect();
    let pred_only: Vec<String> = EventKind::ALL
        .into_iter()
        .filter(|k| !comparable.contains(k))
        .map(|k| k.as_str().to_owned())
        .collect();
    let mut pred_by_kind: HashMap<EventKind, Vec<f64>> = HashMap::new();
    for e in &pred.events {
        pred_by_kind
            .entry(e.kind)
            .or_default()
            .push(e.video_timestamp);
    }
    let mut per_kind = Vec::new();
    let (mut at, mut ap, mut am) = (0, 0, 0);
    for k in comparable {
        let mut t = truth_by_kind.remove(&k).unwrap_or_default();
        let mut p = pred_by_kind.remove(&k).unwrap_or_default();
        t.sort_by(f64::total_cmp);
        p.sort_by(f64::total_cmp);
        let m = match_times(&t, &p, tol);
        let (nt, np) = (t.len() as u64, p.len() as u64);
        at += nt;
        ap += np;
        am += m;
        per_kind.push(score(k.as_str().to_owned(), nt, np, m));
    }
    per_kind.push(score("all".to_owned(), at, ap, am));
    truth_only.sort();
    truth_only.dedup();
    EventMetrics {
        tolerance_s: tol,
        per_kind,
        not_comparable: NotComparable {
            truth_only,
            pred_only,
        },
        truth_outside_span: outside,
    }
}

/// Scores `pred` against `truth`.
///
/// # Errors
/// [`EvalError::Alignment`] when no predicted frame lines up with a truth frame, and
/// [`EvalError::Empty`] when the truth has no frame.
pub fn evaluate(
    truth: &Truth,
    pred: &Predictions,
    opts: &EvalOptions,
) -> Result<Report, EvalError> {
    if truth.frames.is_empty() {
        return Err(EvalError::Empty {
            source_name: "truth".to_owned(),
            reason: "no frames".to_owned(),
        });
    }
    let (pairs, unaligned) = align(&truth.frames, &pred.frames, opts.alignment)?;
    let period = truth_period(&truth.frames);
    let span = (
        truth.frames[pairs[0].0].video_timestamp,
        truth.frames[pairs[pairs.len() - 1].0].video_timestamp + period,
    );
    Ok(Report {
        options: opts.clone(),
        frames: FrameCounts {
            truth_frames: truth.frames.len(),
            pred_frames: pred.frames.len(),
            evaluated_frames: pairs.len(),
            pred_frames_unaligned: unaligned,
            alignment: opts.alignment,
        },
        players: players(&truth.frames, &pred.frames, &pairs, opts),
        ball: ball(&truth.frames, &pred.frames, &pairs, opts),
        events: events(truth, pred, span, opts),
    })
}

fn opt3(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

/// Rows of cells, each column right-aligned to its widest cell (the first one left-aligned when
/// `label_column`).
fn grid_with(rows: &[Vec<String>], label_column: bool) -> String {
    let cols = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..cols)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        out.push_str("  ");
        for (c, cell) in r.iter().enumerate() {
            if c == 0 && label_column {
                let _ = write!(out, "{cell:<w$}", w = widths[0]);
            } else if c == 0 {
                let _ = write!(out, "{cell:>w$}", w = widths[0]);
            } else {
                let _ = write!(out, "  {cell:>w$}", w = widths[c]);
            }
        }
        out.truncate(out.trim_end().len());
        out.push('\n');
    }
    out
}

fn grid(rows: &[Vec<String>]) -> String {
    grid_with(rows, false)
}

fn s<T: ToString>(v: T) -> String {
    v.to_string()
}

impl Report {
    /// A readable, aligned table.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let f = &self.frames;
        let _ = writeln!(out, "frames");
        out.push_str(&grid(&[
            vec![
                s("truth"),
                s("predicted"),
                s("evaluated"),
                s("unaligned"),
                s("aligned by"),
            ],
            vec![
                s(f.truth_frames),
                s(f.pred_frames),
                s(f.evaluated_frames),
                s(f.pred_frames_unaligned),
                s(match f.alignment {
                    FrameAlignment::Timestamp => "timestamp",
                    FrameAlignment::FrameNumber => "frame_number",
                }),
            ],
        ]));
        let p = &self.players;
        let _ = writeln!(out, "\nplayers");
        out.push_str(&grid(&[
            vec![
                s("truth objects"),
                s("truth ids"),
                s("predicted"),
                s("pred ids"),
                s("ignored preds"),
            ],
            vec![
                s(p.truth_objects),
                s(p.truth_ids),
                s(p.pred_objects),
                s(p.pred_ids),
                s(p.pred_ignored),
            ],
        ]));
        let x3 = |v: f64| format!("{v:.3}");
        out.push_str(&grid(&[
            vec![
                s("HOTA"),
                s("DetA"),
                s("AssA"),
                s("LocA"),
                s("DetRe"),
                s("DetPr"),
                s("AssRe"),
                s("AssPr"),
            ],
            vec![
                x3(p.hota),
                x3(p.det_a),
                x3(p.ass_a),
                x3(p.loc_a),
                x3(p.det_re),
                x3(p.det_pr),
                x3(p.ass_re),
                x3(p.ass_pr),
            ],
        ]));
        out.push_str(&grid(&[
            vec![
                s("IDF1"),
                s("IDP"),
                s("IDR"),
                s("MOTA"),
                s("MOTP"),
                s("ID switches"),
                s("pitch error"),
            ],
            vec![
                x3(p.identity.idf1),
                x3(p.identity.idp),
                x3(p.identity.idr),
                x3(p.clear.mota),
                x3(p.clear.motp),
                s(p.clear.id_switches),
                p.pitch_error_m.map_or_else(
                    || "n/a".to_owned(),
                    |e| format!("{e:.2} m ({} pairs)", p.pitch_pairs),
                ),
            ],
        ]));
        let b = &self.ball;
        let _ = writeln!(out, "\nball (within {} px)", b.tolerance_px);
        out.push_str(&grid(&[
            vec![
                s("truth visible"),
                s("predicted"),
                s("extrapolated"),
                s("recall"),
                s("precision"),
                s("pitch error"),
            ],
            vec![
                s(b.truth_visible),
                s(b.pred),
                s(b.pred_extrapolated),
                opt3(b.recall),
                opt3(b.precision),
                b.pitch_error_m.map_or_else(
                    || "n/a".to_owned(),
                    |e| format!("{e:.2} m ({} frames)", b.pitch_frames),
                ),
            ],
        ]));
        let e = &self.events;
        let _ = writeln!(out, "\nevents (within {} s)", e.tolerance_s);
        let mut rows = vec![vec![
            s("kind"),
            s("truth"),
            s("pred"),
            s("matched"),
            s("precision"),
            s("recall"),
            s("F1"),
        ]];
        for k in &e.per_kind {
            rows.push(vec![
                k.kind.clone(),
                s(k.truth),
                s(k.pred),
                s(k.matched),
                opt3(k.precision),
                opt3(k.recall),
                opt3(k.f1),
            ]);
        }
        out.push_str(&grid_with(&rows, true));
        let nc = &e.not_comparable;
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        let _ = writeln!(
            out,
            "  not comparable: truth only {}; predictions only {}",
            list(&nc.truth_only),
            list(&nc.pred_only)
        );
        if e.truth_outside_span > 0 {
            let _ = writeln!(
                out,
                "  {} true events lie outside the evaluated frames and were not scored",
                e.truth_outside_span
            );
        }
        out
    }
}
