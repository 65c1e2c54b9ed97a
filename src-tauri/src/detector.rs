//! Which detector a worker runs: the model given with `--model`, `none` for no detection, else
//! the built-in `sportz-det` compiled into the binary (written to the user's cache on first use,
//! since ONNX Runtime loads files).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use sportz_worker::{AnalyzerFactory, PassThroughFactory, VisionAnalyzerFactory};

/// The built-in detector (models/sportz-det.onnx; see models/MODEL_CARD.md).
const DEFAULT_MODEL: &[u8] = include_bytes!("../../models/sportz-det.onnx");

/// Its 8-bit quantisation, the default of live sessions (half the inference time, the same
/// valid-split AP; models/MODEL_CARD.md, "Session 26").
const LIVE_MODEL: &[u8] = include_bytes!("../../models/sportz-det-int8.onnx");

/// What the offline roles (`track`, `detect`) say on stderr when they use the built-in model.
pub const BUILT_IN_NOTE: &str = "note: detecting with the built-in sportz-det (a small CPU model trained on two leagues' broadcasts and on synthetic matches; see models/MODEL_CARD.md for what it misses); --model takes any YOLO-family ONNX";

/// Writes the built-in detector to `~/.cache/sportz/models/` (once per model version) and
/// returns its path (`sportz detect` loads it with options of its own).
///
/// # Errors
/// When the cache folder or the file cannot be written.
pub fn default_model_path() -> anyhow::Result<PathBuf> {
    cached("sportz-det", DEFAULT_MODEL)
}

/// [`default_model_path`] for the live sessions' 8-bit model.
fn live_model_path() -> anyhow::Result<PathBuf> {
    cached("sportz-det-int8", LIVE_MODEL)
}

/// `bytes` written once per content to the user's cache as `<name>-<hash>.onnx`.
fn cached(name: &str, bytes: &[u8]) -> anyhow::Result<PathBuf> {
    // FNV-1a: a stable name per model content, so a new build never reads an old file
    let hash = bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3)
    });
    let dir = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("sportz/models");
    let path = dir.join(format!("{name}-{hash:016x}.onnx"));
    if !path.is_file() {
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let tmp = dir.join(format!(".{name}-{}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path)?;
    }
    Ok(path)
}

/// The analyser factory for `--model`: the ONNX detector given (an error if it cannot be
/// loaded), `none` for frames without detections, or by default the built-in detector (frames
/// without detections, with a warning, if it cannot be loaded); its camera reads `lines`
/// (`sportz_worker::vision::load_line_model`, loaded once per process by the caller).
///
/// # Errors
/// When a model was given and cannot be loaded.
pub fn select(
    model: Option<&Path>,
    lines: Option<sportz_vision::image::SharedLineModel>,
) -> anyhow::Result<Arc<dyn AnalyzerFactory>> {
    let load = |path: &Path| {
        VisionAnalyzerFactory::with_line_model(
            path,
            sportz_inference::DetectorOptions::default(),
            lines.clone(),
        )
    };
    match model {
        Some(p) if p.as_os_str() == "none" => {
            tracing::warn!("--model none: frames are published without detections");
            Ok(Arc::new(PassThroughFactory))
        }
        Some(path) => {
            let f = load(path)
                .map_err(|e| anyhow::anyhow!("cannot load the model {}: {e}", path.display()))?;
            tracing::info!(model = %path.display(), device = %AnalyzerFactory::device(&f), "detector loaded");
            Ok(Arc::new(f))
        }
        None => {
            match default_model_path().and_then(|p| load(&p).map_err(|e| anyhow::anyhow!("{e}"))) {
                Ok(f) => {
                    // live sessions run the 8-bit version (loaded when the first starts)
                    let f = match live_model_path() {
                        Ok(p) => f.with_live_default(p),
                        Err(e) => {
                            tracing::warn!(
                                "the built-in 8-bit detector is unavailable ({e:#}); live sessions use the float one"
                            );
                            f
                        }
                    };
                    tracing::info!(device = %AnalyzerFactory::device(&f), "built-in detector sportz-det loaded (a small CPU model trained on two leagues' broadcasts and on synthetic matches, in 8 bits for live sessions; models/MODEL_CARD.md; --model takes any YOLO-family ONNX)");
                    Ok(Arc::new(f))
                }
                Err(e) => {
                    tracing::warn!(
                        "the built-in detector is unavailable ({e:#}); frames are published without detections"
                    );
                    Ok(Arc::new(PassThroughFactory))
                }
            }
        }
    }
}
