//! Render speed of the synthetic match, single-threaded.
//!
//! `cargo run --release -p sportz-synth --example render_speed [-- SECONDS [DUMP_DIR]]`
//!
//! Renders SECONDS (default 20) of match seed 1 at 1280×720 and 960×540 (25 fps, scoreboard on)
//! and prints frames per second. With DUMP_DIR, also writes every 5th second at 1280×720 as a
//! binary PPM (view with any image tool, or `ffmpeg -i f.ppm f.png`).

use std::time::Instant;

use sportz_synth::{SynthConfig, SynthMatch};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let secs: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(20.0);
    let dump = args.get(2).cloned();
    println!("command: cargo run --release -p sportz-synth --example render_speed -- {secs}");
    for (w, h) in [(1280, 720), (960, 540)] {
        for (blur, noise) in [(false, false), (true, true)] {
            let cfg = SynthConfig {
                width: w,
                height: h,
                fps: 25,
                duration_secs: secs,
                scoreboard: true,
                motion_blur: blur,
                noise,
            };
            let m = SynthMatch::new(1, cfg.clone()).expect("valid config");
            let start = Instant::now();
            let mut frames = 0u64;
            for (img, truth) in m {
                frames += 1;
                if let (Some(dir), false, 1280) = (&dump, blur, w)
                    && truth.frame_number % 125 == 0
                {
                    let path = format!("{dir}/frame_{:05}.ppm", truth.frame_number);
                    let mut bytes = format!("P6\n{} {}\n255\n", img.width, img.height).into_bytes();
                    bytes.extend_from_slice(&img.data);
                    std::fs::write(&path, bytes).expect("write ppm");
                }
            }
            let el = start.elapsed().as_secs_f64();
            println!(
                "{w}x{h} blur={blur} noise={noise}: {frames} frames in {el:.2} s = {:.1} fps ({:.2} ms/frame)",
                frames as f64 / el,
                el * 1000.0 / frames as f64
            );
        }
    }
}
