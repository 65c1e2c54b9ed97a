use super::*;
use crate::rng::SplitMix64;

/// A broadcast-like camera: pitch metres → image pixels (perspective, the far side smaller).
fn camera() -> Homography {
    Homography::from_matrix([[12.0, 3.0, 100.0], [0.5, 6.0, 200.0], [0.0005, 0.004, 1.0]]).unwrap()
}

fn pairs_for(names: &[&str], cam: &Homography) -> Vec<PointPair> {
    names
        .iter()
        .map(|n| {
            let pitch = landmark(n).unwrap();
            PointPair {
                image: cam.apply(pitch).unwrap(),
                pitch,
            }
        })
        .collect()
}

const FOUR: [&str; 4] = [
    "corner_top_left",
    "corner_top_right",
    "corner_bottom_right",
    "corner_bottom_left",
];

#[test]
fn four_landmarks_recover_the_camera_exactly() {
    let cam = camera();
    let cal = Calibration::fit(&pairs_for(&FOUR, &cam), &RansacConfig::default()).unwrap();
    for l in LANDMARKS {
        let px = cam.apply(l.pitch).unwrap();
        let back = cal.to_pitch(px).unwrap();
        assert!(back.distance(&l.pitch) < 1e-6, "{}: {back:?}", l.name);
        assert!(cal.to_image(l.pitch).unwrap().distance(&px) < 1e-6);
    }
    assert!(
        cal.error.max_m < 1e-9 && cal.error.max_px < 1e-6,
        "{:?}",
        cal.error
    );
    assert_eq!(cal.inliers, [0, 1, 2, 3]);
}

#[test]
fn ransac_drops_outliers_and_reports_the_error() {
    let cam = camera();
    let names: Vec<&str> = LANDMARKS.iter().map(|l| l.name).collect();
    let mut pairs = pairs_for(&names, &cam);
    let mut rng = SplitMix64::new(3);
    for p in &mut pairs {
        p.image.x += 0.3 * rng.gaussian();
        p.image.y += 0.3 * rng.gaussian();
    }
    // four gross mismatches (a landmark clicked on the wrong marking)
    for i in [2, 9, 17, 30] {
        pairs[i].image.x += 150.0;
    }
    let cal = Calibration::fit(&pairs, &RansacConfig::default()).unwrap();
    assert_eq!(cal.inliers.len(), LANDMARKS.len() - 4, "{:?}", cal.inliers);
    assert!(![2, 9, 17, 30].iter().any(|i| cal.inliers.contains(i)));
    assert!(
        cal.error.rms_m < 0.1 && cal.error.rms_px < 1.0,
        "{:?}",
        cal.error
    );
    assert!(cal.error.max_m >= cal.error.rms_m && cal.error.max_px >= cal.error.rms_px);
    let centre = cal
        .to_pitch(cam.apply(landmark("centre_spot").unwrap()).unwrap())
        .unwrap();
    assert!(centre.distance(&Point::new(52.5, 34.0)) < 0.1, "{centre:?}");
}

fn pair(ix: f64, iy: f64, px: f64, py: f64) -> PointPair {
    PointPair {
        image: Point::new(ix, iy),
        pitch: Point::new(px, py),
    }
}

fn check_err(pairs: &[PointPair], expected: &str) {
    let err = Calibration::fit(pairs, &RansacConfig::default())
        .unwrap_err()
        .to_string();
    assert_eq!(err, expected);
}

#[test]
fn degenerate_input_is_refused_with_the_reason() {
    let square = [
        pair(0., 0., 0., 0.),
        pair(100., 0., 105., 0.),
        pair(100., 100., 105., 68.),
        pair(0., 100., 0., 68.),
    ];
    check_err(&square[..3], "need at least 4 point pairs, got 3");
    check_err(&[], "need at least 4 point pairs, got 0");
    let mut dup = square;
    dup[3].image = dup[1].image;
    check_err(
        &dup,
        "image points 1 and 3 coincide, expected distinct points",
    );
    let mut dup = square;
    dup[2].pitch = dup[0].pitch;
    check_err(
        &dup,
        "pitch points 0 and 2 coincide, expected distinct points",
    );
    let mut line = square;
    line[2].image = Point::new(50.0, 0.0);
    check_err(
        &line,
        "image points 0, 1 and 2 are collinear, expected no three of four on a line",
    );
    let mut nan = square;
    nan[1].pitch.x = f64::NAN;
    check_err(&nan, "point pair 1 is not finite");
    let on_a_line: Vec<PointPair> = (0..6)
        .map(|i| {
            pair(
                f64::from(i),
                2.0 * f64::from(i),
                f64::from(i) * 10.0,
                f64::from(i),
            )
        })
        .collect();
    check_err(
        &on_a_line,
        "all image points lie on one line, expected them spread over the plane",
    );
    // five pairs, four on a line plus one: no unique homography, and RANSAC finds no good sample
    let mut four_on_line: Vec<PointPair> = (0..4)
        .map(|i| pair(f64::from(i) * 10.0, 0.0, f64::from(i) * 10.0, 0.0))
        .collect();
    four_on_line.push(pair(5.0, 50.0, 5.0, 50.0));
    check_err(
        &four_on_line,
        "ransac found no model with at least 4 inliers within 3 m among 5 pairs",
    );
    assert!(
        fit_dlt(
            &four_on_line.iter().map(|p| p.image).collect::<Vec<_>>(),
            &four_on_line.iter().map(|p| p.pitch).collect::<Vec<_>>()
        )
        .is_err()
    );
}

