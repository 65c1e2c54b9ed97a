//! Model output layouts: recognised from the output shapes (and metadata where shapes alone are
//! ambiguous), and decoded into [`Detection`]s in model-input pixels.

use super::nms::nms_per_class;
use super::{DecodeConfig, DetectError, Detection, OutputTensor, TensorShape};
use crate::BBox;

/// The layouts this crate decodes, for error messages.
pub const SUPPORTED_LAYOUTS: &str = "yolov5 [1,N,5+nc] (decoded xywh, objectness); \
yolov8/11 [1,4+nc,N]; yolox [1,N,5+nc] raw grids over strides 8/16/32; \
end-to-end [1,K,6] x1,y1,x2,y2,score,class (yolov10, nms=True); \
rt-detr (ultralytics) [1,K,4+nc] normalised cxcywh; \
rt-detr/d-fine outputs labels [1,K], boxes [1,K,4], scores [1,K]";

/// What the model's metadata says about its family, where shapes alone are ambiguous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayoutHint {
    /// The metadata names YOLOX.
    pub yolox: bool,
    /// The metadata says the model ends in NMS (`end2end`/`nms` true).
    pub end_to_end: bool,
}

impl LayoutHint {
    /// Reads the hint from ONNX metadata pairs.
    #[must_use]
    pub fn from_metadata(metadata: &[(String, String)]) -> Self {
        let mut hint = Self::default();
        for (k, v) in metadata {
            let (k, v) = (k.to_ascii_lowercase(), v.to_ascii_lowercase());
            if v.contains("yolox") || k.contains("yolox") {
                hint.yolox = true;
            }
            if (k == "end2end" || k == "nms") && (v == "true" || v == "1") {
                hint.end_to_end = true;
            }
        }
        hint
    }
}

/// One supported layout, with where its tensors are among the model's outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// `[1, N, 5+nc]`: `cx, cy, w, h` in input pixels, objectness, class scores (all sigmoided).
    YoloV5 { output: usize, num_classes: usize },
    /// `[1, 4+nc, N]`: `cx, cy, w, h` in input pixels, class scores; channels first.
    YoloV8 { output: usize, num_classes: usize },
    /// `[1, N, 5+nc]` raw grids: `xy = (out + grid)·stride`, `wh = exp(out)·stride`, objectness
    /// and class scores already sigmoided; cells row-major per stride.
    YoloX {
        output: usize,
        num_classes: usize,
        strides: Vec<u32>,
    },
    /// `[1, K, 6]`: `x1, y1, x2, y2, score, class` after the model's own NMS.
    EndToEnd { output: usize },
    /// Ultralytics RT-DETR `[1, K, 4+nc]`: normalised `cx, cy, w, h`, class scores.
    DetrScores { output: usize, num_classes: usize },
    /// RT-DETR / D-FINE: `labels [1,K]`, `boxes [1,K,4]` xyxy (input pixels, or normalised when
    /// every coordinate is ≤ 1), `scores [1,K]`.
    DetrLabels {
        labels: usize,
        boxes: usize,
        scores: usize,
    },
}

