//! Multi-object tracking metrics on a sequence of frames with a similarity (IoU) matrix per
//! frame, following `TrackEval` (`hota.py`, `identity.py`, `clear.py`) step by step:
//!
//! - **HOTA**: per frame, one Hungarian assignment maximising `A(gt, pred) · IoU` where `A` is
//!   the global alignment score (the IoU-weighted co-occurrence of the two ids over the whole
//!   sequence: `matches / (gt_count + pred_count − matches)`), so pairs with a history of matching
//!   are preferred. For each α in 0.05, 0.10, …, 0.95 the assigned pairs with IoU ≥ α are the
//!   true positives; DetA = TP / (TP + FN + FP), AssA = mean over TPs of the association IoU of
//!   their id pair, LocA = mean IoU of TPs, HOTA = √(DetA · AssA); each is then averaged over α.
//! - **IDF1**: the one-to-one id mapping (global, over the sequence) that maximises the number
//!   of frames where the pair overlaps with IoU ≥ 0.5; IDF1 = IDTP / (IDTP + ½IDFP + ½IDFN).
//! - **CLEAR**: per frame, a Hungarian assignment on `1000 · continuing + IoU` among pairs with
//!   IoU ≥ 0.5; an id switch is a truth id matched to a different predicted id than at its last
//!   match; MOTA = (TP − FP − IDSW) / (TP + FN).

use serde::Serialize;

use crate::assign;

/// `np.finfo('float').eps`, the slack `TrackEval` gives every threshold.
const EPS: f64 = f64::EPSILON;

/// The α thresholds of HOTA: 0.05, 0.10, …, 0.95 (19 values).
#[must_use]
pub fn hota_alphas() -> Vec<f64> {
    (1..=19).map(|i| f64::from(i) * 0.05).collect()
}

/// Index of α = 0.5 in [`hota_alphas`].
pub(crate) const ALPHA_HALF: usize = 9;

/// One frame: the truth and predicted ids present (dense, `0..num_*_ids`) and their similarity,
/// `gt_ids.len() × pred_ids.len()` row-major.
#[derive(Debug, Clone, Default)]
pub(crate) struct Timestep {
    pub gt_ids: Vec<usize>,
    pub pred_ids: Vec<usize>,
    pub sim: Vec<f64>,
}

impl Timestep {
    fn s(&self, g: usize, p: usize) -> f64 {
        self.sim[g * self.pred_ids.len() + p]
    }
}

/// A whole sequence.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sequence {
    pub num_gt_ids: usize,
    pub num_pred_ids: usize,
    pub steps: Vec<Timestep>,
}

/// HOTA and its sub-metrics at one α.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HotaAtAlpha {
    pub alpha: f64,
    pub hota: f64,
    pub det_a: f64,
    pub ass_a: f64,
    pub loc_a: f64,
    pub det_re: f64,
    pub det_pr: f64,
    pub ass_re: f64,
    pub ass_pr: f64,
    pub tp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub fp: u64,
}

/// HOTA over a sequence, plus the matched pairs at α = 0.5 per frame (indices into that frame's
/// `gt_ids` / `pred_ids`), which the pitch error uses.
#[derive(Debug, Clone)]
pub(crate) struct HotaResult {
    pub per_alpha: Vec<HotaAtAlpha>,
    pub matches_at_half: Vec<Vec<(usize, usize)>>,
}

fn f(n: u64) -> f64 {
    n as f64
}

