//! Detector preprocessing speed (letterbox + NCHW) on a 1280×720 frame for the built-in model's
//! 640×384 input: `cargo run --release -p sportz-vision --example preprocess_speed [RUNS]`.

use std::time::Instant;

use sportz_vision::RgbImage;
use sportz_vision::detect::{Preprocess, preprocess};

fn main() {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);
    let (w, h) = (1280u32, 720u32);
    let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
    let img = RgbImage::new(&rgb, w, h).expect("frame");
    let mut sum = 0.0_f64;
    let t = Instant::now();
    for _ in 0..runs {
        let (input, _) = preprocess(&img, &Preprocess::ULTRALYTICS, (640, 384));
        sum += f64::from(input[input.len() / 2]);
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    println!(
        "preprocess 1280x720 -> 640x384: {ms:.3} ms a frame over {runs} runs (check {sum:.1})"
    );
}
