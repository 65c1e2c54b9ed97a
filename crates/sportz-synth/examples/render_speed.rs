//! Render speed of the synthetic match, single-threaded.
//!
//! `cargo run --release -p sportz-synth --example render_speed [-- SECONDS [DUMP_DIR]]`
//!
//! Renders SECONDS (default 20) of match seed 1 at 1280×720 and 960×540 (25 fps, scoreboard on),
//! with and without motion blur + noise, and prints frames per second of wall time and of the
//! process's CPU time (the latter is what matters on a shared machine: the renderer is
//! single-threaded). With DUMP_DIR, also writes every 5th second at 1280×720 as a binary PPM.

use std::time::Instant;

use sportz_synth::{SynthConfig, SynthMatch};

/// User + system CPU seconds of this process (Linux; `None` elsewhere).
fn cpu_secs() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

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
                cuts: true,
                ..SynthConfig::default()
            };
            let m = SynthMatch::new(1, cfg.clone()).expect("valid config");
            let start = Instant::now();
            let cpu0 = cpu_secs();
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
            let cpu = cpu_secs().zip(cpu0).map(|(b, a)| b - a);
            let cpu_fps =
                cpu.map_or_else(|| "n/a".to_owned(), |c| format!("{:.1}", frames as f64 / c));
            println!(
                "{w}x{h} blur={blur} noise={noise}: {frames} frames, wall {el:.2} s = {:.1} fps; CPU-time {cpu_fps} fps",
                frames as f64 / el,
            );
        }
    }
}
