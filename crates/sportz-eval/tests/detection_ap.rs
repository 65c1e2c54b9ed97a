//! Average precision on hand-computed cases: one `check(images, expected)` per case, each image
//! its detections and its true boxes.

use sportz_eval::detection::{
    Detection, DetectionOptions, LabelledImage, ObjectClass, TruthBox, evaluate_detections,
};

use ObjectClass::{Ball, Player};

const A: [f64; 4] = [0.0, 0.0, 10.0, 20.0];
const B: [f64; 4] = [100.0, 100.0, 110.0, 120.0];
const FAR: [f64; 4] = [500.0, 500.0, 510.0, 520.0];

fn det(class: ObjectClass, bbox: [f64; 4], confidence: f64) -> Detection {
    Detection {
        class,
        bbox,
        confidence,
    }
}

fn truth(class: ObjectClass, bbox: [f64; 4]) -> TruthBox {
    TruthBox { class, bbox }
}

fn image(detections: Vec<Detection>, truths: Vec<TruthBox>) -> LabelledImage {
    LabelledImage { detections, truths }
}

/// What one class should score: AP50, AP50-95, precision and recall at conf 0.25.
struct Want {
    class: ObjectClass,
    ap50: Option<f64>,
    ap50_95: Option<f64>,
    precision: Option<f64>,
    recall: Option<f64>,
}

fn close(got: Option<f64>, want: Option<f64>) -> bool {
    match (got, want) {
        (Some(g), Some(w)) => (g - w).abs() < 1e-9,
        (None, None) => true,
        _ => false,
    }
}

fn check(images: &[LabelledImage], expected: &[Want], mean_ap50: Option<f64>) {
    let report = evaluate_detections(images, &DetectionOptions::default());
    for w in expected {
        let c = report
            .classes
            .iter()
            .find(|c| c.class == w.class)
            .expect("every class is reported");
        assert!(
            close(c.ap50, w.ap50),
            "{:?} AP50 {:?}, want {:?}",
            w.class,
            c.ap50,
            w.ap50
        );
        assert!(
            close(c.ap50_95, w.ap50_95),
            "{:?} AP50-95 {:?}, want {:?}",
            w.class,
            c.ap50_95,
            w.ap50_95
        );
        assert!(
            close(c.precision, w.precision),
            "{:?} P {:?}, want {:?}",
            w.class,
            c.precision,
            w.precision
        );
        assert!(
            close(c.recall, w.recall),
            "{:?} R {:?}, want {:?}",
            w.class,
            c.recall,
            w.recall
        );
    }
    assert!(
        close(report.mean.ap50, mean_ap50),
        "mean AP50 {:?}, want {mean_ap50:?}",
        report.mean.ap50
    );
}

fn want(class: ObjectClass, ap50: f64, ap50_95: f64, precision: Option<f64>, recall: f64) -> Want {
    Want {
        class,
        ap50: Some(ap50),
        ap50_95: Some(ap50_95),
        precision,
        recall: Some(recall),
    }
}

#[test]
fn perfect_detection_is_one() {
    check(
        &[
            image(vec![det(Player, A, 0.9)], vec![truth(Player, A)]),
            image(vec![det(Player, B, 0.3)], vec![truth(Player, B)]),
        ],
        &[want(Player, 1.0, 1.0, Some(1.0), 1.0)],
        Some(1.0),
    );
}

#[test]
fn a_false_positive_ranked_above_the_true_one_halves_precision() {
    // tp = [F, T]: precision 0, 1/2 → monotone 1/2 at every recall
    check(
        &[image(
            vec![det(Player, FAR, 0.9), det(Player, A, 0.8)],
            vec![truth(Player, A)],
        )],
        &[want(Player, 0.5, 0.5, Some(0.5), 1.0)],
        Some(0.5),
    );
}

#[test]
fn a_missed_truth_caps_recall() {
    // recall reaches 0.5 with precision 1: 51 of the 101 recall points
    let ap = 51.0 / 101.0;
    check(
        &[image(
            vec![det(Player, A, 0.9)],
            vec![truth(Player, A), truth(Player, B)],
        )],
        &[want(Player, ap, ap, Some(1.0), 0.5)],
        Some(ap),
    );
}

#[test]
fn duplicates_are_false_positives() {
    // one truth found twice: tp = [T, F], AP stays 1, precision at 0.25 is 1/2
    check(
        &[image(
            vec![det(Player, A, 0.9), det(Player, A, 0.8)],
            vec![truth(Player, A)],
        )],
        &[want(Player, 1.0, 1.0, Some(0.5), 1.0)],
        Some(1.0),
    );
    // two truths, the first found twice before the second: tp = [T, F, T],
    // precision 1, 1/2, 2/3 → monotone 1, 2/3, 2/3; 51 points at 1, 50 at 2/3
    let ap = (51.0 + 50.0 * 2.0 / 3.0) / 101.0;
    check(
        &[image(
            vec![
                det(Player, A, 0.9),
                det(Player, A, 0.8),
                det(Player, B, 0.7),
            ],
            vec![truth(Player, A), truth(Player, B)],
        )],
        &[want(Player, ap, ap, Some(2.0 / 3.0), 1.0)],
        Some(ap),
    );
}

