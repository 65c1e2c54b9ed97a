//! Cameras found on still images (`sportz calibrate`) scored against labelled pitch keypoints
//! (YOLO-pose labels: `cls cx cy w h` then 32 × `x y v`, normalised, in the order of roboflow's
//! `SoccerPitchConfiguration`, as in `pitch-keypoints-dfl`).
//!
//! That template has its own units (a 120 × 70 pitch with a 20.15 m penalty box), so keypoints
//! are mapped **by which landmark they are** onto the standard 105 × 68 m pitch
//! ([`KEYPOINT_LANDMARKS`]), never by scaling. Labels are normalised to the exported image, so
//! they hold for any resize of it: a camera found on the un-stretched image scores against the
//! same labels.
//!
//! Per image with a predicted camera: the keypoints' reprojection error in pixels (landmark →
//! predicted camera → pixel vs the labelled pixel) and in metres (labelled pixel → predicted
//! camera → pitch vs the landmark); and, where ≥ 4 keypoints fit a reference homography, the
//! mean error over the 5 m pitch grid the reference sees (the same measure `sportz eval` uses on
//! synthetic truth). Images without a predicted camera count as uncalibrated.

use serde::{Deserialize, Serialize};
use sportz_contract::FrameCamera;
use sportz_vision::Point;
use sportz_vision::pitch::{Calibration, Homography, PointPair, RansacConfig};

use crate::EvalError;

const PA: f64 = 34.0 - 20.16;
const PB: f64 = 34.0 + 20.16;
const GA: f64 = 34.0 - 9.16;
const GB: f64 = 34.0 + 9.16;
const CR: f64 = 9.15;
/// Where the penalty arc meets the penalty-box line (9.15 m from the spot, 5.5 m beyond it):
/// the export labels its keypoints 11, 12, 19 and 20 (1-based) there, at the visible corners of
/// the arc, not at the goal-area width its template names (measured on the train split: the
/// keypoints' median residual to a homography fitted to all of an image's keypoints is 6–9 px
/// at the goal-area width and 1 px at the arc's ends; every other keypoint 1–2 px).
const AA: f64 = 34.0 - 7.312_489_316_231_512;
const AB: f64 = 34.0 + 7.312_489_316_231_512;

/// The standard-pitch landmark (metres) of each of the 32 template keypoints (0-based).
pub const KEYPOINT_LANDMARKS: [(f64, f64); 32] = [
    (0.0, 0.0),
    (0.0, PA),
    (0.0, GA),
    (0.0, GB),
    (0.0, PB),
    (0.0, 68.0),
    (5.5, GA),
    (5.5, GB),
    (11.0, 34.0),
    (16.5, PA),
    (16.5, AA),
    (16.5, AB),
    (16.5, PB),
    (52.5, 0.0),
    (52.5, 34.0 - CR),
    (52.5, 34.0 + CR),
    (52.5, 68.0),
    (88.5, PA),
    (88.5, AA),
    (88.5, AB),
    (88.5, PB),
    (94.0, 34.0),
    (99.5, GA),
    (99.5, GB),
    (105.0, 0.0),
    (105.0, PA),
    (105.0, GA),
    (105.0, GB),
    (105.0, PB),
    (105.0, 68.0),
    (52.5 - CR, 34.0),
    (52.5 + CR, 34.0),
];

/// One line of `sportz calibrate`'s JSONL: the camera found on an image (in the pixels of the
/// image as processed: `width × height`), or why none was.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageCamera {
    pub image: String,
    pub width: u32,
    pub height: u32,
    pub camera: Option<FrameCamera>,
    /// Why there is no camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Milliseconds the search took.
    #[serde(default)]
    pub ms: f64,
}

/// A labelled keypoint, normalised to the image.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Keypoint {
    pub index: usize,
    pub x: f64,
    pub y: f64,
}

/// The visible keypoints of a YOLO-pose label file (its first object).
///
/// # Errors
/// [`EvalError::Line`] for a line that is not `cls cx cy w h` followed by 32 `x y v` triples.
pub fn parse_keypoint_label(text: &str, source_name: &str) -> Result<Vec<Keypoint>, EvalError> {
    let Some((i, line)) = text.lines().enumerate().find(|(_, l)| !l.trim().is_empty()) else {
        return Ok(Vec::new());
    };
    let bad = |reason: String| EvalError::Line {
        source_name: source_name.to_owned(),
        line: i + 1,
        expected: "a YOLO-pose label `cls cx cy w h` then 32 × `x y v` (normalised)",
        reason,
    };
    let v: Vec<f64> = line
        .split_whitespace()
        .map(|f| {
            f.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| bad(format!("`{f}` is not a number")))
        })
        .collect::<Result<_, _>>()?;
    if v.len() != 5 + 32 * 3 {
        return Err(bad(format!("{} numbers, expected {}", v.len(), 5 + 32 * 3)));
    }
    Ok(v[5..]
        .chunks_exact(3)
        .enumerate()
        .filter(|(_, k)| k[2] > 0.0)
        .map(|(index, k)| Keypoint {
            index,
            x: k[0],
            y: k[1],
        })
        .collect())
}

