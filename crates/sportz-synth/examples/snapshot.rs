//! Writes chosen frames of a match as binary PPM images, to look at the rendering.
//!
//! `cargo run --release -p sportz-synth --example snapshot -- SEED OUT_DIR FRAME...`
//! (then e.g. `ffmpeg -i OUT_DIR/seed1_00875.ppm f.png`). Frames are 1280×720 at 25 fps.

use sportz_synth::{SynthConfig, SynthMatch};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(seed), Some(dir)) = (
        args.first().and_then(|s| s.parse::<u64>().ok()),
        args.get(1),
    ) else {
        eprintln!("usage: snapshot SEED OUT_DIR FRAME...");
        std::process::exit(2);
    };
    let mut frames: Vec<u64> = args[2..].iter().filter_map(|s| s.parse().ok()).collect();
    frames.sort_unstable();
    let mut m = SynthMatch::new(seed, SynthConfig::default()).expect("valid config");
    for n in frames {
        let (img, truth) = m.render(n);
        let path = format!("{dir}/seed{seed}_{n:05}.ppm");
        let mut bytes = format!("P6\n{} {}\n255\n", img.width, img.height).into_bytes();
        bytes.extend_from_slice(&img.data);
        std::fs::write(&path, bytes).expect("write ppm");
        let seen = truth.objects.iter().filter(|o| o.visible_px > 0).count();
        println!(
            "{path}: {seen} people seen, ball visible {}, events {:?}",
            truth.ball.visible,
            truth
                .events
                .iter()
                .map(|e| e.kind.as_str())
                .collect::<Vec<_>>()
        );
    }
}
