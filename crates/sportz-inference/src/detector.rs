//! [`Detector`]: loading a model on the first execution provider that opens it, warming it up,
//! and `detect` (preprocess, `session.run`, decode), with its options and timings.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::time::Instant;

use ort::session::Session;
use ort::session::builder::GraphOptimizationLevel;
use ort::value::Tensor;
use sportz_vision::RgbImage;
use sportz_vision::detect::{
    DecodeConfig, DetectError, Detections, InputTransform, ModelAdapter, ModelSpec, OutputTensor,
    TensorShape,
};

use crate::provider::Provider;
use crate::tensors::{ImageInput, SizeInput, image_input, read_metadata, size_tensor, tensor_f32};
use crate::{InferenceError, runtime};

/// How a detector is loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorOptions {
    /// Tried in order; the first that opens the model wins. CPU is tried last even when absent.
    pub providers: Vec<Provider>,
    /// The GPU index for CUDA, TensorRT and DirectML.
    pub device_id: i32,
    /// Intra-op threads of a live session's detector, shared among an offline session's
    /// detectors (`workers`); `None`: `SPORTZ_ORT_THREADS` when set, else the number of cores.
    /// With one detector on 2 cores the built-in model tracked 1,500 frames in 24.8–25.0 s on 2
    /// threads against 26.5 s on 1, yolox_nano the other way (7.7–8.0 s against 7.2–7.3 s for
    /// 500 frames); two single-threaded detectors beat both (BENCHMARKS.md, "Session 39").
    pub threads: Option<usize>,
    /// Detectors that detect the frames of an offline session (a file read as fast as it
    /// decodes) in turn, in parallel, each on `intra_threads / workers` threads; `None`:
    /// `SPORTZ_DETECT_WORKERS` when set, else one per intra-op thread up to
    /// [`MAX_DEFAULT_WORKERS`]. Live sessions always run one (a frame's latency is one
    /// inference on every core).
    pub workers: Option<usize>,
    /// Thresholds of decoding (confidence, NMS IoU, maximum detections).
    pub decode: DecodeConfig,
    /// A class names file (one name a line); it wins over the model's `names` metadata.
    /// `None`: `<model>.names` beside the model when it exists.
    pub sidecar_names: Option<PathBuf>,
    /// Records an ONNX Runtime profile, for [`Detector::providers_used`].
    pub profile: bool,
    /// Whether ONNX Runtime's intra-op threads spin while waiting for work. Spinning shaves a
    /// little latency off a lone `session.run` but burns the cores that decoding, the camera
    /// and tracking need between runs, so it is off by default (`scripts/bench-pipeline` has the
    /// figures); `SPORTZ_ORT_SPIN=1` turns it on.
    pub spinning: bool,
}

impl Default for DetectorOptions {
    fn default() -> Self {
        Self {
            providers: Provider::DEFAULT_ORDER.to_vec(),
            device_id: 0,
            threads: None,
            workers: None,
            decode: DecodeConfig::default(),
            sidecar_names: None,
            profile: false,
            spinning: std::env::var("SPORTZ_ORT_SPIN").is_ok_and(|v| v == "1"),
        }
    }
}

impl DetectorOptions {
    /// Only the CPU provider.
    #[must_use]
    pub fn cpu() -> Self {
        Self {
            providers: vec![Provider::Cpu],
            ..Self::default()
        }
    }

    /// The intra-op thread count these options give.
    #[must_use]
    pub fn intra_threads(&self) -> usize {
        self.threads
            .or_else(|| env_count("SPORTZ_ORT_THREADS"))
            .unwrap_or_else(|| {
                std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
            })
    }

    /// The detectors of an offline session these options give, and the intra-op threads of
    /// each (together the intra-op threads of one live detector, at least one each).
    #[must_use]
    pub fn offline_workers(&self) -> (usize, usize) {
        split_workers(
            self.intra_threads(),
            self.workers.or_else(|| env_count("SPORTZ_DETECT_WORKERS")),
        )
    }
}

