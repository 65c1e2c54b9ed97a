//! Overlay frame time at 1280×720 on whatever adapter wgpu picks (lavapipe on a machine with no
//! GPU): a match scene (video texture upload, 22 boxes with ids, ball and trail, radar) rendered
//! offscreen and read back. `cargo bench -p sportz-overlay --bench overlay`.

use std::time::Instant;

use sportz_overlay::{BoxMark, Mark, Offscreen, Radar, RadarDot, Rgba, Scene, VideoImage};

fn scene(with_video: bool) -> Scene {
    let (w, h) = (1280u32, 720u32);
    let mut s = Scene::new(w, h);
    if with_video {
        let rgb = (0..w * h)
            .flat_map(|i| [40, 120 + (i % 1280 / 160 % 2 * 20) as u8, 50])
            .collect();
        s.video = Some(VideoImage {
            width: w,
            height: h,
            rgb,
        });
    }
    for i in 0..22u32 {
        let (x, y) = (50.0 + 55.0 * i as f32, 200.0 + 15.0 * (i % 7) as f32);
        let color = if i < 11 {
            Rgba::rgb(230, 40, 40)
        } else {
            Rgba::rgb(40, 90, 230)
        };
        s.boxes.push(BoxMark {
            x1: x,
            y1: y,
            x2: x + 30.0,
            y2: y + 80.0,
            color,
            label: Some(i + 1),
        });
    }
    s.trail = (0..25)
        .map(|i| Mark {
            x: 300.0 + 10.0 * i as f32,
            y: 500.0,
            predicted: i > 20,
        })
        .collect();
    s.ball = Some(Mark {
        x: 550.0,
        y: 500.0,
        predicted: false,
    });
    s.radar = Some(Radar {
        length: 105.0,
        width: 68.0,
        dots: (0..22)
            .map(|i| RadarDot {
                x: 4.5 * i as f32 + 5.0,
                y: 30.0,
                color: Rgba::WHITE,
            })
            .collect(),
        ball: Some((50.0, 30.0)),
    });
    s
}

fn main() {
    let mut off = Offscreen::new(1280, 720).expect("a wgpu adapter");
    println!("adapter: {}", off.describe());
    for (name, with_video) in [
        ("match scene with video", true),
        ("marks only (no video)", false),
    ] {
        let s = scene(with_video);
        for _ in 0..3 {
            off.render(&s).unwrap();
        }
        let mut ms: Vec<f64> = (0..40)
            .map(|_| {
                let t = Instant::now();
                off.render(&s).unwrap();
                t.elapsed().as_secs_f64() * 1000.0
            })
            .collect();
        ms.sort_by(f64::total_cmp);
        let mean = ms.iter().sum::<f64>() / ms.len() as f64;
        println!(
            "{name:<24} 1280x720: mean {mean:.1} ms, p50 {:.1} ms, p95 {:.1} ms ({:.0} fps) over {} frames, render + readback",
            ms[ms.len() / 2],
            ms[ms.len() * 95 / 100],
            1000.0 / mean,
            ms.len()
        );
    }
}
