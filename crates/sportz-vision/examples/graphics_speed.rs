//! The broadcast-graphics mask's cost per frame (`GraphicsMask::observe` on a 1280×720 frame
//! under a pan): `cargo run --release -p sportz-vision --example graphics_speed [RUNS]`.

use std::time::Instant;

use sportz_vision::graphics::{GraphicsConfig, GraphicsMask, PictureChange};
use sportz_vision::pitch::Homography;
use sportz_vision::{Point, RgbImage};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let (w, h) = (1280u32, 720u32);
    // two frames of a textured picture, the second shifted 4 px, taken in turn
    let frames: Vec<Vec<u8>> = (0..2u32)
        .map(|k| {
            (0..w * h * 3)
                .map(|i| (((i / 3) % w + 4 * k) * 7 % 251) as u8)
                .collect()
        })
        .collect();
    let pan = Homography::from_matrix([[1.0, 0.0, 4.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        .expect("a translation");
    let mut mask = GraphicsMask::new(GraphicsConfig::default());
    let t = Instant::now();
    for r in 0..runs {
        let img = RgbImage::new(&frames[r % 2], w, h).expect("frame");
        mask.observe(&img, PictureChange::Moved(&pan));
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    println!(
        "graphics mask 1280x720: {ms:.3} ms a frame over {runs} runs (graphic share {:.3}, covers the centre: {})",
        mask.share(),
        mask.covers(Point::new(640.0, 360.0))
    );
}