/// The most detectors an offline session runs unless told otherwise: each holds its own ONNX
/// Runtime session and buffers (≈ 50–60 MB more RSS each for the built-in model: 197 MB with
/// one, 245 MB with two, 371 MB with four on a 4 s 720p clip), so a many-core
/// machine gets a few detectors on several threads each rather than one per core.
pub const MAX_DEFAULT_WORKERS: usize = 4;

/// `threads` intra-op threads shared among `workers` detectors (`None`: one per thread up to
/// [`MAX_DEFAULT_WORKERS`]): the detectors and the threads of each, at least one.
fn split_workers(threads: usize, workers: Option<usize>) -> (usize, usize) {
    let workers = workers
        .unwrap_or_else(|| threads.min(MAX_DEFAULT_WORKERS))
        .max(1);
    (workers, (threads / workers).max(1))
}

/// A positive count from the environment variable `name` (`None`: unset, or not one — said in
/// a warning, so a typo does not pass for the default).
fn env_count(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    let count = parse_count(&value);
    if count.is_none() {
        tracing::warn!(
            "{name}={value:?} is not a positive whole number: ignored (the default applies)"
        );
    }
    count
}

/// `value` as a positive count.
fn parse_count(value: &str) -> Option<usize> {
    value.trim().parse().ok().filter(|&n: &usize| n > 0)
}

/// Where the time of one [`Detector::detect`] went, in ms.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DetectTiming {
    /// Letterbox/resize and the NCHW tensor.
    pub preprocess_ms: f64,
    /// `session.run`.
    pub run_ms: f64,
    /// Reading the outputs, decoding, NMS, mapping back to source pixels.
    pub decode_ms: f64,
}

impl DetectTiming {
    #[must_use]
    pub fn total_ms(&self) -> f64 {
        self.preprocess_ms + self.run_ms + self.decode_ms
    }
}
/// A loaded detector: one ONNX Runtime session and the model's adapter.
#[derive(Debug)]
pub struct Detector {
    session: Session,
    adapter: ModelAdapter,
    path: PathBuf,
    input_name: String,
    size_input: Option<SizeInput>,
    output_names: Vec<String>,
    provider: Provider,
    device: String,
    /// Why each provider before the chosen one was passed over.
    passed_over: Vec<String>,
    decode: DecodeConfig,
}

impl Detector {
    /// Opens `path` on the first provider of `options.providers` that works, builds the adapter
    /// and runs a warm-up inference.
    ///
    /// # Errors
    /// A missing file (named), a library problem, a model no provider opens, an input that is not
    /// an image, outputs that fit no layout (listing the shapes found and the layouts supported),
    /// or a warm-up run whose outputs do not decode.
    pub fn load(path: impl AsRef<Path>, options: &DetectorOptions) -> Result<Self, InferenceError> {
        let path = path.as_ref().to_path_buf();
        if !path.is_file() {
            return Err(InferenceError::ModelMissing(path));
        }
        let sidecar_path = options.sidecar_names.clone().or_else(|| {
            let p = path.with_extension("names");
            p.is_file().then_some(p)
        });
        let sidecar = sidecar_path
            .as_ref()
            .map(|p| {
                std::fs::read_to_string(p).map_err(|e| InferenceError::Names {
                    path: p.clone(),
                    reason: e.to_string(),
                })
            })
            .transpose()?;
        let env = runtime::environment()?;
        let threads = options.intra_threads();

        let mut order = options.providers.clone();
        if !order.contains(&Provider::Cpu) {
            order.push(Provider::Cpu);
        }
        let mut tried = Vec::new();
        let mut opened = None;
        for provider in order {
            if !provider.compiled_in() {
                tracing::info!(%provider, "execution provider not in this ONNX Runtime build; skipped");
                tried.push(format!("{provider}: not in this ONNX Runtime build"));
                continue;
            }
            match open_session(env, &path, provider, options, threads) {
                Ok(session) => {
                    opened = Some((provider, session));
                    break;
                }
                Err(reason) => {
                    tracing::warn!(%provider, model = %path.display(), "execution provider failed: {reason}");
                    tried.push(format!("{provider}: {reason}"));
                }
            }
        }
        let Some((provider, session)) = opened else {
            return Err(InferenceError::NoProvider {
                path,
                tried: tried.join("; "),
            });
        };
        let device = provider.device(options.device_id);

        let metadata = read_metadata(&session);
        let ImageInput {
            name: input_name,
            size: input_size,
            size_input,
        } = image_input(&session, &path, &metadata)?;
        let outputs: Vec<TensorShape> = session
            .outputs()
            .iter()
            .map(|o| {
                let dims = o
                    .dtype()
                    .tensor_shape()
                    .map_or_else(Vec::new, |s| s.to_vec());
                TensorShape::new(o.name(), &dims)
            })
            .collect();
        let output_names = outputs.iter().map(|o| o.name.clone()).collect();
        let adapter = ModelAdapter::new(&ModelSpec {
            input: input_size,
            outputs: &outputs,
            metadata: &metadata,
            sidecar_names: sidecar.as_deref(),
        })
        .map_err(|source| InferenceError::Model {
            path: path.clone(),
            source,
        })?;

        let mut detector = Self {
            session,
            adapter,
            path,
            input_name,
            size_input,
            output_names,
            provider,
            device,
            passed_over: tried,
            decode: options.decode,
        };
        let started = Instant::now();
        detector.warm_up()?;
        tracing::info!(
            model = %detector.path.display(),
            device = %detector.device,
            layout = detector.adapter.layout().name(),
            input = ?detector.adapter.input(),
            threads,
            warm_up_ms = started.elapsed().as_secs_f64() * 1000.0,
            "detector loaded"
        );
        Ok(detector)
    }

