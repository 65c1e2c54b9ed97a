//! Ground truth of labelled images in the YOLO format: one `.txt` a image (matched by file
//! stem), one object a line, either a box `cls cx cy w h` or a polygon `cls x1 y1 x2 y2 …`
//! (its box is the points' min/max), every coordinate normalised to 0..1 by the image's size.
//! Class ids index the `names` of a `data.yaml` ([`parse_data_yaml_names`]), which
//! [`class_map`] maps onto the contract's classes.

use std::path::{Path, PathBuf};

use sportz_contract::ObjectClass;

use crate::EvalError;

/// One true object, in the image's pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TruthBox {
    pub class: ObjectClass,
    /// `[x1, y1, x2, y2]`.
    pub bbox: [f64; 4],
}

/// One image with its detections and its truth, as [`super::evaluate_detections`] takes it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LabelledImage {
    pub detections: Vec<super::Detection>,
    pub truths: Vec<TruthBox>,
}

/// Where a `data.yaml` for a labels folder is looked for, in order: in it, beside it and one
/// level further up (`valid/labels` → `valid/labels/data.yaml`, `valid/data.yaml`, `data.yaml`
/// of the dataset). Only paths are built here; the caller takes the first that exists.
#[must_use]
pub fn data_yaml_candidates(labels_dir: &Path) -> Vec<PathBuf> {
    vec![
        labels_dir.join("data.yaml"),
        labels_dir.join("..").join("data.yaml"),
        labels_dir.join("..").join("..").join("data.yaml"),
    ]
}

fn yaml_scalar(s: &str) -> String {
    let s = s.split(" #").next().unwrap_or(s).trim();
    s.strip_prefix('\'')
        .and_then(|v| v.strip_suffix('\''))
        .or_else(|| s.strip_prefix('"').and_then(|v| v.strip_suffix('"')))
        .unwrap_or(s)
        .to_owned()
}

/// The class names of a YOLO `data.yaml`, in class-id order: the top-level `names` key as a
/// block list (`- football`), a flow list (`[football, 'player']`) or a map of ids
/// (`0: football`). Only that key is read; the rest of the file is ignored.
///
/// # Errors
/// [`EvalError::Document`] when there is no `names` key, it is empty, or a map's ids are not
/// 0, 1, 2, … .
pub fn parse_data_yaml_names(text: &str, source_name: &str) -> Result<Vec<String>, EvalError> {
    let bad = |reason: String| EvalError::Document {
        source_name: source_name.to_owned(),
        expected: "a YOLO data.yaml with a `names` list",
        reason,
    };
    let mut lines = text.lines().skip_while(|l| !l.starts_with("names:"));
    let first = lines
        .next()
        .ok_or_else(|| bad("no top-level `names:` key".to_owned()))?;
    let rest = first["names:".len()..].trim();
    let names: Vec<String> = if rest.starts_with('[') {
        let inner = rest
            .strip_prefix('[')
            .and_then(|r| r.split(" #").next())
            .map(str::trim_end)
            .and_then(|r| r.strip_suffix(']'))
            .ok_or_else(|| bad(format!("`names: {rest}` is not a one-line [a, b, …] list")))?;
        inner
            .split(',')
            .map(yaml_scalar)
            .filter(|s| !s.is_empty())
            .collect()
    } else if rest.is_empty() || rest.starts_with('#') {
        let mut list = Vec::new();
        let mut by_id = Vec::new();
        for l in lines {
            let t = l.trim();
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            // the block ends at the next top-level key
            if !(l.starts_with(' ') || l.starts_with('-')) {
                break;
            }
            if let Some(item) = t.strip_prefix('-') {
                list.push(yaml_scalar(item));
            } else if let Some((id, name)) = t.split_once(':') {
                let id: usize = id
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("`{t}` under names: expected `ID: name`")))?;
                by_id.push((id, yaml_scalar(name)));
            }
        }
        if by_id.is_empty() {
            list
        } else {
            by_id.sort_by_key(|(id, _)| *id);
            for (i, (id, _)) in by_id.iter().enumerate() {
                if *id != i {
                    return Err(bad(format!("names has no id {i}; expected ids 0, 1, 2, …")));
                }
            }
            by_id.into_iter().map(|(_, n)| n).collect()
        }
    } else {
        return Err(bad(format!(
            "`names: {rest}`: expected a list or a map of ids"
        )));
    };
    if names.is_empty() {
        return Err(bad("`names` is empty".to_owned()));
    }
    Ok(names)
}

