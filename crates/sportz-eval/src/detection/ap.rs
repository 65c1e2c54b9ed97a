//! Average precision as COCO computes it (`pycocotools` `COCOeval`, bbox, one area range, no
//! crowd regions, no cap on detections per image), per contract class:
//!
//! - at each IoU threshold t in 0.50, 0.55, …, 0.95 the detections of a class, over all images,
//!   are taken by descending confidence (ties in input order); each is matched to the not yet
//!   matched true box of that class in its image with the highest IoU ≥ t (a true positive) or
//!   to none (a false positive);
//! - precision is made monotone (each point the best precision at any higher recall) and read at
//!   the 101 recalls 0, 0.01, …, 1 (the first point whose recall reaches it; 0 past the last);
//!   AP is their mean. AP50 is the AP at t = 0.5, AP50-95 the mean over the ten thresholds.
//!
//! Truth boxes narrower or shorter than [`DetectionOptions::ignore_under`] pixels (0: none) are
//! ignored the way COCO ignores crowd regions: they are not counted as truths, and a detection
//! that matches no counted truth but overlaps an ignored one at IoU ≥ t is left out of the
//! ranking (neither a true nor a false positive). For label sets whose polygons leave slivers
//! of occluded people as boxes a few pixels wide.
//!
//! Precision and recall at the operating threshold: the same matching at IoU 0.5 of the
//! detections with confidence ≥ [`DetectionOptions::conf`]. A class with no true box has no AP
//! or recall (`None`); the means are over the classes that have true boxes.

use std::fmt::Write as _;

use serde::Serialize;
use sportz_contract::ObjectClass;

use super::labels::LabelledImage;
use super::{CLASSES, class_name, iou};
use crate::eval::table::grid_with;

/// How [`evaluate_detections`] scores.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectionOptions {
    /// The operating threshold for precision and recall (AP uses every detection).
    pub conf: f64,
    /// Truth boxes narrower or shorter than this many pixels are ignored (see the module doc).
    pub ignore_under: f64,
}

impl Default for DetectionOptions {
    fn default() -> Self {
        Self {
            conf: 0.25,
            ignore_under: 0.0,
        }
    }
}

/// The scores of one class.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClassScore {
    pub class: ObjectClass,
    /// True boxes of the class (those ignored not included).
    pub truths: usize,
    /// True boxes of the class ignored for their size.
    pub ignored: usize,
    /// Detections of the class (every confidence).
    pub detections: usize,
    /// AP at IoU 0.5; `None` without true boxes.
    pub ap50: Option<f64>,
    /// Mean AP over IoU 0.50:0.05:0.95; `None` without true boxes.
    pub ap50_95: Option<f64>,
    /// AP at each IoU threshold 0.50, 0.55, …, 0.95 (empty without true boxes).
    pub ap_by_iou: Vec<f64>,
    /// At confidence ≥ conf and IoU 0.5; `None` when no detection passes.
    pub precision: Option<f64>,
    /// At confidence ≥ conf and IoU 0.5; `None` without true boxes.
    pub recall: Option<f64>,
}

/// The means over the classes that have true boxes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MeanScore {
    /// How many classes the means are over.
    pub classes: usize,
    pub ap50: Option<f64>,
    pub ap50_95: Option<f64>,
    /// Over those classes whose precision is defined.
    pub precision: Option<f64>,
    pub recall: Option<f64>,
}

/// What `sportz eval --detections` reports; `Serialize` for `--json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DetectionReport {
    pub images: usize,
    /// The operating threshold of precision and recall.
    pub conf: f64,
    /// Truth boxes under this many pixels wide or high were ignored (0: none).
    pub ignore_under: f64,
    /// Every contract class, in [`CLASSES`] order.
    pub classes: Vec<ClassScore>,
    pub mean: MeanScore,
}

/// The IoU thresholds of AP50-95.
#[must_use]
pub fn iou_thresholds() -> [f64; 10] {
    std::array::from_fn(|i| 0.5 + 0.05 * i as f64)
}

/// Whether a truth box is too small to count (`ignore_under` pixels wide or high).
fn ignored(bbox: &[f64; 4], ignore_under: f64) -> bool {
    bbox[2] - bbox[0] < ignore_under || bbox[3] - bbox[1] < ignore_under
}

/// True/false positive flags of `class`'s detections with confidence ≥ `min_conf`, by
/// descending confidence, matched greedily at IoU ≥ `threshold`; detections that only match
/// an ignored truth are left out.
fn matches(
    images: &[LabelledImage],
    class: ObjectClass,
    threshold: f64,
    min_conf: f64,
    ignore_under: f64,
) -> Vec<bool> {
    let mut dets: Vec<(usize, &[f64; 4], f64)> = images
        .iter()
        .enumerate()
        .flat_map(|(i, im)| {
            im.detections
                .iter()
                .filter(|d| d.class == class && d.confidence >= min_conf)
                .map(move |d| (i, &d.bbox, d.confidence))
        })
        .collect();
    // stable: ties keep input order
    dets.sort_by(|a, b| b.2.total_cmp(&a.2));
    let of_class = |im: &'_ LabelledImage, small: bool| -> Vec<[f64; 4]> {
        im.truths
            .iter()
            .filter(|t| t.class == class && ignored(&t.bbox, ignore_under) == small)
            .map(|t| t.bbox)
            .collect()
    };
    let truths: Vec<Vec<[f64; 4]>> = images.iter().map(|im| of_class(im, false)).collect();
    let small: Vec<Vec<[f64; 4]>> = images.iter().map(|im| of_class(im, true)).collect();
    let mut taken: Vec<Vec<bool>> = truths.iter().map(|t| vec![false; t.len()]).collect();
    dets.iter()
        .filter_map(|&(i, bbox, _)| {
            let best = truths[i]
                .iter()
                .enumerate()
                .filter(|(j, _)| !taken[i][*j])
                .map(|(j, t)| (j, iou(bbox, t)))
                .filter(|&(_, v)| v >= threshold)
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((j, _)) = best {
                taken[i][j] = true;
                Some(true)
            } else if small[i].iter().any(|t| iou(bbox, t) >= threshold) {
                None
            } else {
                Some(false)
            }
        })
        .collect()
}

