//! Unit tests of the broadcast cameras: cut rates and shot lengths, the WC14 ranges of the main
//! camera, exact homographies in every shot, determinism, and `cuts: false`.

use std::collections::BTreeMap;

use crate::geom::{apply, v3};
use crate::pitch::Markings;
use crate::sim::camera::{
    ALTERNATE_SECS, CLOSE_UP_FOV_DEG, CLOSE_UP_SECS, MAIN_SECS, fov_max_deg, fov_min_deg,
    from_wc14, wc14,
};
use crate::sim::{DT, Sim};
use crate::{FrameTruth, Shot, SynthConfig, SynthMatch, steps_for_frame};

fn cfg(width: u32, height: u32, fps: u32, secs: f64, cuts: bool) -> SynthConfig {
    SynthConfig {
        width,
        height,
        fps,
        duration_secs: secs,
        scoreboard: false,
        motion_blur: false,
        noise: false,
        cuts,
        ..SynthConfig::default()
    }
}

/// The director's shots of match `seed` over `secs` seconds: (shot, start, end), in order.
fn segments(seed: u64, secs: f64) -> Vec<(Shot, f64, f64)> {
    let mut sim = Sim::new(seed);
    let mut out = vec![(sim.director.shot, 0.0, 0.0)];
    let mut index = sim.director.index;
    while sim.time() < secs {
        sim.step();
        if sim.director.index != index {
            index = sim.director.index;
            out.last_mut().unwrap().2 = sim.time();
            out.push((sim.director.shot, sim.time(), sim.time()));
        }
    }
    out.last_mut().unwrap().2 = sim.time();
    out
}

/// The shot and shot index each frame shows (from the engine alone, no rendering).
fn shots_per_frame(seed: u64, fps: u32, frames: u64) -> Vec<(Shot, u64)> {
    let mut sim = Sim::new(seed);
    (0..frames)
        .map(|n| {
            while sim.steps < steps_for_frame(n, fps) {
                sim.step();
            }
            (sim.director.shot, sim.director.index)
        })
        .collect()
}

#[test]
fn cuts_come_every_10_to_25_s_and_each_shot_lasts_as_configured() {
    let secs = 300.0;
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    let mut cuts = 0;
    for seed in 0..8 {
        let segs = segments(seed, secs);
        assert_eq!(
            segs[0].0,
            Shot::Main,
            "seed {seed} starts on the main camera"
        );
        for (k, &(shot, a, b)) in segs.iter().enumerate() {
            let (lo, hi, name) = match shot {
                Shot::Main => (MAIN_SECS.0, MAIN_SECS.1, "main"),
                Shot::Alternate => (ALTERNATE_SECS.0, ALTERNATE_SECS.1, "alternate"),
                Shot::CloseUp => (CLOSE_UP_SECS.0, CLOSE_UP_SECS.1, "close_up"),
            };
            let d = b - a;
            assert!(
                d <= hi + DT + 1e-9,
                "seed {seed}: {name} of {d:.2} s at {a:.2}"
            );
            if k + 1 < segs.len() {
                assert!(d >= lo - 1e-9, "seed {seed}: {name} of {d:.2} s at {a:.2}");
            }
            if k > 0 {
                // A cutaway always goes back to the main camera.
                assert_ne!(
                    shot == Shot::Main,
                    segs[k - 1].0 == Shot::Main,
                    "seed {seed}: {name} after {:?} at {a:.2}",
                    segs[k - 1].0
                );
            }
            *count.entry(name).or_default() += 1;
        }
        cuts += segs.len() - 1;
    }
    // A cycle is 17.5 s of main camera on average plus a cutaway of 3.0 s (60 % alternates of
    // 3.5 s, 40 % close-ups of 2.25 s), with two cuts: ≈ 5.9 cuts a minute.
    let per_minute = cuts as f64 / (8.0 * secs / 60.0);
    assert!(
        (4.5..=7.5).contains(&per_minute),
        "{per_minute:.2} cuts a minute"
    );
    let (alt, close) = (count["alternate"], count["close_up"]);
    let share = close as f64 / (alt + close) as f64;
    assert!(
        (0.2..=0.6).contains(&share),
        "close-ups {close}, alternates {alt}"
    );
}

