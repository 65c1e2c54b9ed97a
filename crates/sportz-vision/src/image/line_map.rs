//! A learned layer of an image: how likely a pitch marking is painted at each point, as a line
//! model (`sportz-lines`, `tools/train-line-model`) says. The camera's line test reads it instead
//! of its top-hat when an image carries one ([`super::RgbImage::with_lines`]); the model itself
//! runs outside this crate, behind [`LineModel`].

use super::RgbImage;

/// Line probabilities on a grid over the image (`width × height` cells, row-major, 0–1); cell
/// `(i, j)` covers source pixels `[i·sx, (i+1)·sx) × [j·sy, (j+1)·sy)`.
#[derive(Debug, Clone, PartialEq)]
pub struct LineMap {
    width: usize,
    height: usize,
    prob: Vec<f32>,
    /// Source pixels per cell, horizontally and vertically.
    scale: (f64, f64),
}

/// Why a line map cannot be built.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
#[error("a line map of {width}x{height} cells needs {expected} probabilities, got {found}")]
pub struct LineMapError {
    pub width: usize,
    pub height: usize,
    pub expected: usize,
    pub found: usize,
}

impl LineMap {
    /// A map of `width × height` cells over an image of `image_width × image_height` pixels.
    ///
    /// # Errors
    /// When `prob` does not hold one value per cell, or the grid is empty.
    pub fn new(
        width: usize,
        height: usize,
        prob: Vec<f32>,
        image_width: u32,
        image_height: u32,
    ) -> Result<Self, LineMapError> {
        if width == 0 || height == 0 || prob.len() != width * height {
            return Err(LineMapError {
                width,
                height,
                expected: width * height,
                found: prob.len(),
            });
        }
        Ok(Self {
            width,
            height,
            prob,
            scale: (
                f64::from(image_width) / width as f64,
                f64::from(image_height) / height as f64,
            ),
        })
    }

    /// The probability at source pixel `(x, y)`, bilinear between cell centres; 0 outside.
    #[must_use]
    pub fn at(&self, x: f64, y: f64) -> f32 {
        let gx = x / self.scale.0 - 0.5;
        let gy = y / self.scale.1 - 0.5;
        if !(gx > -1.0 && gy > -1.0 && gx < self.width as f64 && gy < self.height as f64) {
            return 0.0;
        }
        let (x0, y0) = (gx.floor(), gy.floor());
        let (fx, fy) = ((gx - x0) as f32, (gy - y0) as f32);
        let cell = |i: f64, j: f64| -> f32 {
            let i = i.clamp(0.0, (self.width - 1) as f64) as usize;
            let j = j.clamp(0.0, (self.height - 1) as f64) as usize;
            self.prob[j * self.width + i]
        };
        let top = cell(x0, y0) * (1.0 - fx) + cell(x0 + 1.0, y0) * fx;
        let bottom = cell(x0, y0 + 1.0) * (1.0 - fx) + cell(x0 + 1.0, y0 + 1.0) * fx;
        top * (1.0 - fy) + bottom * fy
    }

    /// Grid size in cells.
    #[must_use]
    pub const fn size(&self) -> (usize, usize) {
        (self.width, self.height)
    }
}

/// Something that finds the pitch markings of a frame: the ONNX line model in
/// `sportz-inference`, or a stand-in in tests.
pub trait LineModel: Send + Sync {
    /// The line map of `img` (same pixel grid as `img`).
    ///
    /// # Errors
    /// A message saying why the model could not run.
    fn line_map(&self, img: &RgbImage<'_>) -> Result<LineMap, String>;
}

/// A line model shared between threads (the tracker and its search threads), printable.
#[derive(Clone)]
pub struct SharedLineModel(pub std::sync::Arc<dyn LineModel>);

impl std::fmt::Debug for SharedLineModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SharedLineModel")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cells_bilinearly_in_source_pixels() {
        // 2×1 cells over a 4×2 image: cell centres at x = 1 and x = 3
        let m = LineMap::new(2, 1, vec![0.0, 1.0], 4, 2).unwrap();
        assert!((m.at(1.0, 1.0) - 0.0).abs() < 1e-6);
        assert!((m.at(3.0, 1.0) - 1.0).abs() < 1e-6);
        assert!((m.at(2.0, 1.0) - 0.5).abs() < 1e-6);
        assert!(
            (m.at(3.9, 0.1) - 1.0).abs() < 1e-6,
            "edges clamp to the last cell"
        );
        assert_eq!(m.at(-5.0, 1.0), 0.0);
        assert_eq!(m.at(1.0, 9.0), 0.0);
    }

    #[test]
    fn a_wrong_length_says_what_was_expected() {
        let e = LineMap::new(3, 2, vec![0.0; 5], 6, 4).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a line map of 3x2 cells needs 6 probabilities, got 5"
        );
        assert!(LineMap::new(0, 2, vec![], 6, 4).is_err());
    }
}
