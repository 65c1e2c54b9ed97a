//! Per-class non-maximum suppression.

use super::Detection;

/// Keeps, per class, the most confident boxes that overlap no kept box of the same class by more
/// than `iou_threshold`; the result is sorted by confidence (highest first), at most `max_keep`.
#[must_use]
pub fn nms_per_class(
    mut dets: Vec<Detection>,
    iou_threshold: f32,
    max_keep: usize,
) -> Vec<Detection> {
    dets.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    let mut kept: Vec<Detection> = Vec::new();
    for d in dets {
        if kept.len() >= max_keep {
            break;
        }
        let suppressed = kept
            .iter()
            .any(|k| k.class_id == d.class_id && k.bbox.iou(&d.bbox) > iou_threshold);
        if !suppressed {
            kept.push(d);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::BBox;

    fn det(x1: f32, conf: f32, class_id: u32) -> Detection {
        Detection::new(BBox::new(x1, 0.0, x1 + 10.0, 10.0), conf, class_id)
    }

    /// `(x1, conf, class)` in, the kept `(x1, class)` out, in order.
    fn check(input: &[(f32, f32, u32)], iou: f32, expected: &[(f32, u32)]) {
        let dets = input.iter().map(|&(x, c, k)| det(x, c, k)).collect();
        let got: Vec<(f32, u32)> = nms_per_class(dets, iou, 100)
            .iter()
            .map(|d| (d.bbox.x1, d.class_id))
            .collect();
        assert_eq!(got, expected, "input {input:?}");
    }

    #[test]
    fn suppresses_overlaps_within_a_class_only() {
        check(&[], 0.5, &[]);
        check(&[(0., 0.9, 0)], 0.5, &[(0., 0)]);
        // same class, IoU 0.82 → the weaker goes
        check(&[(0., 0.8, 0), (1., 0.9, 0)], 0.5, &[(1., 0)]);
        // different classes never suppress each other
        check(&[(0., 0.8, 0), (1., 0.9, 32)], 0.5, &[(1., 32), (0., 0)]);
        // IoU 1/3 is under the threshold: both stay
        check(&[(0., 0.8, 0), (5., 0.9, 0)], 0.5, &[(5., 0), (0., 0)]);
        // a chain: b suppressed by a, c overlaps b but not a, so c stays
        check(
            &[(0., 0.9, 0), (2., 0.8, 0), (8., 0.7, 0)],
            0.5,
            &[(0., 0), (8., 0)],
        );
    }

    #[test]
    fn caps_the_number_kept() {
        let dets = (0..10).map(|i| det(20.0 * i as f32, 0.5, 0)).collect();
        assert_eq!(nms_per_class(dets, 0.5, 3).len(), 3);
    }
}