    /// One run on a grey image of the input size, decoded: the first run allocates, and a model
    /// whose real outputs contradict its declared shapes fails here rather than mid-match.
    fn warm_up(&mut self) -> Result<(), InferenceError> {
        let (w, h) = self.adapter.input();
        let pixels = vec![114u8; w as usize * h as usize * 3];
        let image = RgbImage::new(&pixels, w, h)?;
        self.detect(&image).map(|_| ())
    }

    /// Detects in one RGB frame: boxes in its pixels, classes mapped to the contract's.
    ///
    /// # Errors
    /// The run fails, or its outputs are not what the model's layout promised.
    pub fn detect(
        &mut self,
        image: &RgbImage<'_>,
    ) -> Result<(Detections, DetectTiming), InferenceError> {
        let t0 = Instant::now();
        let (input, transform) = self.adapter.prepare(image);
        let t1 = Instant::now();
        let (detections, run_ms) = self.run_and_decode(input, &transform)?;
        let total = t1.elapsed().as_secs_f64() * 1000.0;
        Ok((
            detections,
            DetectTiming {
                preprocess_ms: (t1 - t0).as_secs_f64() * 1000.0,
                run_ms,
                decode_ms: (total - run_ms).max(0.0),
            },
        ))
    }

    /// [`detect`](Self::detect) on the whole image plus an `n`×`n` grid of overlapping crops
    /// (`sportz_vision::detect::tile_grid`), merged by per-class NMS: small objects (the ball)
    /// are seen at closer to native resolution, at `1 + n²` runs. `n` ≤ 1 is plain `detect`.
    ///
    /// # Errors
    /// As [`detect`](Self::detect), for any of the runs.
    pub fn detect_tiled(
        &mut self,
        image: &RgbImage<'_>,
        n: u32,
    ) -> Result<(Detections, DetectTiming), InferenceError> {
        let (whole, mut timing) = self.detect(image)?;
        let tiles = sportz_vision::detect::tile_grid(image.width(), image.height(), n);
        if tiles.is_empty() {
            return Ok((whole, timing));
        }
        let mut per_tile = Vec::with_capacity(tiles.len());
        for t in tiles {
            let pixels = sportz_vision::detect::crop_rgb(image.data(), image.width(), &t);
            let crop = RgbImage::new(&pixels, t.width, t.height)
                .map_err(|e| InferenceError::Run(format!("tile {t:?}: {e}")))?;
            let (dets, tt) = self.detect(&crop)?;
            timing.preprocess_ms += tt.preprocess_ms;
            timing.run_ms += tt.run_ms;
            timing.decode_ms += tt.decode_ms;
            per_tile.push((t, dets.items));
        }
        let merged = sportz_vision::detect::merge_tiles(
            whole.items,
            &per_tile,
            (image.width(), image.height()),
            self.decode.iou_threshold,
            self.decode.max_detections,
        );
        Ok((Detections::new(merged), timing))
    }

