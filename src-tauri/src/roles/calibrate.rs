//! `sportz calibrate IMAGE_OR_DIR...`: the camera of still images, found from their pitch lines
//! alone (the initialisation the live pipeline runs after every cut), one
//! [`ImageCamera`] a line of JSONL — the format `sportz eval --cameras` scores against labelled
//! pitch keypoints. `--aspect 16:9` first undoes a stretched export (a 640×640 dataset frame of
//! a 16:9 broadcast is widened to 1138×640 before the search; labels are normalised, so they
//! still hold). Images are read as `sportz detect` reads them, and searched at full size, then
//! at the tracker's 640-wide working resolution when that finds nothing
//! (`sportz_vision::camera::initialise_still`).

use std::io::Write as _;
use std::time::Instant;

use anyhow::Context as _;
use sportz_eval::keypoints::ImageCamera;
use sportz_vision::RgbImage;
use sportz_vision::camera::{
    BroadcastCamera, DEFAULT_WORK_WIDTH, FrameCameraEstimate, InitConfig, InitFailure,
    initialise_still, model::samples,
};
use sportz_vision::pitch::Calibration;

use super::stills::{AspectRule, Decoded, collect, decode, unstretch};
use crate::cli::CalibrateArgs;

/// Runs the camera search over every image of `args.inputs` and writes `args.out`.
///
/// # Errors
/// An output that cannot be written, a bad `--aspect`, or no image processed.
pub fn run(args: &CalibrateArgs) -> anyhow::Result<()> {
    let aspect = args
        .aspect
        .as_deref()
        .map(AspectRule::parse)
        .transpose()?
        .unwrap_or(AspectRule::AsIs);
    let out = std::fs::File::create(&args.out)
        .with_context(|| format!("cannot create the cameras file {}", args.out.display()))?;
    let mut out = std::io::BufWriter::new(out);
    let mut skipped = 0usize;
    let inputs = collect(&args.inputs, &mut skipped);
    anyhow::ensure!(
        !inputs.is_empty(),
        "no image to calibrate ({skipped} skipped); expected .jpg, .jpeg or .png files or folders of them"
    );
    let (fine, coarse) = (samples(1.0), samples(2.0));
    let cfg = InitConfig::default();
    // the built-in pitch-line model (SPORTZ_LINE_MODEL=none: the top-hat line test alone)
    let lines =
        sportz_worker::vision::load_line_model(sportz_worker::vision::line_model_threads_alone());
    let started = Instant::now();
    let (mut written, mut found) = (0usize, 0usize);
    for (k, input) in inputs.iter().enumerate() {
        let decoded = match decode(&input.path) {
            Ok((d, _)) => d,
            Err(reason) => {
                say!("skipped {}: {reason}", input.name);
                skipped += 1;
                continue;
            }
        };
        let Decoded {
            pixels,
            width,
            height,
        } = match aspect.target(decoded.width, decoded.height) {
            Some(a) => unstretch(decoded, a),
            None => decoded,
        };
        let image = RgbImage::new(&pixels, width, height)?;
        let t = Instant::now();
        let model = lines.as_ref().map(|m| &*m.0);
        let result = initialise_still(model, &image, &[], &fine, &coarse, &cfg, DEFAULT_WORK_WIDTH);
        let ms = t.elapsed().as_secs_f64() * 1000.0;
        if let Some(dir) = &args.draw {
            let (cam, ok) = match &result {
                Ok(fit) => (Some(fit.camera), true),
                Err(InitFailure::NoFit { best, .. }) => (best.as_deref().copied(), false),
                Err(_) => (None, false),
            };
            draw(dir, &input.name, &pixels, width, height, cam.as_ref(), ok)?;
        }
        let (camera, reason) = match result {
            Ok(fit) => {
                let estimate = fit
                    .camera
                    .image_from_pitch()
                    .and_then(Calibration::from_image_from_pitch)
                    .map(|calibration| FrameCameraEstimate {
                        camera: Some(fit.camera),
                        calibration,
                        source: sportz_contract::CameraSource::Auto,
                        confidence: fit.support(),
                    });
                match estimate {
                    Ok(e) => (Some(e.to_contract()), None),
                    Err(e) => (None, Some(format!("singular camera: {e}"))),
                }
            }
            Err(e) => (None, Some(e.to_string())),
        };
        found += usize::from(camera.is_some());
        say!(
            "calibrating {}/{} {}: {} ({ms:.0} ms)",
            k + 1,
            inputs.len(),
            input.name,
            reason.as_deref().unwrap_or("camera found")
        );
        let line = ImageCamera {
            image: input.name.clone(),
            width,
            height,
            camera,
            reason,
            ms: (ms * 10.0).round() / 10.0,
        };
        serde_json::to_writer(&mut out, &line)?;
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .with_context(|| format!("cannot write {}", args.out.display()))?;
        written += 1;
    }
    println!(
        "wrote {written} images ({found} with a camera) to {} in {:.1} s; skipped {skipped}",
        args.out.display(),
        started.elapsed().as_secs_f64()
    );
    anyhow::ensure!(
        written > 0,
        "no image could be processed ({skipped} skipped); expected JPEG or PNG files"
    );
    Ok(())
}

/// Writes `<dir>/<image stem>.png`: the image with the pitch model projected through `camera`,
/// green when it was accepted, red for the best refused one (the visual check).
fn draw(
    dir: &std::path::Path,
    name: &str,
    pixels: &[u8],
    width: u32,
    height: u32,
    camera: Option<&BroadcastCamera>,
    accepted: bool,
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot create the drawing folder {}", dir.display()))?;
    let mut img = image::RgbImage::from_raw(width, height, pixels.to_vec())
        .context("image buffer of the wrong size")?;
    let colour = if accepted {
        [40, 255, 80]
    } else {
        [255, 40, 40]
    };
    if let Some(cam) = camera {
        for s in samples(0.05) {
            let Some(p) = cam.project(s.pitch) else {
                continue;
            };
            if !cam.ray_hits_ground(p) {
                continue;
            }
            let (x, y) = (p.x.floor(), p.y.floor());
            if x >= 0.0 && y >= 0.0 && x < f64::from(width) && y < f64::from(height) {
                img.put_pixel(x as u32, y as u32, image::Rgb(colour));
            }
        }
    }
    let stem = std::path::Path::new(name)
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("image");
    let path = dir.join(format!("{stem}.png"));
    img.save(&path)
        .with_context(|| format!("cannot write {}", path.display()))
}