pub(crate) fn hota(seq: &Sequence) -> HotaResult {
    let (ng, np) = (seq.num_gt_ids, seq.num_pred_ids);
    let alphas = hota_alphas();
    let na = alphas.len();

    // Global alignment score from the IoU-normalised potential matches.
    let mut potential = vec![0.0; ng * np];
    let mut gt_count = vec![0.0f64; ng];
    let mut pred_count = vec![0.0f64; np];
    for t in &seq.steps {
        let (rg, rp) = (t.gt_ids.len(), t.pred_ids.len());
        let row_sum: Vec<f64> = (0..rg).map(|g| (0..rp).map(|p| t.s(g, p)).sum()).collect();
        let col_sum: Vec<f64> = (0..rp).map(|p| (0..rg).map(|g| t.s(g, p)).sum()).collect();
        for g in 0..rg {
            for p in 0..rp {
                let s = t.s(g, p);
                let denom = row_sum[g] + col_sum[p] - s;
                if denom > EPS {
                    potential[t.gt_ids[g] * np + t.pred_ids[p]] += s / denom;
                }
            }
        }
        for &g in &t.gt_ids {
            gt_count[g] += 1.0;
        }
        for &p in &t.pred_ids {
            pred_count[p] += 1.0;
        }
    }
    let global: Vec<f64> = (0..ng * np)
        .map(|i| {
            let (g, p) = (i / np, i % np);
            let d = gt_count[g] + pred_count[p] - potential[i];
            if d > 0.0 { potential[i] / d } else { 0.0 }
        })
        .collect();

    let mut tp = vec![0u64; na];
    let mut fn_ = vec![0u64; na];
    let mut fp = vec![0u64; na];
    let mut loc = vec![0.0f64; na];
    let mut matches = vec![vec![0.0f64; ng * np]; na];
    let mut matches_at_half = Vec::with_capacity(seq.steps.len());
    for t in &seq.steps {
        let (rg, rp) = (t.gt_ids.len() as u64, t.pred_ids.len() as u64);
        if rg == 0 || rp == 0 {
            for a in 0..na {
                fn_[a] += rg;
                fp[a] += rp;
            }
            matches_at_half.push(Vec::new());
            continue;
        }
        let global = &global;
        let score: Vec<f64> = (0..t.gt_ids.len())
            .flat_map(|g| {
                (0..t.pred_ids.len())
                    .map(move |p| global[t.gt_ids[g] * np + t.pred_ids[p]] * t.s(g, p))
            })
            .collect();
        let pairs = assign::max_score(t.gt_ids.len(), t.pred_ids.len(), &score);
        for (a, &alpha) in alphas.iter().enumerate() {
            let ok: Vec<(usize, usize)> = pairs
                .iter()
                .copied()
                .filter(|&(g, p)| t.s(g, p) >= alpha - EPS)
                .collect();
            let n = ok.len() as u64;
            tp[a] += n;
            fn_[a] += rg - n;
            fp[a] += rp - n;
            for &(g, p) in &ok {
                loc[a] += t.s(g, p);
                matches[a][t.gt_ids[g] * np + t.pred_ids[p]] += 1.0;
            }
            if a == ALPHA_HALF {
                matches_at_half.push(ok);
            }
        }
    }

    let per_alpha = alphas
        .iter()
        .enumerate()
        .map(|(a, &alpha)| {
            let m = &matches[a];
            let tpf = f(tp[a]).max(1.0);
            let (mut ass_a, mut ass_re, mut ass_pr) = (0.0, 0.0, 0.0);
            for g in 0..ng {
                for p in 0..np {
                    let c = m[g * np + p];
                    if c > 0.0 {
                        ass_a += c * c / (gt_count[g] + pred_count[p] - c).max(1.0);
                        ass_re += c * c / gt_count[g].max(1.0);
                        ass_pr += c * c / pred_count[p].max(1.0);
                    }
                }
            }
            let (ass_a, ass_re, ass_pr) = (ass_a / tpf, ass_re / tpf, ass_pr / tpf);
            let det_a = f(tp[a]) / f(tp[a] + fn_[a] + fp[a]).max(1.0);
            HotaAtAlpha {
                alpha,
                hota: (det_a * ass_a).sqrt(),
                det_a,
                ass_a,
                loc_a: loc[a].max(1e-10) / f(tp[a]).max(1e-10),
                det_re: f(tp[a]) / f(tp[a] + fn_[a]).max(1.0),
                det_pr: f(tp[a]) / f(tp[a] + fp[a]).max(1.0),
                ass_re,
                ass_pr,
                tp: tp[a],
                fn_: fn_[a],
                fp: fp[a],
            }
        })
        .collect();
    HotaResult {
        per_alpha,
        matches_at_half,
    }
}

/// IDF1 and its counts.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Identity {
    pub idf1: f64,
    pub idp: f64,
    pub idr: f64,
    pub idtp: u64,
    pub idfp: u64,
    pub idfn: u64,
}

pub(crate) fn identity(seq: &Sequence, threshold: f64) -> Identity {
    let (ng, np) = (seq.num_gt_ids, seq.num_pred_ids);
    let mut potential = vec![0i64; ng * np];
    let (mut total_gt, mut total_pred) = (0u64, 0u64);
    for t in &seq.steps {
        total_gt += t.gt_ids.len() as u64;
        total_pred += t.pred_ids.len() as u64;
        for (g, &gid) in t.gt_ids.iter().enumerate() {
            for (p, &pid) in t.pred_ids.iter().enumerate() {
                if t.s(g, p) >= threshold {
                    potential[gid * np + pid] += 1;
                }
            }
        }
    }
    // Minimising IDFP + IDFN = total_gt + total_pred − 2·IDTP is maximising IDTP.
    let idtp: i64 = assign::max_weight(ng, np, &potential)
        .into_iter()
        .map(|(g, p)| potential[g * np + p])
        .sum();
    let idtp = u64::try_from(idtp).unwrap_or(0);
    let (idfp, idfn) = (total_pred - idtp, total_gt - idtp);
    Identity {
        idf1: f(idtp) / (f(idtp) + 0.5 * f(idfp) + 0.5 * f(idfn)).max(1.0),
        idp: f(idtp) / f(idtp + idfp).max(1.0),
        idr: f(idtp) / f(idtp + idfn).max(1.0),
        idtp,
        idfp,
        idfn,
    }
}

/// CLEAR MOT.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Clear {
    pub mota: f64,
    pub motp: f64,
    pub id_switches: u64,
    pub tp: u64,
    #[serde(rename = "fn")]
    pub fn_: u64,
    pub fp: u64,
}

