//! Detection: model layouts and their decoders, per-class NMS, class names, preprocessing.
//!
//! [`ModelAdapter`] is the entry point: built from the model's output shapes, input size and
//! metadata (it refuses a model that fits no layout, listing the shapes found and the layouts
//! supported), it prepares an image into the input tensor and decodes the output tensors into
//! [`Detections`] in source pixels with contract classes.

mod ball_centre;
mod layout;
mod names;
mod nms;
mod preprocess;
mod tiles;

use sportz_contract::ObjectClass;
use thiserror::Error;

pub use ball_centre::{RECENTRE_MIN_CONFIDENCE, recentre_ball, recentre_balls};
pub use layout::{Layout, LayoutHint, SUPPORTED_LAYOUTS, grid_cells};
pub use names::{COCO80, ClassMap, object_class_for, parse_names_lines, parse_names_metadata};
pub use nms::nms_per_class;
pub use preprocess::{ChannelOrder, InputTransform, PixelScale, Preprocess, Resize, preprocess};
pub use tiles::{Tile, auto_grid, crop_rgb, merge_tiles, tile_grid};

use crate::image::ImageError;
use crate::{BBox, RgbImage};

/// Why a model cannot be used or its outputs cannot be decoded.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum DetectError {
    #[error(
        "unsupported model layout: found outputs {found}; supported layouts: {}",
        SUPPORTED_LAYOUTS
    )]
    UnsupportedLayout { found: String },
    #[error("output `{name}` has {found} values, expected {expected} for its shape {shape:?}")]
    WrongLength {
        name: String,
        shape: Vec<usize>,
        found: usize,
        expected: usize,
    },
    #[error("output `{name}` has shape {shape:?}, expected {expected}")]
    WrongShape {
        name: String,
        shape: Vec<usize>,
        expected: String,
    },
    #[error("the {layout} layout reads output {index}, but the model gave {found} outputs")]
    MissingOutput {
        layout: &'static str,
        index: usize,
        found: usize,
    },
    #[error("invalid class names ({reason}): `{text}`")]
    BadNames { reason: String, text: String },
    #[error("the model outputs {model} classes but its names list {names}")]
    ClassCountMismatch { model: usize, names: usize },
    #[error(
        "the model has no class names (no `names` metadata, no sidecar file) and {classes} classes, expected 80 (COCO) to assume COCO names"
    )]
    NoNames { classes: String },
    #[error(
        "no class of the model maps to player, goalkeeper, referee or ball; its classes are {names}"
    )]
    NoUsefulClass { names: String },
    #[error("model input size {width}x{height} is empty")]
    EmptyInput { width: u32, height: u32 },
    #[error(transparent)]
    Image(#[from] ImageError),
}

/// One detected object. Model adapters fill everything but `track_id`; trackers fill that.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detection {
    /// Pixels (model input while decoding, source frame after [`ModelAdapter::decode`]).
    pub bbox: BBox,
    /// 0..1.
    pub confidence: f32,
    /// The model's class index.
    pub class_id: u32,
    /// The contract class, when the class maps to one.
    pub class: Option<ObjectClass>,
    /// Set by a tracker.
    pub track_id: Option<u64>,
}

impl Detection {
    #[must_use]
    pub const fn new(bbox: BBox, confidence: f32, class_id: u32) -> Self {
        Self {
            bbox,
            confidence,
            class_id,
            class: None,
            track_id: None,
        }
    }

    /// The same detection with a contract class.
    #[must_use]
    pub const fn with_class(mut self, class: ObjectClass) -> Self {
        self.class = Some(class);
        self
    }
}

/// Boxes of two person classes overlapping by more than this IoU are one person
/// ([`Detections::keep_one_box_per_person`]): the decoding's own NMS threshold.
pub const PERSON_IOU: f32 = 0.45;

/// The one detections type that flows through the pipeline.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Detections {
    pub items: Vec<Detection>,
}

impl Detections {
    #[must_use]
    pub const fn new(items: Vec<Detection>) -> Self {
        Self { items }
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.items.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn iter(&self) -> std::slice::Iter<'_, Detection> {
        self.items.iter()
    }

    /// People: players, goalkeepers and referees.
    #[must_use]
    pub fn people(&self) -> Vec<Detection> {
        self.items
            .iter()
            .filter(|d| is_person(d))
            .copied()
            .collect()
    }

