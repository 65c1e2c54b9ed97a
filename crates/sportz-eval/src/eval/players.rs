//! Player scoring: which truth people count and which predictions fall on ignore regions, then
//! HOTA / IDF1 / CLEAR over the aligned frames (through [`crate::mot`]) and the pitch error.

use std::collections::HashMap;

use sportz_contract::{FrameData, ObjectClass, Player};
use sportz_synth::{FrameTruth, ObjectTruth, Visibility};

use super::{EvalOptions, MATCH_IOU, PlayerMetrics, dist, truth_pitch_to_contract};
use crate::assign;
use crate::mot::{self, HotaAtAlpha, Sequence, Timestep};

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

pub(super) fn players(
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
    let mut errors = Vec::new();
    for (fr, matches) in frames.iter().zip(&h.matches_at_half) {
        for &(g, q) in matches {
            if let Some(pp) = fr.pred[q].pitch {
                errors.push(dist(truth_pitch_to_contract(fr.gt[g].pitch), pp));
            }
        }
    }
    let (err_sum, err_n) = (errors.iter().sum::<f64>(), errors.len() as u64);
    errors.sort_by(f64::total_cmp);
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
        pitch_error_p95_m: super::camera::quantile(&errors, 0.95),
        pitch_pairs: err_n,
        per_alpha: h.per_alpha,
    }
}
