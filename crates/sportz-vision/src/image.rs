//! A borrowed RGB8 image: the only pixel type the pure code reads (preprocessing, shirt colours),
//! optionally carrying a learned [`LineMap`] of itself for the camera's line test.

use thiserror::Error;

mod line_map;

pub use line_map::{LineMap, LineMapError, LineModel, SharedLineModel};

/// Why a buffer is not an RGB8 image of the stated size.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum ImageError {
    #[error("image buffer has {found} bytes, expected {expected} ({width}x{height} RGB8)")]
    WrongLength {
        found: usize,
        expected: usize,
        width: u32,
        height: u32,
    },
    #[error("image size {width}x{height} is empty, expected at least 1x1")]
    Empty { width: u32, height: u32 },
}

/// Row-major, tightly packed RGB8 pixels.
#[derive(Debug, Clone, Copy)]
pub struct RgbImage<'a> {
    data: &'a [u8],
    width: u32,
    height: u32,
    lines: Option<&'a LineMap>,
}

impl<'a> RgbImage<'a> {
    /// Checks that `data` holds exactly `width * height * 3` bytes.
    pub fn new(data: &'a [u8], width: u32, height: u32) -> Result<Self, ImageError> {
        if width == 0 || height == 0 {
            return Err(ImageError::Empty { width, height });
        }
        let expected = width as usize * height as usize * 3;
        if data.len() != expected {
            return Err(ImageError::WrongLength {
                found: data.len(),
                expected,
                width,
                height,
            });
        }
        Ok(Self {
            data,
            width,
            height,
            lines: None,
        })
    }

    /// The same image with a line model's map of it: the camera's line test then reads the map
    /// instead of the pixels' top-hat.
    #[must_use]
    pub const fn with_lines(self, lines: &'a LineMap) -> Self {
        Self {
            lines: Some(lines),
            ..self
        }
    }

    /// The line map this image carries, if any.
    #[must_use]
    pub const fn lines(&self) -> Option<&'a LineMap> {
        self.lines
    }

    #[must_use]
    pub const fn width(&self) -> u32 {
        self.width
    }

    #[must_use]
    pub const fn height(&self) -> u32 {
        self.height
    }

    /// The packed RGB8 bytes, row-major.
    #[must_use]
    pub const fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The pixel at `(x, y)`; both must be inside the image.
    #[must_use]
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 3] {
        let i = (y as usize * self.width as usize + x as usize) * 3;
        [self.data[i], self.data[i + 1], self.data[i + 2]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validates_the_buffer() {
        let buf = [0u8; 12];
        assert!(RgbImage::new(&buf, 2, 2).is_ok());
        let err = RgbImage::new(&buf, 3, 2).unwrap_err().to_string();
        assert_eq!(err, "image buffer has 12 bytes, expected 18 (3x2 RGB8)");
        assert!(RgbImage::new(&[], 0, 5).is_err());
        let px = [1, 2, 3, 4, 5, 6];
        assert_eq!(RgbImage::new(&px, 2, 1).unwrap().pixel(1, 0), [4, 5, 6]);
    }
}