#[test]
fn a_box_of_iou_0_62_counts_at_three_of_ten_thresholds() {
    // [0,0,10,12.4] inside [0,0,10,20]: IoU 0.62 ≥ 0.50, 0.55, 0.60 only
    let loose = [0.0, 0.0, 10.0, 12.4];
    check(
        &[image(vec![det(Player, loose, 0.9)], vec![truth(Player, A)])],
        &[want(Player, 1.0, 0.3, Some(1.0), 1.0)],
        Some(1.0),
    );
}

#[test]
fn a_detection_matches_only_truth_in_its_own_image() {
    check(
        &[
            image(vec![det(Player, A, 0.9)], vec![]),
            image(vec![], vec![truth(Player, A)]),
        ],
        &[want(Player, 0.0, 0.0, Some(0.0), 0.0)],
        Some(0.0),
    );
}

#[test]
fn two_classes_are_scored_apart_and_averaged() {
    // the player found; the ball box is right but classed player: a player FP and a missed ball
    check(
        &[image(
            vec![
                det(Player, A, 0.9),
                det(Player, B, 0.8),
                det(Ball, FAR, 0.7),
            ],
            vec![truth(Player, A), truth(Ball, B)],
        )],
        &[
            want(Player, 1.0, 1.0, Some(0.5), 1.0),
            want(Ball, 0.0, 0.0, Some(0.0), 0.0),
            Want {
                class: ObjectClass::Referee,
                ap50: None,
                ap50_95: None,
                precision: None,
                recall: None,
            },
        ],
        Some(0.5),
    );
    let report = evaluate_detections(
        &[image(
            vec![det(Player, A, 0.9)],
            vec![truth(Player, A), truth(Ball, B)],
        )],
        &DetectionOptions::default(),
    );
    assert_eq!(report.mean.classes, 2);
    assert_eq!(report.classes.len(), 4);
}

#[test]
fn no_predictions_score_zero() {
    check(
        &[image(vec![], vec![truth(Player, A), truth(Ball, B)])],
        &[
            want(Player, 0.0, 0.0, None, 0.0),
            want(Ball, 0.0, 0.0, None, 0.0),
        ],
        Some(0.0),
    );
}

#[test]
fn no_truth_leaves_ap_undefined() {
    check(
        &[image(vec![det(Player, A, 0.9)], vec![])],
        &[Want {
            class: Player,
            ap50: None,
            ap50_95: None,
            precision: Some(0.0),
            recall: None,
        }],
        None,
    );
}

#[test]
fn the_operating_threshold_only_moves_precision_and_recall() {
    // a low-confidence true positive counts for AP but not at conf 0.25
    check(
        &[image(
            vec![det(Player, A, 0.9), det(Player, B, 0.1)],
            vec![truth(Player, A), truth(Player, B)],
        )],
        &[want(Player, 1.0, 1.0, Some(1.0), 0.5)],
        Some(1.0),
    );
}

#[test]
fn the_table_lists_every_class_and_the_mean() {
    let report = evaluate_detections(
        &[image(vec![det(Player, A, 0.9)], vec![truth(Player, A)])],
        &DetectionOptions::default(),
    );
    let table = report.table();
    for want in [
        "player",
        "goalkeeper",
        "referee",
        "ball",
        "mean (1 classes)",
        "AP50-95",
        "1.000",
        "n/a",
    ] {
        assert!(table.contains(want), "{want} missing:\n{table}");
    }
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(json["classes"][0]["class"], "player");
    assert_eq!(
        json["classes"][0]["ap_by_iou"].as_array().unwrap().len(),
        10
    );
}

#[test]
fn truth_boxes_under_the_size_floor_are_ignored_like_crowd_regions() {
    // a 2×5 px sliver of an occluded player, the player A, and a false player far away
    let sliver = [200.0, 200.0, 202.0, 205.0];
    let images = [image(
        vec![
            det(Player, sliver, 0.99),
            det(Player, FAR, 0.95),
            det(Player, A, 0.9),
        ],
        vec![truth(Player, A), truth(Player, sliver)],
    )];
    let score = |ignore_under: f64| {
        let options = DetectionOptions {
            ignore_under,
            ..DetectionOptions::default()
        };
        let report = evaluate_detections(&images, &options);
        report.classes[0].clone()
    };
    // counted: TP (r 0.5, p 1), FP, TP (r 1, p 2/3) → (51·1 + 50·2/3) / 101
    let all = score(0.0);
    assert_eq!((all.truths, all.ignored), (2, 0));
    assert!((all.ap50.unwrap() - (51.0 + 100.0 / 3.0) / 101.0).abs() < 1e-9);
    // ignored: the sliver's detection drops out of the ranking; FP then TP → 0.5 at every recall
    let some = score(4.0);
    assert_eq!((some.truths, some.ignored), (1, 1));
    assert!((some.ap50.unwrap() - 0.5).abs() < 1e-9, "{:?}", some.ap50);
    assert_eq!((some.precision, some.recall), (Some(0.5), Some(1.0)));
    let table = evaluate_detections(
        &images,
        &DetectionOptions {
            ignore_under: 4.0,
            ..DetectionOptions::default()
        },
    )
    .table();
    assert!(table.contains("1 truth boxes under 4 px"), "{table}");
}
