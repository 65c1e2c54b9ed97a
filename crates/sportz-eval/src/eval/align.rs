//! Frame alignment: which predicted frame is scored against which truth frame (by timestamp or
//! by frame number, see the crate doc), and the truth's frame period.

use std::collections::HashMap;

use sportz_contract::FrameData;
use sportz_synth::FrameTruth;

use super::FrameAlignment;
use crate::EvalError;

/// Pairs of (truth index, prediction index) in truth order, and the unaligned count.
pub(super) fn align(
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
pub(super) fn truth_period(truth: &[FrameTruth]) -> f64 {
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
