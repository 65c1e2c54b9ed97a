//! Loads a model on the CUDA provider (falling back to the CPU, which it reports) and measures
//! inference fps; an ONNX Runtime profile says which provider actually ran the model's nodes.
//! `scripts/gpu-check` runs it on a machine with an NVIDIA GPU.
//!
//! Run: `cargo run --release -p sportz-inference --example gpu_check -- <model.onnx> [runs]`

use std::time::Instant;

use sportz_inference::{Detector, DetectorOptions, Provider};
use sportz_vision::RgbImage;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(model) = args.get(1) else {
        eprintln!("usage: gpu_check <model.onnx> [runs]");
        std::process::exit(2);
    };
    let runs: usize = args
        .get(2)
        .map_or(200, |r| r.parse().expect("runs is a number"));
    let options = DetectorOptions {
        providers: vec![Provider::Cuda, Provider::Cpu],
        profile: true,
        ..DetectorOptions::default()
    };
    let mut det = match Detector::load(model, &options) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gpu-check: {e}");
            std::process::exit(1);
        }
    };
    println!(
        "library: {}",
        sportz_inference::runtime::loaded_library()
            .map_or_else(|| "?".into(), |p| p.display().to_string())
    );
    println!(
        "model: {} ({}, input {:?})",
        det.model_name(),
        det.adapter().layout().name(),
        det.adapter().input()
    );
    println!("device: {}", det.device());
    for why in det.passed_over() {
        println!("passed over: {why}");
    }
    // a 1280×720 frame of noise: the model's cost does not depend on the content
    let (w, h) = (1280u32, 720u32);
    let mut x = 0x9E37_79B9u32;
    let pixels: Vec<u8> = (0..w * h * 3)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect();
    let image = RgbImage::new(&pixels, w, h).unwrap();
    for _ in 0..10 {
        det.detect(&image).unwrap();
    }
    let (mut run_ms, mut total_ms) = (0.0, 0.0);
    let started = Instant::now();
    for _ in 0..runs {
        let (_, t) = det.detect(&image).unwrap();
        run_ms += t.run_ms;
        total_ms += t.total_ms();
    }
    let wall = started.elapsed().as_secs_f64();
    let n = runs as f64;
    println!(
        "{runs} runs: session.run {:.2} ms ({:.1} fps); detect incl. pre/post {:.2} ms ({:.1} fps); wall {:.1} fps",
        run_ms / n,
        1000.0 * n / run_ms,
        total_ms / n,
        1000.0 * n / total_ms,
        n / wall
    );
    match det.providers_used() {
        Ok(used) => {
            let list: Vec<String> = used
                .iter()
                .map(|(p, c)| format!("{p} ({c} node runs)"))
                .collect();
            println!("providers actually used (profile): {}", list.join(", "));
        }
        Err(e) => println!("providers actually used: unknown ({e})"),
    }
}
