//! `sportz detect IMAGE_OR_DIR...`: the detector `sportz track` runs (the built-in one or
//! `--model`), on still images, every detection above a low threshold written as JSONL (one
//! [`ImageDetections`] a line, the format `sportz eval --detections` reads), so AP can be
//! computed. Folders are read one level deep (no sub-folders), in name order, `.jpg`, `.jpeg`
//! and `.png` only. A file that cannot be used — not an image, corrupt or truncated, over
//! [`super::stills::MAX_MEGAPIXELS`] — is skipped with a line on stderr saying why; 16-bit images are reduced
//! to 8 bits with a note. Progress goes to stderr, the summary to stdout.
//!
//! `--aspect auto` (the default) widens a square image to 16:9 before detection: square stills
//! of football are broadcast frames stretched by a dataset export, and the detector, like every
//! broadcast, sees people and a round ball in their true proportions (on `players-dfl/valid`:
//! player AP50 0.916 → 0.945, ball 0.182 → 0.324). Boxes are always written in the pixels of
//! the image as given.

use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;
use sportz_eval::detection::{Detection, ImageDetections};
use sportz_inference::{Detector, DetectorOptions};
use sportz_vision::RgbImage;
use sportz_vision::detect::DecodeConfig;

use super::stills::{AspectRule, collect, decode, unstretch};
use crate::cli::DetectArgs;

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
    let tiles: Option<u32> = match args.tiles.as_str() {
        "auto" => None,
        n => Some(
            n.parse()
                .ok()
                .filter(|n| (1..=4).contains(n))
                .with_context(|| format!("--tiles {n}: expected auto or a grid size 1 to 4"))?,
        ),
    };
    let aspect = AspectRule::parse(&args.aspect)?;
    let mut widened_noted = false;
    let mut detector = load(args)?;

    let started = Instant::now();
    let (mut written, mut objects) = (0usize, 0usize);
    for (k, input) in inputs.iter().enumerate() {
        say!("detecting {}/{} {}", k + 1, inputs.len(), input.name);
        let decoded = match decode(&input.path) {
            Ok((decoded, note)) => {
                if let Some(note) = note {
                    say!("note: {}: {note}", input.name);
                }
                decoded
            }
            Err(reason) => {
                say!("skipped {}: {reason}", input.name);
                skipped += 1;
                continue;
            }
        };
        let (width, height) = (decoded.width, decoded.height);
        let seen = match aspect.target(width, height) {
            Some(a) => {
                if aspect == AspectRule::Auto && !widened_noted {
                    widened_noted = true;
                    say!(
                        "note: {} is square: taken for a 16:9 frame stretched to a square (a dataset export) and widened to 16:9 before detection, as every square image will be; boxes stay in each image's own pixels (--aspect none: detect on images as they are)",
                        input.name
                    );
                }
                unstretch(decoded, a)
            }
            None => decoded,
        };
        // detected pixels → the image's own (x only: the height is kept)
        let to_own = f64::from(width) / f64::from(seen.width);
        let image = RgbImage::new(&seen.pixels, seen.width, seen.height)?;
        let grid = tiles.unwrap_or_else(|| {
            sportz_vision::detect::auto_grid(seen.width, seen.height, detector.input_size())
        });
        let (mut found, _) = detector
            .detect_tiled(&image, grid)
            .with_context(|| format!("detection failed on {}", input.name))?;
        if !args.model_ball_boxes {
            sportz_vision::detect::recentre_balls(&image, &mut found.items);
        }
        let (w, h) = (f64::from(width), f64::from(height));
        let detections: Vec<Detection> = found
            .iter()
            .filter_map(|d| {
                let b = d.bbox;
                Some(Detection {
                    class: d.class?,
                    bbox: [
                        round2((f64::from(b.x1) * to_own).clamp(0.0, w)),
                        round2(f64::from(b.y1).clamp(0.0, h)),
                        round2((f64::from(b.x2) * to_own).clamp(0.0, w)),
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
            say!("{}", crate::detector::BUILT_IN_NOTE);
            crate::detector::default_model_path()?
        }
    };
    let options = DetectorOptions {
        decode: DecodeConfig {
            confidence_threshold: args.threshold as f32,
            multi_label: !args.one_class_per_box,
            ..DecodeConfig::default()
        },
        ..DetectorOptions::default()
    };
    Detector::load(&model, &options)
        .map_err(|e| anyhow::anyhow!("cannot load the model {}: {e}", model.display()))
}