pub(crate) fn clear(seq: &Sequence, threshold: f64) -> Clear {
    let mut prev_pred: Vec<Option<usize>> = vec![None; seq.num_gt_ids];
    let mut prev_step_pred: Vec<Option<usize>> = vec![None; seq.num_gt_ids];
    let (mut tp, mut fn_, mut fp, mut idsw) = (0u64, 0u64, 0u64, 0u64);
    let mut motp_sum = 0.0;
    for t in &seq.steps {
        let (rg, rp) = (t.gt_ids.len(), t.pred_ids.len());
        if rg == 0 || rp == 0 {
            fn_ += rg as u64;
            fp += rp as u64;
            // As TrackEval: an empty frame does not break a continuing match.
            continue;
        }
        let score: Vec<f64> = (0..rg)
            .flat_map(|g| {
                let prev_step_pred = &prev_step_pred;
                (0..rp).map(move |p| {
                    let s = t.s(g, p);
                    if s < threshold - EPS {
                        0.0
                    } else {
                        let continuing = prev_step_pred[t.gt_ids[g]] == Some(t.pred_ids[p]);
                        1000.0 * f64::from(u8::from(continuing)) + s
                    }
                })
            })
            .collect();
        let pairs: Vec<(usize, usize)> = assign::max_score(rg, rp, &score)
            .into_iter()
            .filter(|&(g, p)| score[g * rp + p] > EPS)
            .collect();
        prev_step_pred.fill(None);
        for &(g, p) in &pairs {
            let (gid, pid) = (t.gt_ids[g], t.pred_ids[p]);
            if prev_pred[gid].is_some_and(|q| q != pid) {
                idsw += 1;
            }
            prev_pred[gid] = Some(pid);
            prev_step_pred[gid] = Some(pid);
            motp_sum += t.s(g, p);
        }
        let n = pairs.len();
        tp += n as u64;
        fn_ += (rg - n) as u64;
        fp += (rp - n) as u64;
    }
    Clear {
        mota: (f(tp) - f(fp) - f(idsw)) / f(tp + fn_).max(1.0),
        motp: motp_sum / f(tp).max(1.0),
        id_switches: idsw,
        tp,
        fn_,
        fp,
    }
}

/// Intersection over union of two `[x1, y1, x2, y2]` boxes (0 when either is empty).
#[must_use]
pub fn iou(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let iw = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let ih = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = iw * ih;
    let area = |r: &[f64; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let union = area(a) + area(b) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames of identical boxes: `gt[t]` and `pred[t]` list ids; a pair overlaps (IoU 1) when
    /// the truth and predicted entries sit at the same position `k` in their frame, else 0.
    fn seq(frames: &[(&[usize], &[usize])]) -> Sequence {
        let mut s = Sequence::default();
        for (gt, pred) in frames {
            let sim = (0..gt.len())
                .flat_map(|g| (0..pred.len()).map(move |p| if g == p { 1.0 } else { 0.0 }))
                .collect();
            s.num_gt_ids = s.num_gt_ids.max(gt.iter().max().map_or(0, |m| m + 1));
            s.num_pred_ids = s.num_pred_ids.max(pred.iter().max().map_or(0, |m| m + 1));
            s.steps.push(Timestep {
                gt_ids: gt.to_vec(),
                pred_ids: pred.to_vec(),
                sim,
            });
        }
        s
    }

    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn alphas_are_the_trackeval_ones() {
        let a = hota_alphas();
        assert_eq!(a.len(), 19);
        close(a[0], 0.05);
        close(a[ALPHA_HALF], 0.5);
        close(a[18], 0.95);
    }

    #[test]
    fn swapped_ids_give_a_third_of_association() {
        // Two objects for 10 frames; predicted ids 0/1 swap after frame 4.
        let mut frames = Vec::new();
        for t in 0..10 {
            frames.push((
                &[0usize, 1][..],
                if t < 5 {
                    &[0usize, 1][..]
                } else {
                    &[1usize, 0][..]
                },
            ));
        }
        let s = seq(&frames);
        let h = hota(&s);
        for a in &h.per_alpha {
            close(a.det_a, 1.0);
            close(a.ass_a, 1.0 / 3.0);
            close(a.hota, (1.0f64 / 3.0).sqrt());
            close(a.loc_a, 1.0);
        }
        let id = identity(&s, 0.5);
        assert_eq!((id.idtp, id.idfp, id.idfn), (10, 10, 10));
        close(id.idf1, 0.5);
        let c = clear(&s, 0.5);
        assert_eq!((c.tp, c.fn_, c.fp, c.id_switches), (20, 0, 0, 2));
        close(c.mota, 0.9);
    }

    #[test]
    fn iou_of_boxes() {
        close(iou(&[0.0, 0.0, 10.0, 10.0], &[0.0, 0.0, 10.0, 10.0]), 1.0);
        close(
            iou(&[0.0, 0.0, 10.0, 10.0], &[5.0, 0.0, 15.0, 10.0]),
            50.0 / 150.0,
        );
        close(iou(&[0.0, 0.0, 10.0, 10.0], &[20.0, 0.0, 30.0, 10.0]), 0.0);
        close(iou(&[0.0, 0.0, 0.0, 10.0], &[0.0, 0.0, 0.0, 10.0]), 0.0);
    }
}
