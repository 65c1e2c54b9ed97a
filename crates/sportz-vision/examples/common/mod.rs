//! What the camera examples share: reading synth truth and `track` JSONL, scoring a camera.

use sportz_vision::pitch::Homography;
use sportz_vision::{BBox, Point};

/// A JSON `[x1, y1, x2, y2]` box (`None`: null or malformed).
pub fn bbox(v: &serde_json::Value) -> Option<BBox> {
    let b = v.as_array()?;
    let f = |i: usize| b.get(i).and_then(serde_json::Value::as_f64);
    Some(BBox::new(
        f(0)? as f32,
        f(1)? as f32,
        f(2)? as f32,
        f(3)? as f32,
    ))
}

/// A JSON 3×3 matrix, row-major (`None`: null or malformed).
pub fn matrix(v: &serde_json::Value) -> Option<[[f64; 3]; 3]> {
    let at = |i: usize, j: usize| v[i][j].as_f64();
    let row = |i: usize| Some([at(i, 0)?, at(i, 1)?, at(i, 2)?]);
    Some([row(0)?, row(1)?, row(2)?])
}

/// The mean distance (m) between the pitch grid points (every 5 m along, 68/13 m across) that
/// the true camera shows in a `w`×`h` frame and where `pitch_from_image` maps their pixels
/// back; `None` when the frame shows none of them.
pub fn grid_error(
    image_from_pitch: &Homography,
    pitch_from_image: &Homography,
    w: u32,
    h: u32,
) -> Option<f64> {
    let (mut sum, mut n) = (0.0, 0u32);
    for i in 0..=21 {
        for j in 0..=13 {
            let p = Point::new(f64::from(i) * 5.0, f64::from(j) * 68.0 / 13.0);
            let Some(px) = image_from_pitch.apply(p) else {
                continue;
            };
            if px.x < 0.0 || px.y < 0.0 || px.x >= f64::from(w) || px.y >= f64::from(h) {
                continue;
            }
            if let Some(q) = pitch_from_image.apply(px) {
                sum += q.distance(&p);
                n += 1;
            }
        }
    }
    (n > 0).then(|| sum / f64::from(n))
}
