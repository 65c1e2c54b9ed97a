//! Tiled detection for images much larger than the model input (a 1080p broadcast frame into a
//! 640×384 detector shrinks a 10 px ball to 3 px): the whole image once, plus an overlapping
//! grid of crops at closer to native resolution, merged by per-class NMS. A detection cut by
//! a crop's inner edge is dropped (the whole image or a neighbouring crop sees it whole).

use super::{Detection, nms_per_class};
use crate::BBox;

/// A crop of the source image, pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tile {
    pub x: u32,
    pub y: u32,
    pub width: u32,
    pub height: u32,
}

/// Share of a tile that overlaps its neighbour.
pub const TILE_OVERLAP: f64 = 0.2;

/// The letterbox scale below which [`auto_grid`] tiles: the image shrinks more than 2.5× into
/// the model input.
pub const TILE_BELOW_SCALE: f64 = 0.4;

/// The grid `auto` picks: 2 (2×2 crops) when the image shrinks by more than 1 / `TILE_BELOW_SCALE`
/// into the model input `(in_w, in_h)`, else 1 (the whole image only).
#[must_use]
pub fn auto_grid(width: u32, height: u32, (in_w, in_h): (u32, u32)) -> u32 {
    let scale = (f64::from(in_w) / f64::from(width)).min(f64::from(in_h) / f64::from(height));
    if scale < TILE_BELOW_SCALE { 2 } else { 1 }
}

/// An `n`×`n` grid of crops covering the image, neighbours overlapping by [`TILE_OVERLAP`];
/// empty for `n` ≤ 1.
#[must_use]
pub fn tile_grid(width: u32, height: u32, n: u32) -> Vec<Tile> {
    if n <= 1 {
        return Vec::new();
    }
    let axis = |len: u32| -> Vec<(u32, u32)> {
        let nf = f64::from(n);
        // n tiles of size t with steps t·(1 − overlap) span len
        let t = (f64::from(len) / (nf - (nf - 1.0) * TILE_OVERLAP)).ceil();
        let step = t * (1.0 - TILE_OVERLAP);
        // pixel positions: rounded within 0..=len
        (0..n)
            .map(|i| {
                let start = (f64::from(i) * step)
                    .round()
                    .min(f64::from(len) - t)
                    .max(0.0) as u32;
                (start, (t as u32).min(len - start))
            })
            .collect()
    };
    let (xs, ys) = (axis(width), axis(height));
    ys.iter()
        .flat_map(|&(y, h)| {
            xs.iter().map(move |&(x, w)| Tile {
                x,
                y,
                width: w,
                height: h,
            })
        })
        .collect()
}

/// Copies a tile out of packed RGB8 pixels of an image `width` wide.
#[must_use]
pub fn crop_rgb(data: &[u8], width: u32, tile: &Tile) -> Vec<u8> {
    let mut out = Vec::with_capacity(tile.width as usize * tile.height as usize * 3);
    for row in tile.y..tile.y + tile.height {
        let start = (row as usize * width as usize + tile.x as usize) * 3;
        out.extend_from_slice(&data[start..start + tile.width as usize * 3]);
    }
    out
}

/// The detections of the whole image and of each tile (in the tile's own pixels), as one set in
/// the image's pixels: tile detections moved into place, those touching a tile's inner edge
/// dropped, then per-class NMS at `iou`, at most `max_keep`.
#[must_use]
pub fn merge_tiles(
    whole: Vec<Detection>,
    tiles: &[(Tile, Vec<Detection>)],
    (width, height): (u32, u32),
    iou: f32,
    max_keep: usize,
) -> Vec<Detection> {
    const EDGE_PX: f32 = 2.0;
    let mut all = whole;
    for (t, dets) in tiles {
        let (x0, y0) = (t.x as f32, t.y as f32);
        let (x1, y1) = (x0 + t.width as f32, y0 + t.height as f32);
        for d in dets {
            let b = BBox::new(
                d.bbox.x1 + x0,
                d.bbox.y1 + y0,
                d.bbox.x2 + x0,
                d.bbox.y2 + y0,
            );
            let cut = (t.x > 0 && b.x1 <= x0 + EDGE_PX)
                || (t.y > 0 && b.y1 <= y0 + EDGE_PX)
                || (t.x + t.width < width && b.x2 >= x1 - EDGE_PX)
                || (t.y + t.height < height && b.y2 >= y1 - EDGE_PX);
            if !cut {
                all.push(Detection { bbox: b, ..*d });
            }
        }
    }
    nms_per_class(all, iou, max_keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_covers_the_image_with_overlapping_tiles() {
        assert!(tile_grid(1280, 1280, 1).is_empty());
        for (w, h, n) in [(1280, 1280, 2), (1920, 1080, 2), (1001, 333, 3)] {
            let tiles = tile_grid(w, h, n);
            assert_eq!(tiles.len(), (n * n) as usize);
            // every pixel of a few rows and columns is in some tile; tiles stay inside
            for t in &tiles {
                assert!(
                    t.x + t.width <= w && t.y + t.height <= h,
                    "{t:?} in {w}x{h}"
                );
            }
            for (x, y) in [(0, 0), (w - 1, h - 1), (w / 2, h / 2), (w - 1, 0)] {
                assert!(
                    tiles
                        .iter()
                        .any(|t| (t.x..t.x + t.width).contains(&x)
                            && (t.y..t.y + t.height).contains(&y)),
                    "({x}, {y}) in {w}x{h}"
                );
            }
            // neighbours overlap by about TILE_OVERLAP of a tile
            let (a, b) = (tiles[0], tiles[1]);
            let overlap = f64::from(a.x + a.width - b.x) / f64::from(a.width);
            assert!((overlap - TILE_OVERLAP).abs() < 0.02, "{overlap}");
        }
    }

    #[test]
    fn auto_tiles_only_images_that_shrink_a_lot() {
        assert_eq!(auto_grid(1280, 1280, (640, 384)), 2); // 0.3
        assert_eq!(auto_grid(1920, 1080, (640, 384)), 2); // 0.33
        assert_eq!(auto_grid(1280, 720, (640, 384)), 1); // 0.5
        assert_eq!(auto_grid(640, 640, (640, 384)), 1);
    }

    #[test]
    fn tile_detections_move_into_place_and_cut_ones_go() {
        let t = Tile {
            x: 100,
            y: 50,
            width: 200,
            height: 100,
        };
        let det = |x1: f32, y1: f32, x2: f32, y2: f32, c: f32| {
            Detection::new(BBox::new(x1, y1, x2, y2), c, 0)
        };
        let tiles = [(
            t,
            vec![
                det(10.0, 10.0, 20.0, 30.0, 0.9),   // inside
                det(0.0, 10.0, 8.0, 30.0, 0.8),     // on the left inner edge: cut
                det(190.0, 10.0, 200.0, 30.0, 0.8), // right edge is the image's: kept
            ],
        )];
        let whole = vec![det(110.5, 60.0, 120.5, 80.0, 0.5)]; // the same object, weaker
        let merged = merge_tiles(whole, &tiles, (300, 400), 0.5, 100);
        let boxes: Vec<(f32, f32)> = merged.iter().map(|d| (d.bbox.x1, d.confidence)).collect();
        assert_eq!(boxes, vec![(110.0, 0.9), (290.0, 0.8)]);
        let crop = crop_rgb(
            &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
            2,
            &Tile {
                x: 1,
                y: 1,
                width: 1,
                height: 1,
            },
        );
        assert_eq!(crop, vec![10, 11, 12]);
    }
}