#[test]
fn main_cameras_stand_and_zoom_within_the_wc14_ranges() {
    let (a, b) = (from_wc14(wc14::CENTRE_MIN), from_wc14(wc14::CENTRE_MAX));
    let lo = [a.x.min(b.x), a.y.min(b.y), a.z.min(b.z)];
    let hi = [a.x.max(b.x), a.y.max(b.y), a.z.max(b.z)];
    // The cameras stand behind the near touchline (y = 68), 17–66 m back, 10–23 m up.
    assert!(lo[1] > 68.0 + 16.0 && hi[1] < 68.0 + 67.0 && lo[2] > 10.0 && hi[2] < 23.1);
    let (mut ys, mut zs) = (Vec::new(), Vec::new());
    for seed in 0..60 {
        let p = Sim::new(seed).camera_pos;
        for (k, v) in [p.x, p.y, p.z].into_iter().enumerate() {
            assert!(
                (lo[k]..=hi[k]).contains(&v),
                "seed {seed}: axis {k} at {v:.2} outside {:.2}..={:.2}",
                lo[k],
                hi[k]
            );
        }
        ys.push(p.y);
        zs.push(p.z);
    }
    let spread = |v: &[f64]| {
        v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
            - v.iter().copied().fold(f64::INFINITY, f64::min)
    };
    assert!(
        spread(&ys) > 10.0 && spread(&zs) > 3.0,
        "positions barely vary"
    );
    // The field of view in degrees is the WC14 focal range at any frame width.
    assert!((fov_min_deg() - 12.82).abs() < 0.01 && (fov_max_deg() - 47.25).abs() < 0.01);
    for (seed, width, height) in [(2u64, 128u32, 72u32), (5, 96, 64)] {
        let scale = f64::from(width) / wc14::WIDTH_PX;
        let (mut main, mut alternate, mut close) = (0, 0, 0);
        for (_, t) in SynthMatch::new(seed, cfg(width, height, 5, 150.0, true)).unwrap() {
            let c = &t.camera;
            let focal = f64::from(width) / 2.0 / (c.fov_deg.to_radians() / 2.0).tan();
            match c.shot {
                Shot::Main | Shot::Alternate => {
                    assert!(
                        (wc14::FOCAL_MIN_PX * scale - 1e-6..=wc14::FOCAL_MAX_PX * scale + 1e-6)
                            .contains(&focal),
                        "frame {}: {:?} focal {focal:.1} px at width {width}",
                        t.frame_number,
                        c.shot
                    );
                    if c.shot == Shot::Main {
                        let p = Sim::new(seed).camera_pos;
                        assert_eq!(c.position_m, [p.x, p.y, p.z]);
                        main += 1;
                    } else {
                        alternate += 1;
                    }
                }
                Shot::CloseUp => {
                    let (lo, hi) = CLOSE_UP_FOV_DEG;
                    assert!(
                        (lo - 1e-9..=hi + 1e-9).contains(&c.fov_deg),
                        "{}",
                        c.fov_deg
                    );
                    close += 1;
                }
            }
        }
        assert!(
            main > 500 && alternate > 0 && close > 0,
            "{main} {alternate} {close}"
        );
    }
}

/// Line samples of the standard markings in view and clear of figures, and how many of them
/// land on a line-coloured pixel (within one pixel).
fn line_samples(img: &crate::RgbImage, ids: &[u16], t: &FrameTruth) -> (usize, usize) {
    let (w, h) = (i64::from(img.width), i64::from(img.height));
    let marks = Markings::standard();
    let (mut seen, mut on_line) = (0, 0);
    for &(a, b) in &marks.segments {
        for k in 0..8 {
            let p = a + (b - a) * (f64::from(k) / 8.0);
            if !(3.0..=102.0).contains(&p.x) && (p.y - 34.0).abs() < 6.0 {
                continue; // the goal frames and nets cover the goal line there
            }
            let Some((u, v)) = apply(&t.camera.image_from_pitch, p.x, p.y) else {
                continue;
            };
            let (x, y) = (u.floor() as i64, v.floor() as i64);
            if x < 2 || y < 2 || x >= w - 2 || y >= h - 2 {
                continue;
            }
            let near = |f: &dyn Fn(i64, i64) -> bool| {
                (-1..=1).any(|dy| (-1..=1).any(|dx| f(x + dx, y + dy)))
            };
            if near(&|x, y| ids[(y * w + x) as usize] != 0) {
                continue;
            }
            seen += 1;
            on_line += usize::from(near(&|x, y| {
                let i = ((y * w + x) * 3) as usize;
                img.data[i..i + 3].iter().all(|&c| c > 120)
            }));
        }
    }
    (seen, on_line)
}