/// The contract class of each dataset class name (`football` and `ball` → ball, `goalkeeper`,
/// `player`, `referee`; case and `_`/`-` are ignored), in class-id order.
///
/// # Errors
/// [`EvalError::Document`] naming `source_name` and the first name that maps to none.
pub fn class_map(names: &[String], source_name: &str) -> Result<Vec<ObjectClass>, EvalError> {
    names
        .iter()
        .enumerate()
        .map(|(id, name)| {
            let key = name.trim().to_ascii_lowercase().replace(['_', '-'], " ");
            match key.as_str() {
                "football" | "ball" | "soccer ball" | "sports ball" => Ok(ObjectClass::Ball),
                "goalkeeper" | "goalkeepers" => Ok(ObjectClass::Goalkeeper),
                "player" | "players" | "person" => Ok(ObjectClass::Player),
                "referee" | "referees" => Ok(ObjectClass::Referee),
                _ => Err(EvalError::Document {
                    source_name: source_name.to_owned(),
                    expected: "class names football/ball, goalkeeper, player or referee",
                    reason: format!("class {id} is named `{name}`"),
                }),
            }
        })
        .collect()
}

/// Reads one YOLO label file of an image `width`×`height` pixels into boxes in its pixels
/// (blank lines are skipped).
///
/// # Errors
/// [`EvalError::Line`] naming `source_name` and the line: a class id that is not a whole number
/// below `classes.len()`, a count of coordinates that is neither 4 (box) nor an even number ≥ 6
/// (polygon), or a coordinate that is not a number in 0..1 (a little slack is allowed for
/// rounding).
pub fn parse_yolo_labels(
    text: &str,
    source_name: &str,
    classes: &[ObjectClass],
    width: u32,
    height: u32,
) -> Result<Vec<TruthBox>, EvalError> {
    const SLACK: f64 = 0.01;
    let (w, h) = (f64::from(width), f64::from(height));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.is_empty() {
            continue;
        }
        let bad = |reason: String| EvalError::Line {
            source_name: source_name.to_owned(),
            line: i + 1,
            expected: "a YOLO label `cls cx cy w h` or `cls x1 y1 x2 y2 …` (normalised)",
            reason,
        };
        let class = fields[0]
            .parse::<usize>()
            .ok()
            .and_then(|id| classes.get(id))
            .ok_or_else(|| {
                bad(format!(
                    "class id `{}` is not one of 0..{} (the data.yaml names)",
                    fields[0],
                    classes.len().saturating_sub(1)
                ))
            })?;
        let coords = fields[1..]
            .iter()
            .map(|f| {
                f.parse::<f64>()
                    .ok()
                    .filter(|v| (-SLACK..=1.0 + SLACK).contains(v))
                    .ok_or_else(|| bad(format!("`{f}` is not a number in 0..1")))
            })
            .collect::<Result<Vec<f64>, _>>()?;
        let [x1, y1, x2, y2] = match coords.len() {
            4 => {
                let (cx, cy, bw, bh) = (coords[0], coords[1], coords[2], coords[3]);
                [cx - bw / 2.0, cy - bh / 2.0, cx + bw / 2.0, cy + bh / 2.0]
            }
            n if n >= 6 && n % 2 == 0 => {
                let xs = coords.iter().step_by(2);
                let ys = coords.iter().skip(1).step_by(2);
                [
                    xs.clone().copied().fold(f64::INFINITY, f64::min),
                    ys.clone().copied().fold(f64::INFINITY, f64::min),
                    xs.copied().fold(f64::NEG_INFINITY, f64::max),
                    ys.copied().fold(f64::NEG_INFINITY, f64::max),
                ]
            }
            n => {
                return Err(bad(format!(
                    "{n} coordinates; expected 4 (a box) or an even number of 6 or more (a polygon)"
                )));
            }
        };
        out.push(TruthBox {
            class: *class,
            bbox: [
                x1.clamp(0.0, 1.0) * w,
                y1.clamp(0.0, 1.0) * h,
                x2.clamp(0.0, 1.0) * w,
                y2.clamp(0.0, 1.0) * h,
            ],
        });
    }
    Ok(out)
}
