//! Detector preprocessing speed (letterbox + NCHW) on a 1280×720 frame:
//! `cargo run --release -p sportz-vision --example preprocess_speed [RUNS] [WxH]`; the input
//! defaults to the built-in model's 960×544 (640×384 takes the 2×2-mean path).

use std::time::Instant;

use sportz_vision::RgbImage;
use sportz_vision::detect::{Preprocess, preprocess};

fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(300);
    let (iw, ih): (u32, u32) = args
        .next()
        .and_then(|a| {
            let (w, h) = a.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .unwrap_or((960, 544));
    let (w, h) = (1280u32, 720u32);
    let rgb: Vec<u8> = (0..w * h * 3).map(|i| (i * 7 % 251) as u8).collect();
    let img = RgbImage::new(&rgb, w, h).expect("frame");
    let mut sum = 0.0_f64;
    let t = Instant::now();
    for _ in 0..runs {
        let (input, _) = preprocess(&img, &Preprocess::ULTRALYTICS, (iw, ih));
        sum += f64::from(input[input.len() / 2]);
    }
    let ms = t.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    println!(
        "preprocess 1280x720 -> {iw}x{ih}: {ms:.3} ms a frame over {runs} runs (check {sum:.1})"
    );
}