    /// Keeps one box per person, whatever its class; the order is kept. Non-maximum
    /// suppression runs per class, and neighbouring anchors of a model can call one man a
    /// referee and a player: both boxes survived, the tracker followed both, and the two tracks
    /// took turns on him (seed 46877: a referee's id flipped between two every 1–4 frames for
    /// 1.5 s). A person box overlapping a more confident box of another person class by more
    /// than [`PERSON_IOU`] is that box's person and is dropped. For tracking (the worker's
    /// detection stage); `sportz detect` keeps every box, as AP wants.
    pub fn keep_one_box_per_person(&mut self) {
        let people: Vec<usize> = (0..self.items.len())
            .filter(|&i| is_person(&self.items[i]))
            .collect();
        let mut by_confidence = people.clone();
        let items = &self.items;
        by_confidence.sort_by(|&a, &b| items[b].confidence.total_cmp(&items[a].confidence));
        let mut dropped = vec![false; items.len()];
        for (k, &i) in by_confidence.iter().enumerate() {
            dropped[i] = by_confidence[..k]
                .iter()
                .any(|&j| !dropped[j] && items[j].bbox.iou(&items[i].bbox) > PERSON_IOU);
        }
        let mut i = 0;
        self.items.retain(|_| {
            i += 1;
            !dropped[i - 1]
        });
    }

    /// Ball candidates.
    #[must_use]
    pub fn balls(&self) -> Vec<Detection> {
        self.items
            .iter()
            .filter(|d| d.class == Some(ObjectClass::Ball))
            .copied()
            .collect()
    }
}

fn is_person(d: &Detection) -> bool {
    matches!(
        d.class,
        Some(ObjectClass::Player | ObjectClass::Goalkeeper | ObjectClass::Referee)
    )
}

impl FromIterator<Detection> for Detections {
    fn from_iter<I: IntoIterator<Item = Detection>>(iter: I) -> Self {
        Self::new(iter.into_iter().collect())
    }
}

/// A model output's name and dimensions as the model declares them (`-1` for dynamic).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorShape {
    pub name: String,
    pub dims: Vec<i64>,
}

impl TensorShape {
    #[must_use]
    pub fn new(name: &str, dims: &[i64]) -> Self {
        Self {
            name: name.to_owned(),
            dims: dims.to_vec(),
        }
    }
}

/// One output tensor after a run: its concrete shape and values (integer outputs such as labels
/// are passed converted to f32).
#[derive(Debug, Clone, Copy)]
pub struct OutputTensor<'a> {
    pub name: &'a str,
    pub shape: &'a [usize],
    pub data: &'a [f32],
}

impl OutputTensor<'_> {
    fn check(&self) -> Result<(), DetectError> {
        let expected: usize = self.shape.iter().product();
        if self.data.len() == expected {
            Ok(())
        } else {
            Err(DetectError::WrongLength {
                name: self.name.to_owned(),
                shape: self.shape.to_vec(),
                found: self.data.len(),
                expected,
            })
        }
    }

    fn wrong_shape(&self, expected: String) -> DetectError {
        DetectError::WrongShape {
            name: self.name.to_owned(),
            shape: self.shape.to_vec(),
            expected,
        }
    }

    fn expect_row_len(&self, row: usize) -> Result<(), DetectError> {
        if self.shape.last() == Some(&row) && self.shape.len() == 3 {
            Ok(())
        } else {
            Err(self.wrong_shape(format!("[1,N,{row}]")))
        }
    }
}

/// Thresholds of decoding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecodeConfig {
    /// Minimum score (objectness × class score where the model has objectness).
    pub confidence_threshold: f32,
    /// NMS IoU above which the weaker box of a class is dropped.
    pub iou_threshold: f32,
    pub max_detections: usize,
    /// Every class at or above the threshold becomes a detection of its own (what `yolo val`
    /// does to compute AP: a box the model half-believes is a goalkeeper still counts as a
    /// player at the player score), rather than the best class only. For evaluation; tracking
    /// wants one class per box.
    pub multi_label: bool,
}

impl Default for DecodeConfig {
    fn default() -> Self {
        Self {
            confidence_threshold: 0.25,
            iou_threshold: 0.45,
            max_detections: 300,
            multi_label: false,
        }
    }
}

