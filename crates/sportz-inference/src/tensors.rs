//! The model's tensors as ONNX Runtime shows them: its metadata, the image input and its size
//! (declared, from `imgsz` metadata, or the default), the optional size input, and outputs read
//! back as f32.

use std::borrow::Cow;
use std::path::Path;

use ort::session::Session;
use ort::value::{DynTensor, DynValue, Tensor, TensorElementType, ValueType};
use sportz_vision::detect::DetectError;

use crate::InferenceError;

/// A second model input besides the image (RT-DETR's `orig_target_sizes`): fed the model input
/// size, so boxes come back in input pixels.
#[derive(Debug, Clone)]
pub(crate) struct SizeInput {
    pub(crate) name: String,
    pub(crate) ty: TensorElementType,
}

pub(crate) fn shape_text(v: &ValueType) -> String {
    match v {
        ValueType::Tensor { ty, shape, .. } => {
            let dims: Vec<String> = shape
                .iter()
                .map(|&d| if d < 0 { "?".into() } else { d.to_string() })
                .collect();
            format!("{ty:?} [{}]", dims.join(","))
        }
        other => format!("{other:?}"),
    }
}

/// `imgsz` metadata as Ultralytics writes it (`[640, 640]` = h, w), for dynamic inputs.
pub(crate) fn imgsz_metadata(metadata: &[(String, String)]) -> Option<(u32, u32)> {
    let (_, v) = metadata.iter().find(|(k, _)| k == "imgsz")?;
    let nums: Vec<u32> = v
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    match nums.as_slice() {
        [s] => Some((*s, *s)),
        [h, w] => Some((*w, *h)),
        _ => None,
    }
}

/// Input size when the model declares dynamic height/width and says nothing else.
pub(crate) const DEFAULT_INPUT: u32 = 640;

pub(crate) fn read_metadata(session: &Session) -> Vec<(String, String)> {
    let Ok(meta) = session.metadata() else {
        return Vec::new();
    };
    let keys = meta.custom_keys().unwrap_or_default();
    let mut pairs: Vec<(String, String)> = keys
        .into_iter()
        .filter_map(|k| meta.custom(&k).map(|v| (k, v)))
        .collect();
    if let Some(d) = meta.description().filter(|d| !d.is_empty()) {
        pairs.push(("description".into(), d));
    }
    if let Some(p) = meta.producer().filter(|p| !p.is_empty()) {
        pairs.push(("producer".into(), p));
    }
    pairs
}

/// The model's image input and what else it takes.
pub(crate) struct ImageInput {
    pub(crate) name: String,
    /// `(width, height)`.
    pub(crate) size: (u32, u32),
    pub(crate) size_input: Option<SizeInput>,
}