    /// The model's input size `(width, height)`.
    #[must_use]
    pub fn input_size(&self) -> (u32, u32) {
        self.adapter.input()
    }

    fn run_and_decode(
        &mut self,
        input: Vec<f32>,
        transform: &InputTransform,
    ) -> Result<(Detections, f64), InferenceError> {
        let (w, h) = self.adapter.input();
        let image = Tensor::from_array(([1usize, 3, h as usize, w as usize], input))
            .map_err(|e| InferenceError::Run(e.to_string()))?;
        let mut inputs: Vec<(Cow<'_, str>, ort::session::SessionInputValue<'_>)> =
            vec![(Cow::Borrowed(self.input_name.as_str()), image.into())];
        if let Some(size) = &self.size_input {
            let value = size_tensor(size.ty, (w, h))?;
            inputs.push((Cow::Borrowed(size.name.as_str()), value.into()));
        }
        let started = Instant::now();
        let outputs = self
            .session
            .run(inputs)
            .map_err(|e| InferenceError::Run(e.to_string()))?;
        let run_ms = started.elapsed().as_secs_f64() * 1000.0;

        let mut shapes = Vec::with_capacity(self.output_names.len());
        let mut datas = Vec::with_capacity(self.output_names.len());
        for name in &self.output_names {
            let value = outputs.get(name.as_str()).ok_or_else(|| {
                InferenceError::Output(DetectError::WrongShape {
                    name: name.clone(),
                    shape: Vec::new(),
                    expected: "an output of this name".into(),
                })
            })?;
            let (shape, data) = tensor_f32(name, value)?;
            shapes.push(shape);
            datas.push(data);
        }
        let tensors: Vec<OutputTensor<'_>> = self
            .output_names
            .iter()
            .zip(shapes.iter().zip(&datas))
            .map(|(name, (shape, data))| OutputTensor { name, shape, data })
            .collect();
        let detections = self
            .adapter
            .decode(&tensors, transform, &self.decode)
            .map_err(InferenceError::Output)?;
        Ok((detections, run_ms))
    }

    /// Bare `session.run` on an already prepared input tensor (for benchmarks): its time in ms.
    ///
    /// # Errors
    /// The run fails.
    pub fn run_only(&mut self, input: Vec<f32>) -> Result<f64, InferenceError> {
        let (w, h) = self.adapter.input();
        let image = Tensor::from_array(([1usize, 3, h as usize, w as usize], input))
            .map_err(|e| InferenceError::Run(e.to_string()))?;
        let mut inputs: Vec<(Cow<'_, str>, ort::session::SessionInputValue<'_>)> =
            vec![(Cow::Borrowed(self.input_name.as_str()), image.into())];
        if let Some(size) = &self.size_input {
            inputs.push((
                Cow::Borrowed(size.name.as_str()),
                size_tensor(size.ty, (w, h))?.into(),
            ));
        }
        let started = Instant::now();
        let outputs = self
            .session
            .run(inputs)
            .map_err(|e| InferenceError::Run(e.to_string()))?;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        drop(outputs);
        Ok(ms)
    }

    /// The execution device, e.g. `cpu` or `cuda:0`.
    #[must_use]
    pub fn device(&self) -> &str {
        &self.device
    }

    /// Why each provider tried before [`Detector::provider`] was passed over
    /// (`cuda: not in this ONNX Runtime build`, …).
    #[must_use]
    pub fn passed_over(&self) -> &[String] {
        &self.passed_over
    }

    /// The provider the session was opened with.
    #[must_use]
    pub const fn provider(&self) -> Provider {
        self.provider
    }

