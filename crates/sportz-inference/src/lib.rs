//! ONNX Runtime inference (issue 7): the only crate that uses `ort`.
//!
//! [`Detector::load`] opens a model on the first execution provider that works (CUDA →
//! TensorRT → DirectML → CoreML → CPU by default), reads its input size, output shapes and
//! `names` metadata, builds the [`sportz_vision`] [`ModelAdapter`] (which refuses a model that
//! fits no layout, listing the shapes found and the layouts supported) and runs it once to warm
//! up. [`Detector::detect`] turns an RGB frame into [`Detections`] in source pixels.
//!
//! - [`runtime`]: finding and loading the ONNX Runtime library (once per process).
//! - [`Provider`]: the execution providers and their order.
//! - `detector`: [`Detector`] and its options and timings (load, warm-up, detect).
//! - `tensors`: the model's metadata, inputs and outputs as ONNX Runtime shows them.
//!
//! [`ModelAdapter`]: sportz_vision::detect::ModelAdapter
//! [`Detections`]: sportz_vision::detect::Detections
//! - [`tiny_onnx`]: tiny constant-output models for tests and examples.
//! - [`line_model`]: the built-in pitch-line model the camera's initialisation reads.

pub mod runtime;
pub mod tiny_onnx;

mod detector;
pub mod line_model;
mod provider;
mod tensors;

pub use detector::{DetectTiming, Detector, DetectorOptions};
pub use line_model::OnnxLineModel;
pub use provider::Provider;

use std::path::PathBuf;

use sportz_vision::detect::DetectError;
use sportz_vision::image::ImageError;
use thiserror::Error;

/// Why a model cannot be loaded or run.
#[derive(Debug, Error)]
pub enum InferenceError {
    /// The ONNX Runtime library is missing or unusable.
    #[error("{0}")]
    Runtime(String),
    #[error("model file {} does not exist", .0.display())]
    ModelMissing(PathBuf),
    #[error("cannot read the model {}: {reason}", path.display())]
    Load { path: PathBuf, reason: String },
    #[error("cannot read the class names file {}: {reason}", path.display())]
    Names { path: PathBuf, reason: String },
    #[error("model {} has no usable image input: expected a float32 [1,3,H,W] tensor, found {found}", path.display())]
    Input { path: PathBuf, found: String },
    /// The outputs fit no layout, or the names do not fit them.
    #[error("model {} cannot be used: {source}", path.display())]
    Model { path: PathBuf, source: DetectError },
    /// No execution provider could open the model.
    #[error("no execution provider could open {}: {tried}", path.display())]
    NoProvider { path: PathBuf, tried: String },
    #[error("inference failed: {0}")]
    Run(String),
    /// The outputs of a run are not what the layout promised.
    #[error("unexpected model output: {0}")]
    Output(DetectError),
    #[error(transparent)]
    Image(#[from] ImageError),
}