#[test]
fn every_shot_is_rendered_with_its_exact_homography() {
    let (seed, fps) = (3, 25);
    let shots = shots_per_frame(seed, fps, 25 * 120);
    // The middle frame of every shot in the first two minutes.
    let mut picks: Vec<(u64, Shot)> = Vec::new();
    let mut start = 0;
    for n in 1..=shots.len() {
        if n == shots.len() || shots[n].1 != shots[start].1 {
            picks.push((((start + n) / 2) as u64, shots[start].0));
            start = n;
        }
    }
    for shot in [Shot::Main, Shot::Alternate, Shot::CloseUp] {
        assert!(
            picks.iter().any(|p| p.1 == shot),
            "no {shot:?} in {picks:?}"
        );
    }
    let mut m = SynthMatch::new(seed, cfg(640, 360, fps, 120.0, true)).unwrap();
    for &(n, shot) in &picks {
        let (img, t) = m.render(n);
        assert_eq!(t.camera.shot, shot, "frame {n}");
        assert_eq!(t.camera.pitch_visible, shot != Shot::CloseUp, "frame {n}");
        let cam = m.last_camera.unwrap();
        assert_eq!(t.camera.position_m, [cam.pos.x, cam.pos.y, cam.pos.z]);
        let mut in_view = 0;
        for gx in (0..=21).map(|i| f64::from(i) * 5.0) {
            for gy in (0..=17).map(|i| f64::from(i) * 4.0) {
                let Some(q) = cam.project(v3(gx, gy, 0.0)) else {
                    continue;
                };
                let p = apply(&t.camera.image_from_pitch, gx, gy).unwrap();
                let tol = 1e-6 * (1.0 + q.x.abs().max(q.y.abs()));
                assert!(
                    (p.0 - q.x).abs() < tol && (p.1 - q.y).abs() < tol,
                    "frame {n} ({shot:?}): ({gx}, {gy}) → {p:?} vs {q:?}"
                );
                if (0.0..640.0).contains(&q.x) && (0.0..360.0).contains(&q.y) {
                    in_view += 1;
                    let back = apply(&t.camera.pitch_from_image, p.0, p.1).unwrap();
                    assert!((back.0 - gx).abs() < 1e-6 && (back.1 - gy).abs() < 1e-6);
                }
            }
        }
        // The ground point at the image centre is where the truth says.
        let c = apply(&t.camera.pitch_from_image, 320.0, 180.0).unwrap();
        assert!((c.0 - t.camera.target.x).abs() < 1e-6 && (c.1 - t.camera.target.y).abs() < 1e-6);
        let (seen, on_line) = line_samples(&img, &m.canvas.ids, &t);
        // The ground seen across the middle row of the picture, metres.
        let across = {
            let (a, b) = (
                apply(&t.camera.pitch_from_image, 0.0, 180.0).unwrap(),
                apply(&t.camera.pitch_from_image, 640.0, 180.0).unwrap(),
            );
            (a.0 - b.0).hypot(a.1 - b.1)
        };
        match shot {
            Shot::Main | Shot::Alternate => {
                assert_eq!(
                    on_line, seen,
                    "frame {n} ({shot:?}): line samples off the lines"
                );
                assert!(across > 20.0, "frame {n} ({shot:?}): {across:.1} m across");
                assert!(
                    in_view >= 12,
                    "frame {n} ({shot:?}): {in_view} grid points in view"
                );
                assert!(
                    seen >= 8,
                    "frame {n} ({shot:?}): {seen} line samples in view"
                );
                // The ball (or where it is) is in the picture.
                let b = t.ball.pixel;
                assert!(
                    (0.0..640.0).contains(&b.x) && (0.0..360.0).contains(&b.y),
                    "{b:?}"
                );
            }
            Shot::CloseUp => {
                assert!(
                    across < 12.0,
                    "frame {n}: {across:.1} m across in a close-up"
                );
                // The background is out of focus: lines in view are no longer crisp white.
                assert!(
                    on_line * 2 <= seen,
                    "frame {n}: {on_line} of {seen} line samples crisp"
                );
                // One player fills much of the picture, near its centre.
                let tall = t
                    .objects
                    .iter()
                    .filter_map(|o| o.bbox)
                    .any(|b| b[3] - b[1] > 0.3 * 360.0 && b[0] < 400.0 && b[2] > 240.0);
                assert!(tall, "frame {n}: no player fills the close-up");
            }
        }
    }
}

