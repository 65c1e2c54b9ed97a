//! Still images for the roles that read them (`detect`, `calibrate`): the JPEG/PNG files named
//! on the command line (folders one level deep, in name order), decoded to RGB8, and the reasons
//! a file is skipped (not an image, truncated, too large).

use std::path::{Path, PathBuf};

use image::{ColorType, ImageFormat, ImageReader};

/// Larger images are skipped: decoding one takes more memory than a detector needs (a 1080p
/// frame is 2 Mpx), and such files are more likely a mistake than a frame.
pub(crate) const MAX_MEGAPIXELS: f64 = 100.0;

/// An image to read: where it is and the name it is written under.
pub(crate) struct Input {
    pub path: PathBuf,
    pub name: String,
}

fn is_image_name(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| ["jpg", "jpeg", "png"].contains(&e.to_ascii_lowercase().as_str()))
}

/// The images named by the arguments: files as given, folders' `.jpg`/`.jpeg`/`.png` files in
/// name order. Everything else is reported on stderr and counted in `skipped`.
pub(crate) fn collect(args: &[PathBuf], skipped: &mut usize) -> Vec<Input> {
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
                say!(
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
                say!("skipped {name}: a folder (sub-folders are not read)");
                *skipped += 1;
            } else if !is_image_name(&path) {
                say!("skipped {name}: not a .jpg, .jpeg or .png file");
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
pub(crate) struct Decoded {
    pub pixels: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// Decodes a JPEG or PNG into RGB8, with a note when it was converted in a way worth saying (16
/// bits a channel). The error says why the file cannot be used.
pub(crate) fn decode(path: &Path) -> Result<(Decoded, Option<&'static str>), String> {
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

/// `W:H` (e.g. `16:9`) as a ratio.
fn parse_aspect(s: &str) -> anyhow::Result<f64> {
    let parsed = s.split_once(':').and_then(|(w, h)| {
        let (w, h): (f64, f64) = (w.trim().parse().ok()?, h.trim().parse().ok()?);
        (w > 0.0 && h > 0.0 && (w / h).is_finite()).then_some(w / h)
    });
    parsed.ok_or_else(|| anyhow::anyhow!("--aspect `{s}`: expected WIDTH:HEIGHT such as 16:9"))
}

/// `--aspect` of `sportz detect` and `sportz calibrate`: how each image's shape is taken.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum AspectRule {
    /// A square image is a 16:9 broadcast frame stretched to a square (how dataset exports
    /// such as Roboflow's "stretch to 640×640" store them): widened back before detection.
    /// Other shapes as they are.
    Auto,
    /// Every image as it is.
    AsIs,
    /// Every image widened or narrowed to this width / height.
    Fixed(f64),
}

impl AspectRule {
    /// `auto`, `none` or `W:H`.
    pub(crate) fn parse(s: &str) -> anyhow::Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "none" => Ok(Self::AsIs),
            _ => parse_aspect(s).map(Self::Fixed).map_err(|_| {
                anyhow::anyhow!("--aspect `{s}`: expected auto, none or WIDTH:HEIGHT such as 16:9")
            }),
        }
    }

    /// The aspect a `width`×`height` image is widened to, `None` to leave it.
    pub(crate) fn target(self, width: u32, height: u32) -> Option<f64> {
        match self {
            Self::Auto => (width == height).then_some(16.0 / 9.0),
            Self::AsIs => None,
            Self::Fixed(a) => Some(a),
        }
    }
}

/// The image widened or narrowed to `aspect` (height kept), bilinear.
pub(crate) fn unstretch(d: Decoded, aspect: f64) -> Decoded {
    let width = (f64::from(d.height) * aspect).round().max(1.0) as u32;
    let whole = d.pixels.len() as u64 == u64::from(d.width) * u64::from(d.height) * 3;
    if width == d.width || !whole {
        return d;
    }
    let Some(img) = image::RgbImage::from_raw(d.width, d.height, d.pixels) else {
        unreachable!("the buffer holds width × height RGB pixels (checked above)");
    };
    let out = image::imageops::resize(&img, width, d.height, image::imageops::FilterType::Triangle);
    Decoded {
        width,
        height: d.height,
        pixels: out.into_raw(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn aspects_parse_or_say_what_was_expected() {
        assert!((parse_aspect("16:9").unwrap() - 16.0 / 9.0).abs() < 1e-12);
        for bad in ["16x9", "0:9", "a:b", "16:"] {
            let e = parse_aspect(bad).unwrap_err().to_string();
            assert!(e.contains("expected WIDTH:HEIGHT"), "{e}");
        }
    }

    #[test]
    fn the_aspect_rule_widens_square_exports_only_when_automatic() {
        let auto = AspectRule::parse("auto").unwrap();
        assert_eq!(auto.target(1280, 1280), Some(16.0 / 9.0));
        assert_eq!(auto.target(1920, 1080), None);
        assert_eq!(AspectRule::parse("none").unwrap().target(640, 640), None);
        let fixed = AspectRule::parse("4:3").unwrap();
        assert!((fixed.target(1920, 1080).unwrap() - 4.0 / 3.0).abs() < 1e-12);
        let e = AspectRule::parse("wide").unwrap_err().to_string();
        assert!(e.contains("expected auto, none or WIDTH:HEIGHT"), "{e}");
    }

    #[test]
    fn unstretching_widens_to_the_aspect() {
        let d = Decoded {
            pixels: vec![7; 64 * 64 * 3],
            width: 64,
            height: 64,
        };
        let u = unstretch(d, 16.0 / 9.0);
        assert_eq!((u.width, u.height), (114, 64));
        assert_eq!(u.pixels.len(), 114 * 64 * 3);
        assert!(u.pixels.iter().all(|&p| p == 7));
    }
}