/// COCO's 101-point interpolated AP of true-positive flags in confidence order, over `truths`
/// true boxes (`truths` > 0).
#[must_use]
pub fn average_precision(tp: &[bool], truths: usize) -> f64 {
    let mut recall = Vec::with_capacity(tp.len());
    let mut precision = Vec::with_capacity(tp.len());
    let mut hits = 0usize;
    for (k, &t) in tp.iter().enumerate() {
        hits += usize::from(t);
        recall.push(hits as f64 / truths as f64);
        precision.push(hits as f64 / (k + 1) as f64);
    }
    for k in (0..precision.len().saturating_sub(1)).rev() {
        precision[k] = precision[k].max(precision[k + 1]);
    }
    let sum: f64 = (0..=100u32)
        .map(|r| {
            let r = f64::from(r) / 100.0;
            let k = recall.partition_point(|&v| v < r);
            precision.get(k).copied().unwrap_or(0.0)
        })
        .sum();
    sum / 101.0
}

fn mean(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.flatten().collect();
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Scores detections against truth over `images`, per contract class (see the module doc).
#[must_use]
pub fn evaluate_detections(
    images: &[LabelledImage],
    options: &DetectionOptions,
) -> DetectionReport {
    let classes: Vec<ClassScore> = CLASSES
        .iter()
        .map(|&class| {
            let (truths, ignored_truths) = images
                .iter()
                .flat_map(|im| &im.truths)
                .filter(|t| t.class == class)
                .fold((0, 0), |(n, k), t| {
                    if ignored(&t.bbox, options.ignore_under) {
                        (n, k + 1)
                    } else {
                        (n + 1, k)
                    }
                });
            let detections = images
                .iter()
                .flat_map(|im| &im.detections)
                .filter(|d| d.class == class)
                .count();
            let ap_by_iou: Vec<f64> = if truths == 0 {
                Vec::new()
            } else {
                iou_thresholds()
                    .iter()
                    .map(|&t| {
                        let tp = matches(images, class, t, f64::NEG_INFINITY, options.ignore_under);
                        average_precision(&tp, truths)
                    })
                    .collect()
            };
            let at_conf = matches(images, class, 0.5, options.conf, options.ignore_under);
            let hits = at_conf.iter().filter(|&&t| t).count();
            ClassScore {
                class,
                truths,
                ignored: ignored_truths,
                detections,
                ap50: ap_by_iou.first().copied(),
                ap50_95: (!ap_by_iou.is_empty())
                    .then(|| ap_by_iou.iter().sum::<f64>() / ap_by_iou.len() as f64),
                ap_by_iou,
                precision: (!at_conf.is_empty()).then(|| hits as f64 / at_conf.len() as f64),
                recall: (truths > 0).then(|| hits as f64 / truths as f64),
            }
        })
        .collect();
    let present = || classes.iter().filter(|c| c.truths > 0);
    let mean = MeanScore {
        classes: present().count(),
        ap50: mean(present().map(|c| c.ap50)),
        ap50_95: mean(present().map(|c| c.ap50_95)),
        precision: mean(present().map(|c| c.precision)),
        recall: mean(present().map(|c| c.recall)),
    };
    DetectionReport {
        images: images.len(),
        conf: options.conf,
        ignore_under: options.ignore_under,
        classes,
        mean,
    }
}

fn cell(v: Option<f64>) -> String {
    v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.3}"))
}

impl DetectionReport {
    /// A readable, aligned table: a row per class and the mean.
    #[must_use]
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "detection on {} labelled images (P and R at confidence ≥ {}, IoU ≥ 0.5)",
            self.images, self.conf
        );
        if self.ignore_under > 0.0 {
            let n: usize = self.classes.iter().map(|c| c.ignored).sum();
            let _ = writeln!(
                out,
                "{n} truth boxes under {} px wide or high ignored (not counted, and detections on them neither right nor wrong)",
                self.ignore_under
            );
        }
        let mut rows = vec![
            ["class", "truth", "detections", "AP50", "AP50-95", "P", "R"]
                .map(str::to_owned)
                .to_vec(),
        ];
        for c in &self.classes {
            rows.push(vec![
                class_name(c.class).to_owned(),
                c.truths.to_string(),
                c.detections.to_string(),
                cell(c.ap50),
                cell(c.ap50_95),
                cell(c.precision),
                cell(c.recall),
            ]);
        }
        let m = &self.mean;
        rows.push(vec![
            format!("mean ({} classes)", m.classes),
            self.classes
                .iter()
                .map(|c| c.truths)
                .sum::<usize>()
                .to_string(),
            self.classes
                .iter()
                .map(|c| c.detections)
                .sum::<usize>()
                .to_string(),
            cell(m.ap50),
            cell(m.ap50_95),
            cell(m.precision),
            cell(m.recall),
        ]);
        out.push_str(&grid_with(&rows, true));
        out
    }
}
