//! `sportz detect IMAGE_OR_DIR...`: the detector `sportz track` runs (the built-in one or
//! `--model`), on still images, every detection above a low threshold written as JSONL (one
//! [`ImageDetections`] a line, the format `sportz eval --detections` reads), so AP can be
//! computed. Folders are read one level deep (no sub-folders), in name order, `.jpg`, `.jpeg`
//! and `.png` only. A file that cannot be used — not an image, corrupt or truncated, over
//! [`MAX_MEGAPIXELS`] — is skipped with a line on stderr saying why; 16-bit images are reduced
//! to 8 bits with a note. Progress goes to stderr, the summary to stdout.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Context as _;
use image::{ColorType, ImageFormat, ImageReader};
use sportz_eval::detection::{Detection, ImageDetections};
use sportz_inference::{Detector, DetectorOptions};
use sportz_vision::RgbImage;
use sportz_vision::detect::DecodeConfig;

use crate::cli::DetectArgs;

/// Larger images are skipped: decoding one takes more memory than a detector needs (a 1080p
/// frame is 2 Mpx), and such files are more likely a mistake than a frame.
pub const MAX_MEGAPIXELS: f64 = 100.0;

/// An image to detect in: where it is and the name it is written under.
struct Input {
    path: PathBuf,
    name: String,
}

/// Runs the detector over every image of `args.inputs` and writes `args.out`.
///
/// # Errors
/// An output that cannot be written, a model that cannot be loaded, or no image processed.
pub fn run(args: &DetectArgs) -> anyhow::Result<()> {
    anyhow::ensure!(
        args.threshold > 0.0 && args.threshold < 1.0,
        "--threshold {}: expected a confidence between 0 and 1 (exclusive)",
        args.threshold
    );
    let out = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create the detections file {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(out);
    let mut skipped = 0usize;
    let inputs = collect(&args.inputs, &mut skipped);
    anyhow::ensure!(
        !inputs.is_empty(),
        "no image to detect in ({skipped} skipped); expected .jpg, .jpeg or .png files or folders of them"
    );
    let mut detector = load(args)?;

    let started = Instant::now();
    let (mut written, mut objects) = (0usize, 0usize);
    for (k, input) in inputs.iter().enumerate() {
        eprintln!("detecting {}/{} {}", k + 1, inputs.len(), input.name);
        let Decoded {
            pixels,
            width,
            height,
        } = match decode(&input.path) {
            Ok((decoded, note)) => {
                if let Some(note) = note {
                    eprintln!("note: {}: {note}", input.name);
                }
                decoded
            }
            Err(reason) => {
                eprintln!("skipped {}: {reason}", input.name);
                skipped += 1;
                continue;
            }
        };
        let image = RgbImage::new(&pixels, width, height)?;
        let (found, _) = detector
            .detect(&image)
            .with_context(|| format!("detection failed on {}", input.name))?;
        let (w, h) = (f64::from(width), f64::from(height));
        let detections: Vec<Detection> = found
            .iter()
            .filter_map(|d| {
                let b = d.bbox;
                Some(Detection {
                    class: d.class?,
                    bbox: [
                        round2(f64::from(b.x1).clamp(0.0, w)),
                        round2(f64::from(b.y1).clamp(0.0, h)),
                        round2(f64::from(b.x2).clamp(0.0, w)),
                        round2(f64::from(b.y2).clamp(0.0, h)),
                    ],
                    // f32 → f64 without the binary tail (0.8999999761581421 → 0.9)
                    confidence: (f64::from(d.confidence) * 1e6).round() / 1e6,
                })
            })
            .collect();
        objects += detections.len();
        let line = ImageDetections {
            image: input.name.clone(),
            width,
            height,
            detections,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        written += 1;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "wrote {written} images ({objects} detections) to {} in {secs:.1} s ({:.0} ms an image); skipped {skipped}",
        args.out.display(),
        secs * 1000.0 / written.max(1) as f64
    );
    anyhow::ensure!(
        written > 0,
        "no image could be processed ({skipped} skipped); expected JPEG or PNG files"
    );
    Ok(())
}

fn round2(v: f64) -> f64 {
    (v * 100.0).round() / 100.0
}

/// The detector of `--model` (or the built-in one) with the low confidence threshold.
fn load(args: &DetectArgs) -> anyhow::Result<Detector> {
    let model = match &args.model {
        Some(p) if p.as_os_str() == "none" => {
            anyhow::bail!("--model none detects nothing; expected an ONNX model or no --model")
        }
        Some(p) => p.clone(),
        None => {
            eprintln!("{}", crate::detector::BUILT_IN_NOTE);
            crate::detector::default_model_path()?
        }
    };
    let options = DetectorOptions {
        decode: DecodeConfig {
            confidence_threshold: args.threshold as f32,
            ..DecodeConfig::default()
        },
        ..DetectorOptions::default()
    };
    Detector::load(&model, &options)
        .map_err(|e| anyhow::anyhow!("cannot load the model {}: {e}", model.display()))
}

fn is_image_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["jpg", "jpeg", "png"].contains(&e.to_ascii_lowercase().as_str()))
}

