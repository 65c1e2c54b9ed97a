//! Event scoring: per kind, a maximal one-to-one matching of predicted to true events within the
//! time tolerance; precision, recall and F1 per kind and over all, and the kinds not comparable.

use std::collections::HashMap;

use sportz_contract::EventKind;

use super::{EvalOptions, EventMetrics, EventScore, NotComparable, contract_kind_of_truth, ratio};
use crate::input::{Predictions, Truth};

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

pub(super) fn events(
    truth: &Truth,
    pred: &Predictions,
    span: (f64, f64),
    opts: &EvalOptions,
) -> EventMetrics {
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