fn describe(outputs: &[TensorShape]) -> String {
    if outputs.is_empty() {
        return "no outputs".into();
    }
    outputs
        .iter()
        .map(|o| {
            let dims: Vec<String> = o
                .dims
                .iter()
                .map(|&d| if d < 0 { "?".into() } else { d.to_string() })
                .collect();
            format!("{} [{}]", o.name, dims.join(","))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Grid cells over strides 8/16/32 for an input size (the anchor-free `N`).
#[must_use]
pub fn grid_cells(input: (u32, u32), strides: &[u32]) -> usize {
    strides
        .iter()
        .map(|s| (input.0.div_ceil(*s) * input.1.div_ceil(*s)) as usize)
        .sum()
}

const STRIDES: [u32; 3] = [8, 16, 32];

impl Layout {
    /// Recognises the layout from the output shapes (`-1` = dynamic), the input size, the number
    /// of class names when known, and the metadata hint.
    pub fn detect(
        outputs: &[TensorShape],
        input: (u32, u32),
        names: Option<usize>,
        hint: LayoutHint,
    ) -> Result<Self, DetectError> {
        let unsupported = || DetectError::UnsupportedLayout {
            found: describe(outputs),
        };
        let dim = |d: i64| usize::try_from(d).ok();
        // three outputs named labels/boxes/scores
        let find = |needle: &str| {
            outputs
                .iter()
                .position(|o| o.name.to_ascii_lowercase().contains(needle))
        };
        if let (Some(labels), Some(boxes), Some(scores)) =
            (find("label"), find("box"), find("score"))
        {
            let ok = outputs[boxes].dims.len() == 3
                && outputs[boxes].dims[2] == 4
                && outputs[labels].dims.len() == 2
                && outputs[scores].dims.len() == 2;
            return if ok {
                Ok(Self::DetrLabels {
                    labels,
                    boxes,
                    scores,
                })
            } else {
                Err(unsupported())
            };
        }
        let (output, shape) = outputs
            .iter()
            .enumerate()
            .find(|(_, o)| o.dims.len() == 3)
            .ok_or_else(unsupported)?;
        let (a, c) = (dim(shape.dims[1]), dim(shape.dims[2]));
        // end-to-end: 6 values per row (a one-class YOLOv5 is also `[1,N,6]`; names decide)
        if c == Some(6) && (hint.end_to_end || names != Some(1)) {
            return Ok(Self::EndToEnd { output });
        }
        let grid = grid_cells(input, &STRIDES);
        // with no names, a dimension equal to the grid size tells the families apart
        if names.is_none() {
            match (a, c) {
                (Some(a), Some(c)) if c == grid && a >= 5 => {
                    return Ok(Self::YoloV8 {
                        output,
                        num_classes: a - 4,
                    });
                }
                (Some(a), Some(c)) if a == grid && c >= 6 => {
                    return Ok(Self::YoloX {
                        output,
                        num_classes: c - 5,
                        strides: STRIDES.to_vec(),
                    });
                }
                (Some(a), Some(c)) if a == 3 * grid && c >= 6 => {
                    return Ok(Self::YoloV5 {
                        output,
                        num_classes: c - 5,
                    });
                }
                _ => {}
            }
        }
        match (a, c, names) {
            // channels first: the small dimension is 4+nc
            (Some(a), _, Some(nc)) if a == 4 + nc => Ok(Self::YoloV8 {
                output,
                num_classes: nc,
            }),
            (Some(a), Some(c), None) if a >= 5 && a < c => Ok(Self::YoloV8 {
                output,
                num_classes: a - 4,
            }),
            (Some(a), None, None) if a >= 5 => Ok(Self::YoloV8 {
                output,
                num_classes: a - 4,
            }),
            // DETR: rows of 4+nc
            (_, Some(c), Some(nc)) if c == 4 + nc => Ok(Self::DetrScores {
                output,
                num_classes: nc,
            }),
            // rows of 5+nc: YOLOX has one row per grid cell, YOLOv5 three anchors per cell
            (a, Some(c), nc) if c >= 6 && nc.is_none_or(|nc| c == 5 + nc) => {
                let num_classes = c - 5;
                let yolox = match a {
                    Some(a) => a == grid || (hint.yolox && a != 3 * grid),
                    None => hint.yolox,
                };
                if yolox {
                    if a.is_some_and(|a| a != grid) {
                        return Err(unsupported());
                    }
                    Ok(Self::YoloX {
                        output,
                        num_classes,
                        strides: STRIDES.to_vec(),
                    })
                } else {
                    Ok(Self::YoloV5 {
                        output,
                        num_classes,
                    })
                }
            }
            _ => Err(unsupported()),
        }
    }

    /// The number of classes the output carries, when the layout says.
    #[must_use]
    pub fn num_classes(&self) -> Option<usize> {
        match self {
            Self::YoloV5 { num_classes, .. }
            | Self::YoloV8 { num_classes, .. }
            | Self::YoloX { num_classes, .. }
            | Self::DetrScores { num_classes, .. } => Some(*num_classes),
            Self::EndToEnd { .. } | Self::DetrLabels { .. } => None,
        }
    }

    /// A short name for messages.
    #[must_use]
    pub const fn name(&self) -> &'static str {
        match self {
            Self::YoloV5 { .. } => "yolov5",
            Self::YoloV8 { .. } => "yolov8",
            Self::YoloX { .. } => "yolox",
            Self::EndToEnd { .. } => "end-to-end",
            Self::DetrScores { .. } => "rt-detr",
            Self::DetrLabels { .. } => "rt-detr/d-fine",
        }
    }

    /// Decodes the outputs into detections in model-input pixels: thresholded, per-class NMS where
    /// the model has none, most confident first, at most `cfg.max_detections`.
    pub fn decode(
        &self,
        outputs: &[OutputTensor<'_>],
        input: (u32, u32),
        cfg: &DecodeConfig,
    ) -> Result<Vec<Detection>, DetectError> {
        for o in outputs {
            o.check()?;
        }
        let get = |i: usize| {
            outputs.get(i).ok_or(DetectError::MissingOutput {
                layout: self.name(),
                index: i,
                found: outputs.len(),
            })
        };
        let conf = cfg.confidence_threshold;
        let mut dets = Vec::new();
        let needs_nms = match self {
            Self::YoloV5 {
                output,
                num_classes,
            } => {
                let o = get(*output)?;
                o.expect_row_len(5 + num_classes)?;
                for row in o.data.chunks_exact(5 + num_classes) {
                    let b = BBox::from_cxcywh(row[0], row[1], row[2], row[3]);
                    push_classes(&mut dets, b, row[4], &row[5..], cfg);
                }
                true
            }
            Self::YoloV8 {
                output,
                num_classes,
            } => {
                let o = get(*output)?;
                let channels = 4 + num_classes;
                if o.shape.len() != 3 || o.shape[1] != channels {
                    return Err(o.wrong_shape(format!("[1,{channels},N]")));
                }
                let n = o.shape[2];
                let at = |ch: usize, i: usize| o.data[ch * n + i];
                let mut scores = vec![0.0; *num_classes];
                for i in 0..n {
                    for (k, s) in scores.iter_mut().enumerate() {
                        *s = at(4 + k, i);
                    }
                    let b = BBox::from_cxcywh(at(0, i), at(1, i), at(2, i), at(3, i));
                    push_classes(&mut dets, b, 1.0, &scores, cfg);
                }
                true
            }
            Self::YoloX {
                output,
                num_classes,
                strides,
            } => {
                let o = get(*output)?;
                let row_len = 5 + num_classes;
                o.expect_row_len(row_len)?;
                let cells = grid_cells(input, strides);
                if o.shape[1] != cells {
                    return Err(o.wrong_shape(format!(
                        "[1,{cells},{row_len}] for a {}x{} input",
                        input.0, input.1
                    )));
                }
                let mut rows = o.data.chunks_exact(row_len);
                for &s in strides {
                    let (gw, gh) = (input.0.div_ceil(s), input.1.div_ceil(s));
                    let sf = s as f32;
                    for gy in 0..gh {
                        for gx in 0..gw {
                            let row = rows.next().expect("row count checked against the grid");
                            let cx = (row[0] + gx as f32) * sf;
                            let cy = (row[1] + gy as f32) * sf;
                            let (w, h) = (row[2].exp() * sf, row[3].exp() * sf);
                            let b = BBox::from_cxcywh(cx, cy, w, h);
                            push_classes(&mut dets, b, row[4], &row[5..], cfg);
                        }
                    }
                }
                true
            }
            Self::EndToEnd { output } => {
                let o = get(*output)?;
                o.expect_row_len(6)?;
                for row in o.data.chunks_exact(6) {
                    push(
                        &mut dets,
                        BBox::new(row[0], row[1], row[2], row[3]),
                        row[4],
                        class_index(row[5]),
                        conf,
                    );
                }
                false
            }
            Self::DetrScores {
                output,
                num_classes,
            } => {
                let o = get(*output)?;
                o.expect_row_len(4 + num_classes)?;
                let (iw, ih) = (input.0 as f32, input.1 as f32);
                for row in o.data.chunks_exact(4 + num_classes) {
                    let b = BBox::from_cxcywh(row[0] * iw, row[1] * ih, row[2] * iw, row[3] * ih);
                    push_classes(&mut dets, b, 1.0, &row[4..], cfg);
                }
                false
            }
            Self::DetrLabels {
                labels,
                boxes,
                scores,
            } => {
                let (l, b, s) = (get(*labels)?, get(*boxes)?, get(*scores)?);
                b.expect_row_len(4)?;
                let k = b.data.len() / 4;
                if l.data.len() != k || s.data.len() != k {
                    return Err(DetectError::WrongShape {
                        name: format!("{}/{}", l.name, s.name),
                        shape: vec![l.data.len(), s.data.len()],
                        expected: format!("{k} labels and scores to match {k} boxes"),
                    });
                }
                let normalised = b.data.iter().all(|v| *v <= 1.0 + 1e-4);
                let (sx, sy) = if normalised {
                    (input.0 as f32, input.1 as f32)
                } else {
                    (1.0, 1.0)
                };
                for (i, bx) in b.data.chunks_exact(4).enumerate() {
                    let bb = BBox::new(bx[0] * sx, bx[1] * sy, bx[2] * sx, bx[3] * sy);
                    push(&mut dets, bb, s.data[i], class_index(l.data[i]), conf);
                }
                false
            }
        };
        Ok(if needs_nms {
            nms_per_class(dets, cfg.iou_threshold, cfg.max_detections)
        } else {
            dets.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
            dets.truncate(cfg.max_detections);
            dets
        })
    }
}

/// One box with per-class scores (times `objectness`): its best class, or with
/// `cfg.multi_label` every class at or above the threshold.
fn push_classes(
    dets: &mut Vec<Detection>,
    bbox: BBox,
    objectness: f32,
    scores: &[f32],
    cfg: &DecodeConfig,
) {
    let conf = cfg.confidence_threshold;
    if cfg.multi_label {
        for (class_id, s) in scores.iter().enumerate() {
            push(dets, bbox, objectness * s, class_id, conf);
        }
    } else {
        let (class_id, s) = best_class(scores);
        push(dets, bbox, objectness * s, class_id, conf);
    }
}

fn best_class(scores: &[f32]) -> (usize, f32) {
    scores
        .iter()
        .copied()
        .enumerate()
        .fold((0, f32::NEG_INFINITY), |best, (i, s)| {
            if s > best.1 { (i, s) } else { best }
        })
}

// labels are small non-negative integers carried as f32
fn class_index(v: f32) -> usize {
    v.round().max(0.0) as usize
}

fn push(dets: &mut Vec<Detection>, bbox: BBox, score: f32, class_id: usize, threshold: f32) {
    if score >= threshold && score.is_finite() && bbox.is_valid() {
        // class ids are < nc, far below u32::MAX
        dets.push(Detection::new(bbox, score, class_id as u32));
    }
}
