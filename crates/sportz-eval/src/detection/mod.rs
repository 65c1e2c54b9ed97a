//! Detection quality on labelled still images, the way `yolo val` reports it: AP50 and AP50-95
//! per class and precision/recall at an operating threshold. Pure, like the rest of the crate:
//! text comes in as `&str` or a `BufRead` with a name for error messages.
//!
//! - [`dets`]: the JSONL that `sportz detect` writes, one [`ImageDetections`] per image, and its
//!   parser.
//! - [`labels`]: YOLO label files (boxes `cls cx cy w h` or polygons `cls x1 y1 x2 y2 …`,
//!   normalised), the class names of a `data.yaml` and where it is looked for, and the mapping of
//!   dataset class names onto the contract's classes.
//! - [`ap`]: matching and average precision ([`evaluate_detections`]) and the [`DetectionReport`]
//!   with its table.
//!
//! Boxes are `[x1, y1, x2, y2]` in the image's pixels on both sides; classes are the contract's
//! [`ObjectClass`] (player, goalkeeper, referee, ball).

pub mod ap;
pub mod dets;
pub mod labels;

pub use ap::{ClassScore, DetectionOptions, DetectionReport, MeanScore, evaluate_detections};
pub use dets::{Detection, ImageDetections, parse_detections_jsonl};
pub use labels::{
    LabelledImage, TruthBox, class_map, data_yaml_candidates, parse_data_yaml_names,
    parse_yolo_labels,
};
pub use sportz_contract::ObjectClass;

/// The classes in the order reports list them.
pub const CLASSES: [ObjectClass; 4] = [
    ObjectClass::Player,
    ObjectClass::Goalkeeper,
    ObjectClass::Referee,
    ObjectClass::Ball,
];

/// The class's name in reports and on the wire (`player`, `goalkeeper`, `referee`, `ball`).
#[must_use]
pub const fn class_name(class: ObjectClass) -> &'static str {
    match class {
        ObjectClass::Player => "player",
        ObjectClass::Goalkeeper => "goalkeeper",
        ObjectClass::Referee => "referee",
        ObjectClass::Ball => "ball",
    }
}

/// Intersection over union of two `[x1, y1, x2, y2]` boxes; 0 when either is empty.
#[must_use]
pub fn iou(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let w = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let h = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let inter = w * h;
    let area = |r: &[f64; 4]| (r[2] - r[0]).max(0.0) * (r[3] - r[1]).max(0.0);
    let union = area(a) + area(b) - inter;
    if union > 0.0 { inter / union } else { 0.0 }
}