#[test]
fn homographies_refuse_singular_matrices_and_points_at_infinity() {
    assert_eq!(
        Homography::from_matrix([[1., 2., 3.], [2., 4., 6.], [0., 0., 1.]]),
        Err(PitchError::Singular)
    );
    assert_eq!(
        Homography::from_matrix([[f64::NAN, 0., 0.], [0., 1., 0.], [0., 0., 1.]]),
        Err(PitchError::Singular)
    );
    let h = Homography::from_matrix([[1., 0., 0.], [0., 1., 0.], [1., 0., 1.]]).unwrap();
    assert_eq!(
        h.apply(Point::new(-1.0, 5.0)),
        None,
        "x = -1 lies on the line at infinity"
    );
    let inv = h.inverse().unwrap();
    let p = h.apply(Point::new(2.0, 3.0)).unwrap();
    assert!(inv.apply(p).unwrap().distance(&Point::new(2.0, 3.0)) < 1e-12);
}

#[test]
fn landmarks_and_lines() {
    let cases = [
        ("centre_spot", (52.5, 34.0)),
        ("right_penalty_spot", (94.0, 34.0)),
        ("left_penalty_area_bottom", (16.5, 54.16)),
        ("right_goal_area_top", (99.5, 24.84)),
        ("left_goal_post_top", (0.0, 30.34)),
    ];
    for (name, (x, y)) in cases {
        let p = landmark(name).unwrap();
        assert!(
            (p.x - x).abs() < 1e-9 && (p.y - y).abs() < 1e-9,
            "{name}: {p:?}"
        );
    }
    assert_eq!(
        landmark("penalty_spot").unwrap_err().to_string(),
        "unknown landmark `penalty_spot`"
    );
    let names: std::collections::HashSet<&str> = LANDMARKS.iter().map(|l| l.name).collect();
    assert_eq!(names.len(), LANDMARKS.len(), "landmark names are unique");
    assert!(is_inside(Point::new(0.0, 68.0), 0.0));
    assert!(!is_inside(Point::new(-0.5, 30.0), 0.2));
    assert!(is_inside(Point::new(-0.5, 30.0), 1.0));
}

#[test]
fn a_reading_is_surely_beyond_a_line_only_with_the_camera_beyond_it_too() {
    // (reading, camera, surely beyond by 0.3 m)
    let main_camera = Point::new(52.5, 106.0);
    let behind_the_left_goal = Point::new(-30.0, 34.0);
    let cases = [
        // beyond the near touchline, the camera's side: nothing in the air reads out there
        (Point::new(60.0, 70.6), main_camera, true),
        (Point::new(60.0, 68.2), main_camera, false), // within the margin
        // beyond the far touchline: may be a ball in the air above the pitch
        (Point::new(60.0, -4.0), main_camera, false),
        // beyond a goal line, the camera at halfway
        (Point::new(-2.0, 30.0), main_camera, false),
        (Point::new(107.0, 30.0), main_camera, false),
        // a camera behind the left goal sees beyond that goal line surely, not the others
        (Point::new(-2.0, 30.0), behind_the_left_goal, true),
        (Point::new(107.0, 30.0), behind_the_left_goal, false),
        (Point::new(60.0, 70.6), behind_the_left_goal, false),
        // inside the lines: never
        (Point::new(52.5, 34.0), main_camera, false),
        // beyond two lines (a corner), the camera beyond one of them
        (Point::new(-1.0, 69.0), main_camera, true),
    ];
    for (p, cam, sure) in cases {
        assert_eq!(
            surely_beyond_a_line(p, cam, 0.3),
            sure,
            "{p:?} seen from {cam:?}"
        );
    }
}