fn json(t: &FrameTruth) -> String {
    serde_json::to_string(t).unwrap()
}

#[test]
fn shots_are_the_same_for_a_seed_and_cuts_can_be_turned_off() {
    let on: Vec<FrameTruth> = SynthMatch::new(6, cfg(96, 64, 5, 100.0, true))
        .unwrap()
        .map(|(_, t)| t)
        .collect();
    let again: Vec<FrameTruth> = SynthMatch::new(6, cfg(96, 64, 5, 100.0, true))
        .unwrap()
        .map(|(_, t)| t)
        .collect();
    assert_eq!(
        on.iter().map(json).collect::<Vec<_>>(),
        again.iter().map(json).collect::<Vec<_>>()
    );
    let off: Vec<FrameTruth> = SynthMatch::new(6, cfg(96, 64, 5, 100.0, false))
        .unwrap()
        .map(|(_, t)| t)
        .collect();
    assert!(!on[0].camera.cut);
    let mut cuts = Vec::new();
    for (k, (a, b)) in on.iter().zip(&off).enumerate() {
        // Truth marks the shot on air, and a cut where it changes (every shot lasts > 1 frame).
        let changed = k > 0 && a.camera.shot != on[k - 1].camera.shot;
        assert_eq!(a.camera.cut, changed, "frame {k}");
        assert_eq!(a.camera.pitch_visible, a.camera.shot != Shot::CloseUp);
        if a.camera.cut {
            cuts.push(k);
        }
        // Without cuts: the main camera throughout, on the same match.
        assert_eq!(
            (b.camera.shot, b.camera.cut, b.camera.pitch_visible),
            (Shot::Main, false, true)
        );
        assert_eq!(a.events, b.events);
        assert_eq!(a.ball.pitch, b.ball.pitch);
        let pitch = |t: &FrameTruth| t.objects.iter().map(|o| o.pitch).collect::<Vec<_>>();
        assert_eq!(pitch(a), pitch(b));
        if a.camera.shot == Shot::Main {
            assert_eq!(
                a.camera.image_from_pitch, b.camera.image_from_pitch,
                "frame {k}"
            );
        }
    }
    assert!(cuts.len() >= 4, "cuts at {cuts:?}");
    assert!(
        cuts[0] as f64 / 5.0 >= MAIN_SECS.0,
        "first cut at frame {}",
        cuts[0]
    );
    // Seeking to a cut gives the frame rendering in order gives.
    let mut seek = SynthMatch::new(6, cfg(96, 64, 5, 100.0, true)).unwrap();
    for &k in &cuts[..2] {
        for n in [k, k + 1] {
            assert_eq!(json(&seek.render(n as u64).1), json(&on[n]), "frame {n}");
        }
    }
    // Another seed cuts at other times.
    let other: Vec<bool> = SynthMatch::new(7, cfg(96, 64, 5, 100.0, true))
        .unwrap()
        .map(|(_, t)| t.camera.cut)
        .collect();
    assert_ne!(other, on.iter().map(|t| t.camera.cut).collect::<Vec<_>>());
}

#[test]
fn truth_written_before_shots_existed_still_reads() {
    let (_, t) = SynthMatch::new(1, cfg(96, 64, 25, 1.0, true))
        .unwrap()
        .render_next();
    let mut v: serde_json::Value = serde_json::to_value(&t).unwrap();
    let cam = v["camera"].as_object_mut().unwrap();
    assert_eq!(cam["shot"], "main");
    for key in ["shot", "cut", "pitch_visible"] {
        cam.remove(key);
    }
    let old: FrameTruth = serde_json::from_value(v).unwrap();
    assert_eq!(
        (old.camera.shot, old.camera.cut, old.camera.pitch_visible),
        (Shot::Main, false, true)
    );
    let cfg: SynthConfig = serde_json::from_str(
        r#"{"width":96,"height":64,"fps":25,"duration_secs":1.0,"scoreboard":true,"motion_blur":false,"noise":false}"#,
    )
    .unwrap();
    assert!(cfg.cuts, "an old meta.json config reads with cuts on");
}