/// The images named by the arguments: files as given, folders' `.jpg`/`.jpeg`/`.png` files in
/// name order. Everything else is reported on stderr and counted in `skipped`.
fn collect(args: &[PathBuf], skipped: &mut usize) -> Vec<Input> {
    let mut out = Vec::new();
    for arg in args {
        if arg.is_file() {
            out.push(Input {
                path: arg.clone(),
                name: arg.display().to_string(),
            });
            continue;
        }
        let entries = match std::fs::read_dir(arg) {
            Ok(entries) => entries,
            Err(e) => {
                eprintln!(
                    "skipped {}: not a file or a readable folder ({e})",
                    arg.display()
                );
                *skipped += 1;
                continue;
            }
        };
        let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        paths.sort();
        for path in paths {
            let name = arg.join(path.file_name().unwrap_or_default());
            let name = name.display().to_string();
            if path.is_dir() {
                eprintln!("skipped {name}: a folder (detect does not look inside sub-folders)");
                *skipped += 1;
            } else if !is_image_name(&path) {
                eprintln!("skipped {name}: not a .jpg, .jpeg or .png file");
                *skipped += 1;
            } else {
                out.push(Input { path, name });
            }
        }
    }
    out
}

/// Whether a JPEG's last scan is followed by the end-of-image marker. Inside entropy-coded data
/// a 0xFF byte is always followed by 0x00 or a restart marker, so `FF DA` (start of scan) and
/// `FF D9` (end of image) appear only as markers; an EXIF thumbnail's markers come before the
/// main image's scans.
fn jpeg_is_complete(bytes: &[u8]) -> bool {
    let last_scan = bytes.windows(2).rposition(|w| w == [0xFF, 0xDA]);
    last_scan.is_some_and(|p| bytes[p..].windows(2).any(|w| w == [0xFF, 0xD9]))
}

/// A decoded image: packed RGB8 rows.
struct Decoded {
    pixels: Vec<u8>,
    width: u32,
    height: u32,
}

/// Decodes a JPEG or PNG into RGB8, with a note when it was converted in a way worth saying (16
/// bits a channel). The error says why the file cannot be used.
fn decode(path: &Path) -> Result<(Decoded, Option<&'static str>), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read it ({e})"))?;
    let format = image::guess_format(&bytes)
        .ok()
        .filter(|f| matches!(f, ImageFormat::Jpeg | ImageFormat::Png))
        .ok_or("not a JPEG or PNG image (its content is neither)")?;
    if format == ImageFormat::Jpeg && !jpeg_is_complete(&bytes) {
        // the decoder would fill the missing rows with grey and say nothing
        return Err("a truncated JPEG (no end-of-image marker after its image data)".to_owned());
    }
    let reader = || ImageReader::with_format(std::io::Cursor::new(&bytes), format);
    let (w, h) = reader()
        .into_dimensions()
        .map_err(|e| format!("cannot read its header ({e})"))?;
    let megapixels = f64::from(w) * f64::from(h) / 1e6;
    if megapixels > MAX_MEGAPIXELS {
        return Err(format!(
            "{w}x{h} is {megapixels:.0} Mpx, over the {MAX_MEGAPIXELS:.0} Mpx limit"
        ));
    }
    let image = reader()
        .decode()
        .map_err(|e| format!("cannot decode it ({e})"))?;
    let note = matches!(
        image.color(),
        ColorType::L16 | ColorType::La16 | ColorType::Rgb16 | ColorType::Rgba16
    )
    .then_some("16 bits a channel, reduced to 8");
    let rgb = image.to_rgb8();
    let (width, height) = rgb.dimensions();
    let decoded = Decoded {
        pixels: rgb.into_raw(),
        width,
        height,
    };
    Ok((decoded, note))
}