/// Scores of one image.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ImageScore {
    pub image: String,
    pub keypoints: usize,
    pub calibrated: bool,
    pub mean_px: Option<f64>,
    pub mean_m: Option<f64>,
    /// Mean error over the reference's visible 5 m grid, metres.
    pub grid_m: Option<f64>,
}

/// Over all images.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct KeypointReport {
    pub images: usize,
    pub calibrated: usize,
    pub calibrated_share: f64,
    /// Means over calibrated images of each image's mean keypoint error.
    pub mean_px: Option<f64>,
    pub median_px: Option<f64>,
    pub mean_m: Option<f64>,
    pub median_m: Option<f64>,
    /// Grid error against the reference homography (images with one), mean and median.
    pub grid_mean_m: Option<f64>,
    pub grid_median_m: Option<f64>,
    /// Images (of all) calibrated with a grid error within 1.5 m.
    pub within_1_5_m_share: f64,
    pub per_image: Vec<ImageScore>,
}

fn stats(mut v: Vec<f64>) -> (Option<f64>, Option<f64>) {
    if v.is_empty() {
        return (None, None);
    }
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    (Some(mean), Some(v[v.len() / 2]))
}

fn matrix(c: &FrameCamera) -> Option<Homography> {
    let m = c.image_to_pitch;
    Homography::from_matrix([[m[0], m[1], m[2]], [m[3], m[4], m[5]], [m[6], m[7], m[8]]]).ok()
}

/// Scores one image's camera against its keypoints.
#[must_use]
pub fn score_image(cam: &ImageCamera, keypoints: &[Keypoint]) -> ImageScore {
    let (w, h) = (f64::from(cam.width), f64::from(cam.height));
    let px = |k: &Keypoint| Point::new(k.x * w, k.y * h);
    let landmark = |k: &Keypoint| {
        let (x, y) = KEYPOINT_LANDMARKS[k.index];
        Point::new(x, y)
    };
    let pitch_from_image = cam.camera.as_ref().and_then(matrix);
    let image_from_pitch = pitch_from_image.as_ref().and_then(|m| m.inverse().ok());
    let (mut e_px, mut e_m) = (Vec::new(), Vec::new());
    if let (Some(p2i), Some(i2p)) = (&image_from_pitch, &pitch_from_image) {
        for k in keypoints {
            if let Some(q) = p2i.apply(landmark(k)) {
                e_px.push(q.distance(&px(k)));
            }
            if let Some(q) = i2p.apply(px(k)) {
                e_m.push(q.distance(&landmark(k)).min(125.0));
            }
        }
    }
    let reference = (keypoints.len() >= 4)
        .then(|| {
            let pairs: Vec<PointPair> = keypoints
                .iter()
                .map(|k| PointPair {
                    image: px(k),
                    pitch: landmark(k),
                })
                .collect();
            Calibration::fit(
                &pairs,
                &RansacConfig {
                    threshold_m: 1.0,
                    ..RansacConfig::default()
                },
            )
            .ok()
        })
        .flatten();
    let grid_m = match (&reference, &pitch_from_image) {
        (Some(r), Some(pred)) => grid_error(r, pred, w, h),
        _ => None,
    };
    let mean = |v: &[f64]| (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64);
    ImageScore {
        image: cam.image.clone(),
        keypoints: keypoints.len(),
        calibrated: pitch_from_image.is_some(),
        mean_px: mean(&e_px),
        mean_m: mean(&e_m),
        grid_m,
    }
}

/// Mean distance (m) over the 5 m grid points the reference shows inside the image, between each
/// point and where the predicted camera puts its pixel (capped at 125 m).
fn grid_error(reference: &Calibration, pred: &Homography, w: f64, h: f64) -> Option<f64> {
    let mut e = Vec::new();
    for i in 0..=21 {
        for j in 0..=13 {
            let p = Point::new(f64::from(i) * 5.0, (f64::from(j) * 5.0).min(68.0));
            let Some(q) = reference.to_image(p) else {
                continue;
            };
            if !(q.x >= 0.0 && q.y >= 0.0 && q.x < w && q.y < h) {
                continue;
            }
            // the reference must map the pixel back onto the grid point (not through the horizon)
            if reference.to_pitch(q).is_none_or(|b| b.distance(&p) > 0.01) {
                continue;
            }
            e.push(pred.apply(q).map_or(125.0, |r| r.distance(&p).min(125.0)));
        }
    }
    (!e.is_empty()).then(|| e.iter().sum::<f64>() / e.len() as f64)
}

/// The report over images paired with their keypoints.
#[must_use]
pub fn report(scores: Vec<ImageScore>) -> KeypointReport {
    let images = scores.len();
    let calibrated = scores.iter().filter(|s| s.calibrated).count();
    let (mean_px, median_px) = stats(scores.iter().filter_map(|s| s.mean_px).collect());
    let (mean_m, median_m) = stats(scores.iter().filter_map(|s| s.mean_m).collect());
    let (grid_mean_m, grid_median_m) = stats(scores.iter().filter_map(|s| s.grid_m).collect());
    let within = scores
        .iter()
        .filter(|s| s.grid_m.is_some_and(|g| g <= 1.5))
        .count();
    KeypointReport {
        images,
        calibrated,
        calibrated_share: calibrated as f64 / images.max(1) as f64,
        mean_px,
        median_px,
        mean_m,
        median_m,
        grid_mean_m,
        grid_median_m,
        within_1_5_m_share: within as f64 / images.max(1) as f64,
        per_image: scores,
    }
}

