//! The detections file `sportz detect` writes and `sportz eval --detections` reads: one JSON
//! object a line,
//! `{"image": "frames/a.jpg", "width": 1280, "height": 720, "detections": [{"class": "player",
//! "bbox": [x1, y1, x2, y2], "confidence": 0.91}]}`, boxes in that image's pixels.

use std::io::BufRead;

use serde::{Deserialize, Serialize};
use sportz_contract::ObjectClass;

use crate::EvalError;
use crate::input::lines;

/// One detected object of an image.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Detection {
    pub class: ObjectClass,
    /// `[x1, y1, x2, y2]` in the image's pixels.
    pub bbox: [f64; 4],
    /// 0..1; ranks the detections of a class for AP.
    pub confidence: f64,
}

/// One line of the detections file: an image and everything detected in it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageDetections {
    /// The image's path as `sportz detect` was given it (joined to the folder for a folder).
    pub image: String,
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    pub detections: Vec<Detection>,
}

impl ImageDetections {
    /// The image's file name without its extension: what label files are matched by.
    #[must_use]
    pub fn stem(&self) -> &str {
        stem_of(&self.image)
    }
}

/// The file name of a `/`- or `\`-separated path without its last extension.
#[must_use]
pub fn stem_of(path: &str) -> &str {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    match name.rfind('.') {
        Some(i) if i > 0 => &name[..i],
        _ => name,
    }
}

/// Reads a detections file; returns each image with the 1-based line it was on.
///
/// # Errors
/// [`EvalError::Line`] for a line that is not an image's detections (naming the line), a box
/// that is not `x1 ≤ x2, y1 ≤ y2` with finite numbers, a confidence outside 0..1, or an image
/// whose stem an earlier line already had; [`EvalError::Read`] on an IO error;
/// [`EvalError::Empty`] for a file with no line.
pub fn parse_detections_jsonl(
    reader: impl BufRead,
    source_name: &str,
) -> Result<Vec<(usize, ImageDetections)>, EvalError> {
    let mut out: Vec<(usize, ImageDetections)> = Vec::new();
    let mut seen = std::collections::HashMap::new();
    for item in lines(reader, source_name) {
        let (n, line) = item?;
        let bad = |reason: String| EvalError::Line {
            source_name: source_name.to_owned(),
            line: n,
            expected: "an image's detections {\"image\", \"width\", \"height\", \"detections\"}",
            reason,
        };
        let image: ImageDetections = serde_json::from_str(&line).map_err(|e| bad(e.to_string()))?;
        for (i, d) in image.detections.iter().enumerate() {
            let [x1, y1, x2, y2] = d.bbox;
            if !(d.bbox.iter().all(|v| v.is_finite()) && x1 <= x2 && y1 <= y2) {
                return Err(bad(format!(
                    "detection {i} has bbox {:?}, expected finite [x1, y1, x2, y2] with x1 ≤ x2 and y1 ≤ y2",
                    d.bbox
                )));
            }
            if !(0.0..=1.0).contains(&d.confidence) {
                return Err(bad(format!(
                    "detection {i} has confidence {}, expected 0..1",
                    d.confidence
                )));
            }
        }
        if let Some(first) = seen.insert(image.stem().to_owned(), n) {
            return Err(bad(format!(
                "image `{}` has the same file stem as line {first}; label files are matched by stem",
                image.image
            )));
        }
        out.push((n, image));
    }
    if out.is_empty() {
        return Err(EvalError::Empty {
            source_name: source_name.to_owned(),
            reason: "no image line; expected the JSONL that `sportz detect` writes".to_owned(),
        });
    }
    Ok(out)
}
