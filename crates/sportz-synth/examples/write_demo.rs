//! Writes a match folder the way `sportz synth` will, and times it.
//!
//! `cargo run --release -p sportz-synth --example write_demo -- SEED SECONDS OUT_DIR [WIDTH HEIGHT]`

use std::time::Instant;

use sportz_synth::{SynthConfig, write_match};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seed: u64 = args.first().and_then(|s| s.parse().ok()).unwrap_or(1);
    let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10.0);
    let out = args
        .get(2)
        .cloned()
        .unwrap_or_else(|| "synth-out".to_owned());
    let width: u32 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(1280);
    let height: u32 = args.get(4).and_then(|s| s.parse().ok()).unwrap_or(720);
    let cfg = SynthConfig {
        width,
        height,
        duration_secs: secs,
        motion_blur: true,
        noise: true,
        ..SynthConfig::default()
    };
    let start = Instant::now();
    match write_match(&cfg, seed, std::path::Path::new(&out), |_| {}) {
        Ok(s) => {
            let el = start.elapsed().as_secs_f64();
            println!(
                "{} frames {}x{} in {el:.1} s = {:.1} fps (render + truth + x264 veryfast); {} events, score {}-{}, {} calibration points",
                s.frames,
                width,
                height,
                s.frames as f64 / el,
                s.events,
                s.final_score.home,
                s.final_score.away,
                s.calibration_points
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
