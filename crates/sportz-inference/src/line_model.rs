//! The pitch-line model (`models/sportz-lines.onnx`, `tools/train-line-model`): a small U-Net
//! that gives, for each 2×2 cell of a frame resized to 640 pixels wide, the probability that a
//! pitch marking is painted there. The camera's initialisation reads it instead of the top-hat
//! line test ([`sportz_vision::image::RgbImage::with_lines`]), which misses faint, thin and
//! blurred lines on real broadcasts and fires on boards and graphics.

use std::borrow::Cow;
use std::sync::Mutex;
use std::time::Instant;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use sportz_vision::RgbImage;
use sportz_vision::detect::{ChannelOrder, PixelScale, Preprocess, Resize, preprocess};
use sportz_vision::image::{LineMap, LineModel};

use crate::{InferenceError, runtime};

/// The built-in line model, compiled in (about 0.8 MB).
pub const BUILT_IN: &[u8] = include_bytes!("../../../models/sportz-lines.onnx");

/// Width of the model's input; the height keeps the frame's aspect, rounded to a multiple of 16.
pub const INPUT_WIDTH: u32 = 640;

const PRE: Preprocess = Preprocess {
    resize: Resize::Stretch,
    order: ChannelOrder::Rgb,
    scale: PixelScale::Unit,
};

/// A loaded line model: one ONNX Runtime session on the CPU (it runs only when the camera is
/// looked for, a few times a second at most).
#[derive(Debug)]
pub struct OnnxLineModel {
    session: Mutex<Session>,
}

/// The model input size for a `w × h` frame.
#[must_use]
pub fn input_size(w: u32, h: u32) -> (u32, u32) {
    let hh = (f64::from(INPUT_WIDTH) * f64::from(h) / f64::from(w.max(1)) / 16.0).round() as u32;
    (INPUT_WIDTH, (hh * 16).clamp(16, 4 * INPUT_WIDTH))
}

impl OnnxLineModel {
    /// The built-in model on `threads` CPU threads, checked by one run.
    ///
    /// # Errors
    /// The ONNX Runtime library is missing, or the model does not load or run.
    pub fn built_in(threads: usize) -> Result<Self, InferenceError> {
        Self::from_bytes("the built-in sportz-lines.onnx", BUILT_IN, threads)
    }

    /// A line model from ONNX bytes (`images` [1,3,H,W] RGB 0..1 → one [1,1,H/2,W/2] output),
    /// checked by one run on a grey frame; `name` (a path, or what the bytes are) is in every
    /// error.
    ///
    /// # Errors
    /// The library is missing, the bytes are not a model, or its output is not a line map.
    pub fn from_bytes(name: &str, bytes: &[u8], threads: usize) -> Result<Self, InferenceError> {
        let env = runtime::environment()?;
        let load = |e: &dyn std::fmt::Display| InferenceError::Load {
            path: name.into(),
            reason: e.to_string(),
        };
        let session = Session::builder(env)
            .map_err(|e| load(&e))?
            .with_optimization_level(GraphOptimizationLevel::All)
            .map_err(|e| load(&e))?
            .with_intra_threads(threads.max(1))
            .map_err(|e| load(&e))?
            .with_inter_threads(1)
            .map_err(|e| load(&e))?
            .commit_from_memory(bytes)
            .map_err(|e| load(&e))?;
        let model = Self {
            session: Mutex::new(session),
        };
        let grey = vec![100u8; 64 * 36 * 3];
        let started = Instant::now();
        model
            .run(&RgbImage::new(&grey, 64, 36)?)
            .map_err(|e| load(&format!("it is not a line model: {e}")))?;
        tracing::debug!(
            warm_up_ms = started.elapsed().as_secs_f64() * 1000.0,
            "line model loaded"
        );
        Ok(model)
    }

    fn run(&self, img: &RgbImage<'_>) -> Result<LineMap, String> {
        let (w, h) = input_size(img.width(), img.height());
        let (input, _) = preprocess(img, &PRE, (w, h));
        let tensor = Tensor::from_array(([1usize, 3, h as usize, w as usize], input))
            .map_err(|e| e.to_string())?;
        let mut session = self
            .session
            .lock()
            .map_err(|_| "the line model's session was poisoned by a panic".to_owned())?;
        let inputs: Vec<(Cow<'_, str>, ort::session::SessionInputValue<'_>)> =
            vec![(Cow::Borrowed("images"), tensor.into())];
        let outputs = session.run(inputs).map_err(|e| e.to_string())?;
        let value = &outputs[0];
        let (shape, data) = value
            .try_extract_tensor::<f32>()
            .map_err(|e| format!("the line model's output is not a float tensor: {e}"))?;
        let dims: Vec<i64> = shape.iter().copied().collect();
        let [1, 1, gh, gw] = dims[..] else {
            return Err(format!(
                "the line model's output has shape {dims:?}, expected [1, 1, H/2, W/2]"
            ));
        };
        LineMap::new(
            gw as usize,
            gh as usize,
            data.to_vec(),
            img.width(),
            img.height(),
        )
        .map_err(|e| e.to_string())
    }
}

impl LineModel for OnnxLineModel {
    fn line_map(&self, img: &RgbImage<'_>) -> Result<LineMap, String> {
        self.run(img).inspect_err(|e| {
            tracing::warn!(error = %e, "the pitch-line model failed on a frame: the top-hat line test is used for it");
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_keeps_the_aspect_in_multiples_of_16() {
        assert_eq!(input_size(1280, 720), (640, 368));
        assert_eq!(input_size(1920, 1080), (640, 368));
        assert_eq!(input_size(640, 640), (640, 640));
        assert_eq!(input_size(1080, 1920), (640, 1136));
        assert_eq!(input_size(4000, 10), (640, 16));
    }
}