/// What a loaded model looks like, as the inference module reads it from the session.
#[derive(Debug, Clone, Copy)]
pub struct ModelSpec<'a> {
    /// `(width, height)` of the model's image input.
    pub input: (u32, u32),
    pub outputs: &'a [TensorShape],
    /// ONNX metadata pairs (`names`, `description`, `end2end`, …).
    pub metadata: &'a [(String, String)],
    /// The contents of a sidecar names file (one name a line), which wins over metadata.
    pub sidecar_names: Option<&'a str>,
}

/// A model's layout, preprocessing and classes: everything needed around an inference call.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelAdapter {
    layout: Layout,
    preprocess: Preprocess,
    classes: ClassMap,
    input: (u32, u32),
}

impl ModelAdapter {
    /// Recognises the model or says why it cannot be used.
    pub fn new(spec: &ModelSpec<'_>) -> Result<Self, DetectError> {
        let (w, h) = spec.input;
        if w == 0 || h == 0 {
            return Err(DetectError::EmptyInput {
                width: w,
                height: h,
            });
        }
        let names = match spec.sidecar_names {
            Some(text) => Some(parse_names_lines(text)),
            None => spec
                .metadata
                .iter()
                .find(|(k, _)| k == "names")
                .map(|(_, v)| parse_names_metadata(v))
                .transpose()?,
        };
        let hint = LayoutHint::from_metadata(spec.metadata);
        let layout =
            match Layout::detect(spec.outputs, spec.input, names.as_ref().map(Vec::len), hint) {
                Ok(layout) => layout,
                // the shapes fit a layout, but not with this many names: say so
                Err(e) => match Layout::detect(spec.outputs, spec.input, None, hint) {
                    Ok(layout) if names.is_some() && layout.num_classes().is_some() => layout,
                    _ => return Err(e),
                },
            };
        let names = match (names, layout.num_classes()) {
            (Some(n), Some(nc)) if n.len() != nc => {
                return Err(DetectError::ClassCountMismatch {
                    model: nc,
                    names: n.len(),
                });
            }
            (Some(n), _) => n,
            (None, Some(80) | None) => COCO80.map(String::from).to_vec(),
            (None, Some(nc)) => {
                return Err(DetectError::NoNames {
                    classes: nc.to_string(),
                });
            }
        };
        let classes = ClassMap::from_names(names);
        if !classes.maps_anything() {
            let mut list: Vec<&str> = classes
                .names()
                .iter()
                .take(10)
                .map(String::as_str)
                .collect();
            if classes.names().len() > 10 {
                list.push("…");
            }
            return Err(DetectError::NoUsefulClass {
                names: list.join(", "),
            });
        }
        let preprocess = match layout {
            Layout::YoloX { .. } => Preprocess::YOLOX,
            Layout::DetrScores { .. } | Layout::DetrLabels { .. } => Preprocess::DETR,
            Layout::YoloV5 { .. } | Layout::YoloV8 { .. } | Layout::EndToEnd { .. } => {
                Preprocess::ULTRALYTICS
            }
        };
        Ok(Self {
            layout,
            preprocess,
            classes,
            input: spec.input,
        })
    }

    #[must_use]
    pub const fn layout(&self) -> &Layout {
        &self.layout
    }

    #[must_use]
    pub const fn preprocess(&self) -> &Preprocess {
        &self.preprocess
    }

    #[must_use]
    pub const fn classes(&self) -> &ClassMap {
        &self.classes
    }

    /// `(width, height)` of the model input.
    #[must_use]
    pub const fn input(&self) -> (u32, u32) {
        self.input
    }

    /// The input tensor `[1,3,h,w]` for an image, and the transform back to its pixels.
    #[must_use]
    pub fn prepare(&self, image: &RgbImage<'_>) -> (Vec<f32>, InputTransform) {
        preprocess(image, &self.preprocess, self.input)
    }

    /// Decodes the outputs into detections in source pixels, keeping only the classes that map to
    /// a contract class.
    pub fn decode(
        &self,
        outputs: &[OutputTensor<'_>],
        transform: &InputTransform,
        cfg: &DecodeConfig,
    ) -> Result<Detections, DetectError> {
        let dets = self.layout.decode(outputs, self.input, cfg)?;
        Ok(dets
            .into_iter()
            .filter_map(|d| {
                let class = self.classes.class_of(d.class_id)?;
                let bbox = transform.box_to_source(&d.bbox);
                (bbox.area() > 0.0).then_some(Detection {
                    bbox,
                    ..d.with_class(class)
                })
            })
            .collect())
    }
}

#[cfg(test)]
mod tests;