/// The report as a table.
#[must_use]
pub fn table(r: &KeypointReport) -> String {
    let f = |v: Option<f64>, unit: &str| {
        v.map_or_else(|| "n/a".to_owned(), |v| format!("{v:.2} {unit}"))
    };
    format!(
        "camera on labelled keypoints\n  images  calibrated        keypoint error (mean / median)        grid error (mean / median)  within 1.5 m\n  {:>6}  {:>5.1} % ({:>3})  {} / {}, {} / {}  {} / {}  {:>5.1} %\n",
        r.images,
        r.calibrated_share * 100.0,
        r.calibrated,
        f(r.mean_px, "px"),
        f(r.median_px, "px"),
        f(r.mean_m, "m"),
        f(r.median_m, "m"),
        f(r.grid_mean_m, "m"),
        f(r.grid_median_m, "m"),
        r.within_1_5_m_share * 100.0,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(points: &[(usize, f64, f64)]) -> String {
        let mut kp = vec![(0.0, 0.0, 0.0); 32];
        for &(i, x, y) in points {
            kp[i] = (x, y, 2.0);
        }
        let mut s = "0 0.5 0.5 1 1".to_owned();
        for (x, y, v) in kp {
            s.push_str(&format!(" {x} {y} {v}"));
        }
        s
    }

    /// A camera that maps pixels of a 1000 × 680 image to metres by x/10 + dx, y/10.
    fn camera(dx: f64) -> ImageCamera {
        ImageCamera {
            image: "a.jpg".into(),
            width: 1000,
            height: 680,
            camera: Some(FrameCamera {
                image_to_pitch: [0.105, 0.0, dx, 0.0, 0.1, 0.0, 0.0, 0.0, 1.0],
                source: sportz_contract::CameraSource::Auto,
                confidence: 1.0,
            }),
            reason: None,
            ms: 1.0,
        }
    }

    #[test]
    fn the_arc_keypoints_lie_on_the_penalty_arc_and_the_box_line() {
        let spot = (11.0, 34.0);
        for i in [10, 11, 18, 19] {
            let (x, y) = KEYPOINT_LANDMARKS[i];
            let spot_x = if x < 52.5 { spot.0 } else { 105.0 - spot.0 };
            let r = ((x - spot_x).powi(2) + (y - spot.1).powi(2)).sqrt();
            assert!((r - CR).abs() < 1e-9, "keypoint {i} is {r} m from its spot");
            assert!(x == 16.5 || x == 88.5, "keypoint {i} off the box line: {x}");
        }
    }

    #[test]
    fn a_camera_equal_to_the_labels_scores_zero_and_a_shift_scores_the_shift() {
        // keypoints exactly where pixel = metres × (1000/105, 10)
        let pts: Vec<(usize, f64, f64)> = [0usize, 5, 13, 16, 24, 29, 30, 31]
            .iter()
            .map(|&i| {
                let (x, y) = KEYPOINT_LANDMARKS[i];
                (i, x / 105.0, y / 68.0)
            })
            .collect();
        let kps = parse_keypoint_label(&label(&pts), "a.txt").unwrap();
        assert_eq!(kps.len(), 8);
        let s = score_image(&camera(0.0), &kps);
        assert!(
            s.mean_m.unwrap() < 1e-9 && s.mean_px.unwrap() < 1e-6,
            "{s:?}"
        );
        assert!(s.grid_m.unwrap() < 1e-9, "{s:?}");
        let s = score_image(&camera(2.0), &kps);
        assert!((s.mean_m.unwrap() - 2.0).abs() < 1e-9, "{s:?}");
        assert!((s.grid_m.unwrap() - 2.0).abs() < 1e-9, "{s:?}");
        let none = ImageCamera {
            camera: None,
            reason: Some("no lines".into()),
            ..camera(0.0)
        };
        let r = report(vec![
            score_image(&camera(0.0), &kps),
            score_image(&none, &kps),
        ]);
        assert_eq!((r.images, r.calibrated), (2, 1));
        assert!((r.within_1_5_m_share - 0.5).abs() < 1e-12);
        assert!(table(&r).contains("50.0 %"));
    }

    #[test]
    fn bad_labels_say_what_was_expected() {
        let e = parse_keypoint_label("0 0.5 0.5 1 1 0.2 0.3", "b.txt").unwrap_err();
        assert!(e.to_string().contains("32 × `x y v`"), "{e}");
        let e = parse_keypoint_label(&label(&[]).replace(" 0 0 0", " x 0 0"), "b.txt").unwrap_err();
        assert!(e.to_string().contains("`x` is not a number"), "{e}");
        assert!(parse_keypoint_label("", "c.txt").unwrap().is_empty());
    }
}
