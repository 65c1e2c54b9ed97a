//! Prints how many events of each kind the match engine produces per minute, for a few seeds.
//!
//! `cargo run --release -p sportz-synth --example event_stats [-- MINUTES [SEEDS]]`

use sportz_contract::EventKind;
use sportz_synth::simulate_events;

fn main() {
    let minutes: u32 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let seeds: u64 = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    for seed in 0..seeds {
        let events = simulate_events(seed, f64::from(minutes) * 60.0, 25);
        let per_min = |k: EventKind| {
            events.iter().filter(|e| e.kind == k).count() as f64 / f64::from(minutes)
        };
        let goals: Vec<String> = events
            .iter()
            .filter(|e| e.kind == EventKind::Goal)
            .map(|e| format!("{:.0}", e.time_secs))
            .collect();
        let outs: Vec<String> = events
            .iter()
            .filter(|e| e.kind == EventKind::BallOut)
            .map(|e| {
                format!(
                    "{:.0}{}",
                    e.time_secs,
                    e.detail
                        .as_deref()
                        .unwrap_or("")
                        .chars()
                        .next()
                        .unwrap_or(' ')
                )
            })
            .collect();
        print!("seed {seed}:");
        for k in EventKind::ALL {
            print!(" {}={:.1}", k.as_str(), per_min(k));
        }
        let missing: Vec<u32> = (0..minutes)
            .filter(|&m| {
                let has = |k: EventKind| {
                    events
                        .iter()
                        .any(|e| e.kind == k && (e.time_secs / 60.0).floor() as u32 == m)
                };
                !(has(EventKind::Goal) && has(EventKind::BallOut))
            })
            .collect();
        println!("\n  minutes without a goal or a ball out: {missing:?}");
        if minutes <= 10 {
            println!(
                "  goals at {}\n  outs at {}",
                goals.join(" "),
                outs.join(" ")
            );
        }
    }
}
