//! The SoccerTrack keypoints' homography must map the ground-truth boxes onto the ground-truth
//! metres (skipped when `SPORTZ_ASSETS` is unset).

mod common;

use common::{bbox, keypoints, read_table};
use sportz_vision::Point;
use sportz_vision::pitch::{Calibration, RansacConfig, is_inside};

#[test]
fn keypoint_homography_maps_boxes_onto_ground_truth_metres() {
    let Some(assets) =
        sportz_testkit::assets("keypoint_homography_maps_boxes_onto_ground_truth_metres")
    else {
        return;
    };
    let dir = assets.join("gt/soccertrack");
    let pairs = keypoints(&dir.join("soccer_keypoints.json"));
    assert_eq!(pairs.len(), 65);
    let cal = Calibration::fit(&pairs, &RansacConfig::default()).unwrap();
    let bb = read_table(&dir.join("sample_bbdf.csv"), 5);
    let co = read_table(&dir.join("sample_codf.csv"), 2);
    assert_eq!(bb.ids, co.ids);
    // a ball in the air above the horizon has ground-truth "metres" thousands of metres away: those
    // are checked relative to their distance, everything on the pitch (±10 m) absolutely
    let (mut max_m, mut sum_sq, mut n, mut off_pitch, mut max_rel) =
        (0.0_f64, 0.0, 0usize, 0usize, 0.0_f64);
    for (fb, fc) in bb.frames.iter().zip(&co.frames) {
        for (b, c) in fb.iter().zip(fc) {
            let truth = Point::new(c[0], c[1]);
            let got = cal.foot_to_pitch(&bbox(b)).unwrap();
            let e = got.distance(&truth);
            if is_inside(truth, 10.0) {
                max_m = max_m.max(e);
                sum_sq += e * e;
                n += 1;
            } else {
                off_pitch += 1;
                max_rel = max_rel.max(e / truth.distance(&Point::new(52.5, 34.0)));
            }
        }
    }
    let rms = (sum_sq / n as f64).sqrt();
    println!(
        "soccertrack homography: {} of {} keypoints inliers, keypoint error rms {:.4} m / max {:.4} m \
         (rms {:.2} px / max {:.2} px); {n} boxes on the pitch → metres: rms {rms:.5} m, max {max_m:.5} m; \
         {off_pitch} off the pitch: max relative error {max_rel:.1e}",
        cal.inliers.len(),
        pairs.len(),
        cal.error.rms_m,
        cal.error.max_m,
        cal.error.rms_px,
        cal.error.max_px
    );
    assert!(n > 17_000, "{n} boxes on the pitch");
    assert!(max_rel < 1e-4, "max relative error {max_rel}");
    assert!(max_m < 0.05, "max error {max_m} m");
}