    #[must_use]
    pub const fn adapter(&self) -> &ModelAdapter {
        &self.adapter
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The model's file name, for heartbeats.
    #[must_use]
    pub fn model_name(&self) -> String {
        self.path.file_name().map_or_else(
            || self.path.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    }

    #[must_use]
    pub const fn decode_config(&self) -> &DecodeConfig {
        &self.decode
    }

    /// Changes the decoding thresholds (a session's confidence threshold).
    pub const fn set_decode_config(&mut self, decode: DecodeConfig) {
        self.decode = decode;
    }

    /// Ends profiling (the detector must be loaded with `profile: true`) and counts the nodes
    /// each execution provider ran: the provider actually used, not just the one registered.
    ///
    /// # Errors
    /// Profiling was not enabled or its file cannot be read.
    pub fn providers_used(&mut self) -> Result<Vec<(String, usize)>, InferenceError> {
        let file = self
            .session
            .end_profiling()
            .map_err(|e| InferenceError::Run(format!("cannot end profiling: {e}")))?;
        let text = std::fs::read_to_string(&file)
            .map_err(|e| InferenceError::Run(format!("cannot read the profile {file}: {e}")))?;
        let _ = std::fs::remove_file(&file);
        let mut counts: Vec<(String, usize)> = Vec::new();
        let key = "\"provider\" : \"";
        let alt = "\"provider\":\"";
        for (i, _) in text.match_indices("\"provider\"") {
            let rest = &text[i..];
            let start = if rest.starts_with(key) {
                key.len()
            } else if rest.starts_with(alt) {
                alt.len()
            } else {
                continue;
            };
            let Some(end) = rest[start..].find('"') else {
                continue;
            };
            let name = &rest[start..start + end];
            match counts.iter_mut().find(|(n, _)| n == name) {
                Some((_, c)) => *c += 1,
                None => counts.push((name.to_owned(), 1)),
            }
        }
        counts.sort_by_key(|c| std::cmp::Reverse(c.1));
        Ok(counts)
    }
}

fn open_session(
    env: &ort::environment::Environment,
    path: &Path,
    provider: Provider,
    options: &DetectorOptions,
    threads: usize,
) -> Result<Session, String> {
    let mut builder = Session::builder(env)
        .map_err(|e| e.to_string())?
        .with_optimization_level(GraphOptimizationLevel::All)
        .map_err(|e| e.to_string())?
        .with_intra_threads(threads)
        .map_err(|e| e.to_string())?
        .with_inter_threads(1)
        .map_err(|e| e.to_string())?
        .with_intra_op_spinning(options.spinning)
        .map_err(|e| e.to_string())?
        .with_execution_providers([provider.dispatch(options.device_id)])
        .map_err(|e| e.to_string())?;
    if options.profile {
        let prefix =
            std::env::temp_dir().join(format!("sportz-ort-profile-{}", std::process::id()));
        builder = builder.with_profiling(prefix).map_err(|e| e.to_string())?;
    }
    builder.commit_from_file(path).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_workers_share_the_intra_op_threads() {
        // (threads, workers) → (workers, threads each)
        let cases = [
            ((2, 2), (2, 1)),
            ((4, 2), (2, 2)),
            ((1, 1), (1, 1)),
            ((2, 1), (1, 2)),
            // more workers than threads: one thread each
            ((2, 3), (3, 1)),
            ((5, 2), (2, 2)),
            ((16, 16), (16, 1)),
        ];
        for ((threads, workers), expected) in cases {
            let options = DetectorOptions {
                threads: Some(threads),
                workers: Some(workers),
                ..DetectorOptions::cpu()
            };
            assert_eq!(
                options.offline_workers(),
                expected,
                "{threads} threads, {workers} workers"
            );
        }
    }

    #[test]
    fn counts_from_the_environment_are_positive_whole_numbers() {
        for (value, expected) in [
            ("2", Some(2)),
            (" 4 ", Some(4)),
            ("0", None),
            ("-1", None),
            ("two", None),
            ("1.5", None),
            ("", None),
        ] {
            assert_eq!(parse_count(value), expected, "{value:?}");
        }
    }

    #[test]
    fn unless_told_a_many_core_machine_gets_a_few_detectors_on_several_threads() {
        // threads → (workers, threads each)
        for (threads, expected) in [
            (1, (1, 1)),
            (2, (2, 1)),
            (3, (3, 1)),
            (4, (4, 1)),
            (16, (4, 4)),
        ] {
            assert_eq!(split_workers(threads, None), expected, "{threads} threads");
        }
    }
}