/// The image input (the first float `[N,3,H,W]` input), its size, and an optional size input.
pub(crate) fn image_input(
    session: &Session,
    path: &Path,
    metadata: &[(String, String)],
) -> Result<ImageInput, InferenceError> {
    let found = || {
        session
            .inputs()
            .iter()
            .map(|i| format!("{} {}", i.name(), shape_text(i.dtype())))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let image = session.inputs().iter().find(|i| {
        matches!(i.dtype(), ValueType::Tensor { ty: TensorElementType::Float32, shape, .. }
            if shape.len() == 4 && (shape[1] == 3 || shape[1] < 0))
    });
    let Some(image) = image else {
        return Err(InferenceError::Input {
            path: path.to_path_buf(),
            found: found(),
        });
    };
    let shape = image
        .dtype()
        .tensor_shape()
        .map(|s| s.to_vec())
        .unwrap_or_default();
    let dim = |d: i64| u32::try_from(d).ok().filter(|d| *d > 0);
    let size = match (dim(shape[3]), dim(shape[2])) {
        (Some(w), Some(h)) => (w, h),
        _ => imgsz_metadata(metadata).unwrap_or((DEFAULT_INPUT, DEFAULT_INPUT)),
    };
    let mut size_input = None;
    for other in session.inputs().iter().filter(|i| i.name() != image.name()) {
        match other.dtype() {
            ValueType::Tensor { ty, shape, .. }
                if shape.last() == Some(&2)
                    && matches!(
                        ty,
                        TensorElementType::Int64
                            | TensorElementType::Int32
                            | TensorElementType::Float32
                    ) =>
            {
                size_input = Some(SizeInput {
                    name: other.name().to_owned(),
                    ty: *ty,
                });
            }
            _ => {
                return Err(InferenceError::Input {
                    path: path.to_path_buf(),
                    found: found(),
                });
            }
        }
    }
    Ok(ImageInput {
        name: image.name().to_owned(),
        size,
        size_input,
    })
}

pub(crate) fn size_tensor(
    ty: TensorElementType,
    (w, h): (u32, u32),
) -> Result<DynTensor, InferenceError> {
    let r = match ty {
        TensorElementType::Int64 => {
            Tensor::from_array(([1usize, 2], vec![i64::from(w), i64::from(h)])).map(Tensor::upcast)
        }
        TensorElementType::Int32 => Tensor::from_array((
            [1usize, 2],
            vec![
                i32::try_from(w).unwrap_or(i32::MAX),
                i32::try_from(h).unwrap_or(i32::MAX),
            ],
        ))
        .map(Tensor::upcast),
        _ => {
            // input sizes are small
            let v = vec![w as f32, h as f32];
            Tensor::from_array(([1usize, 2], v)).map(Tensor::upcast)
        }
    };
    r.map_err(|e| InferenceError::Run(e.to_string()))
}

/// An output's concrete shape and values as f32 (integer outputs such as labels converted).
pub(crate) fn tensor_f32<'a>(
    name: &str,
    value: &'a DynValue,
) -> Result<(Vec<usize>, Cow<'a, [f32]>), InferenceError> {
    let wrong = |what: String| {
        InferenceError::Output(DetectError::WrongShape {
            name: name.to_owned(),
            shape: Vec::new(),
            expected: what,
        })
    };
    let ty = match value.dtype() {
        ValueType::Tensor { ty, .. } => *ty,
        other => return Err(wrong(format!("a tensor, got {other:?}"))),
    };
    // class labels and coordinates fit f32
    let (shape, data): (Vec<i64>, Cow<'a, [f32]>) = match ty {
        TensorElementType::Float32 => {
            let (s, d) = value
                .try_extract_tensor::<f32>()
                .map_err(|e| wrong(e.to_string()))?;
            (s.to_vec(), Cow::Borrowed(d))
        }
        TensorElementType::Float64 => {
            let (s, d) = value
                .try_extract_tensor::<f64>()
                .map_err(|e| wrong(e.to_string()))?;
            (
                s.to_vec(),
                Cow::Owned(d.iter().map(|v| *v as f32).collect()),
            )
        }
        TensorElementType::Int64 => {
            let (s, d) = value
                .try_extract_tensor::<i64>()
                .map_err(|e| wrong(e.to_string()))?;
            (
                s.to_vec(),
                Cow::Owned(d.iter().map(|v| *v as f32).collect()),
            )
        }
        TensorElementType::Int32 => {
            let (s, d) = value
                .try_extract_tensor::<i32>()
                .map_err(|e| wrong(e.to_string()))?;
            (
                s.to_vec(),
                Cow::Owned(d.iter().map(|v| *v as f32).collect()),
            )
        }
        other => {
            return Err(wrong(format!(
                "float32, float64, int64 or int32, got {other:?}"
            )));
        }
    };
    let shape = shape
        .into_iter()
        .map(|d| usize::try_from(d).unwrap_or(0))
        .collect();
    Ok((shape, data))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imgsz_metadata_is_height_then_width() {
        let m = |v: &str| vec![("imgsz".to_owned(), v.to_owned())];
        assert_eq!(imgsz_metadata(&m("[384, 640]")), Some((640, 384)));
        assert_eq!(imgsz_metadata(&m("416")), Some((416, 416)));
        assert_eq!(imgsz_metadata(&m("big")), None);
        assert_eq!(imgsz_metadata(&[]), None);
    }
}
