//! Unit tests over the whole renderer: determinism, truth against pixels, the match script.

use sportz_contract::{EventKind, ObjectClass, TeamSide};

use crate::geom::{apply, v3};
use crate::pitch::Markings;
use crate::render::BALL_ID;
use crate::sim::{DT, Sim};
use crate::{SynthConfig, SynthError, SynthMatch, Visibility, simulate_events};

fn small(secs: f64) -> SynthConfig {
    SynthConfig {
        width: 320,
        height: 180,
        fps: 25,
        duration_secs: secs,
        scoreboard: true,
        motion_blur: true,
        noise: true,
        cuts: true,
        ..SynthConfig::default()
    }
}

fn plain(width: u32, height: u32) -> SynthConfig {
    SynthConfig {
        width,
        height,
        fps: 25,
        duration_secs: 60.0,
        scoreboard: false,
        motion_blur: false,
        noise: false,
        cuts: true,
        ..SynthConfig::default()
    }
}

#[test]
fn same_seed_gives_identical_frames_and_truth() {
    let a: Vec<_> = SynthMatch::new(7, small(2.0)).unwrap().collect();
    let b: Vec<_> = SynthMatch::new(7, small(2.0)).unwrap().collect();
    assert_eq!(a.len(), 50);
    for ((ia, ta), (ib, tb)) in a.iter().zip(&b) {
        assert_eq!(ia, ib, "frame {}", ta.frame_number);
        assert_eq!(
            serde_json::to_string(ta).unwrap(),
            serde_json::to_string(tb).unwrap()
        );
    }
}

#[test]
fn different_seeds_differ() {
    let (ia, ta) = SynthMatch::new(1, small(2.0)).unwrap().render(40);
    let (ib, tb) = SynthMatch::new(2, small(2.0)).unwrap().render(40);
    assert_ne!(ia.data, ib.data);
    assert_ne!(ta.objects[5].pitch, tb.objects[5].pitch);
}

#[test]
fn seeking_gives_the_frame_rendering_in_order_gives() {
    let mut seq = SynthMatch::new(3, plain(160, 90)).unwrap();
    let frames: Vec<_> = (0..13).map(|_| seq.render_next()).collect();
    let mut seek = SynthMatch::new(3, plain(160, 90)).unwrap();
    let (img, truth) = seek.render(12);
    assert_eq!(img, frames[12].0);
    assert_eq!(truth.objects, frames[12].1.objects);
    assert_eq!(truth.events, frames[12].1.events);
    // Back to an earlier frame starts over.
    let (img, _) = seek.render(4);
    assert_eq!(img, frames[4].0);
}

#[test]
fn invalid_configs_are_refused() {
    for cfg in [
        SynthConfig {
            width: 321,
            ..plain(320, 180)
        },
        SynthConfig {
            height: 10,
            ..plain(320, 180)
        },
        SynthConfig {
            fps: 0,
            ..plain(320, 180)
        },
        SynthConfig {
            duration_secs: f64::NAN,
            ..plain(320, 180)
        },
    ] {
        assert!(matches!(
            SynthMatch::new(1, cfg),
            Err(SynthError::InvalidConfig(_))
        ));
    }
}

#[test]
fn homographies_are_exact_inverses_and_match_the_projection() {
    let mut m = SynthMatch::new(5, plain(640, 360)).unwrap();
    for n in [0u64, 100, 400] {
        let (_, t) = m.render(n);
        let cam = m.last_camera.unwrap();
        for (x, y) in [
            (0.0, 0.0),
            (52.5, 34.0),
            (105.0, 68.0),
            (20.0, 50.0),
            (88.5, 13.84),
        ] {
            let p = apply(&t.camera.image_from_pitch, x, y).unwrap();
            let q = cam.project(v3(x, y, 0.0)).unwrap();
            assert!(
                (p.0 - q.x).abs() < 1e-6 && (p.1 - q.y).abs() < 1e-6,
                "{p:?} vs {q:?}"
            );
            let back = apply(&t.camera.pitch_from_image, p.0, p.1).unwrap();
            assert!(
                (back.0 - x).abs() < 1e-6 && (back.1 - y).abs() < 1e-6,
                "{back:?} vs {x},{y}"
            );
        }
    }
}

/// Pixels where the truth homography puts a pitch line are line-coloured; pixels where it puts
/// open grass are green.
#[test]
fn truth_homography_lands_on_rendered_lines_and_grass() {
    let marks = Markings::standard();
    let mut m = SynthMatch::new(11, plain(640, 360)).unwrap();
    let (mut on_line, mut line_ok, mut on_grass, mut grass_ok) = (0, 0, 0, 0);
    for n in [0u64, 150, 300, 450, 600] {
        let (img, t) = m.render(n);
        let (w, h) = (img.width as i64, img.height as i64);
        let px = |x: i64, y: i64| {
            let i = ((y * w + x) * 3) as usize;
            [img.data[i], img.data[i + 1], img.data[i + 2]]
        };
        let free = |x: i64, y: i64| {
            (-1..=1)
                .all(|dy| (-1..=1).all(|dx| m.canvas.ids[((y + dy) * w + x + dx) as usize] == 0))
        };
        let near_goal = |x: f64, y: f64| !(3.0..=102.0).contains(&x) && (y - 34.0).abs() < 6.0;
        for &(a, b) in &marks.segments {
            for k in 0..4 {
                let p = a + (b - a) * (f64::from(k) / 4.0);
                if near_goal(p.x, p.y) {
                    continue;
                }
                let Some((u, v)) = apply(&t.camera.image_from_pitch, p.x, p.y) else {
                    continue;
                };
                let (x, y) = (u.floor() as i64, v.floor() as i64);
                if x < 2 || y < 2 || x >= w - 2 || y >= h - 2 || !free(x, y) {
                    continue;
                }
                on_line += 1;
                let bright = (-1..=1)
                    .any(|dy| (-1..=1).any(|dx| px(x + dx, y + dy).iter().all(|&c| c > 120)));
                line_ok += usize::from(bright);
            }
        }
        // Open grass: the middle of the pitch between the lines.
        for gx in (0..21).map(|i| 3.0 + f64::from(i) * 5.0) {
            for gy in [4.0, 8.0, 60.0, 64.0] {
                let Some((u, v)) = apply(&t.camera.image_from_pitch, gx, gy) else {
                    continue;
                };
                let (x, y) = (u.floor() as i64, v.floor() as i64);
                if x < 2
                    || y < 2
                    || x >= w - 2
                    || y >= h - 2
                    || !free(x, y)
                    || (gx - 52.5).abs() < 2.0
                    || (gx - 16.5).abs() < 2.0
                    || (gx - 88.5).abs() < 2.0
                {
                    continue;
                }
                on_grass += 1;
                let [r, g, b] = px(x, y);
                grass_ok += usize::from(g > r.saturating_add(30) && g > b.saturating_add(30));
            }
        }
    }
    assert!(on_line > 200, "only {on_line} line samples in view");
    assert_eq!(line_ok, on_line, "line samples not on a line pixel");
    assert!(on_grass > 20, "only {on_grass} grass samples in view");
    assert_eq!(grass_ok, on_grass, "grass samples not green");
}

/// Each box is exactly the extent of the pixels drawn for that object: a fully visible
/// object's own pixels span its box, and no object has a pixel outside its box.
#[test]
fn boxes_are_the_rendered_extents() {
    let mut m = SynthMatch::new(21, plain(480, 270)).unwrap();
    let mut fully_visible = 0;
    for n in [0u64, 60, 200, 350, 500, 700] {
        let (img, t) = m.render(n);
        let w = img.width as usize;
        let mut ext = vec![[i64::MAX, i64::MAX, i64::MIN, i64::MIN]; BALL_ID as usize + 1];
        let mut count = vec![0u32; BALL_ID as usize + 1];
        for (i, &id) in m.canvas.ids.iter().enumerate() {
            let (x, y) = ((i % w) as i64, (i / w) as i64);
            let e = &mut ext[id as usize];
            *e = [e[0].min(x), e[1].min(y), e[2].max(x + 1), e[3].max(y + 1)];
            count[id as usize] += 1;
        }
        for o in &t.objects {
            let e = ext[o.id as usize];
            assert_eq!(
                count[o.id as usize], o.visible_px,
                "object {} frame {n}",
                o.id
            );
            if o.visible_px == 0 {
                continue;
            }
            let b = o.bbox.expect("seen objects have a box");
            assert!(
                b[0] <= e[0] as f64
                    && b[1] <= e[1] as f64
                    && b[2] >= e[2] as f64
                    && b[3] >= e[3] as f64,
                "object {} {b:?} vs {e:?}",
                o.id
            );
            if o.visibility == Visibility::Visible {
                fully_visible += 1;
                assert_eq!(
                    b,
                    [e[0] as f64, e[1] as f64, e[2] as f64, e[3] as f64],
                    "object {}",
                    o.id
                );
                assert!((o.visible_fraction - 1.0).abs() < 1e-9);
                // The box is a standing figure: taller than wide, foot near the bottom.
                assert!(b[3] - b[1] > b[2] - b[0]);
                assert!((o.foot_pixel.y - b[3]).abs() < (b[3] - b[1]) * 0.25);
                // It wears its team's shirt.
                let s = m.shirts();
                let shirt = match (o.team, o.role) {
                    (TeamSide::Home, ObjectClass::Goalkeeper) => s.home_keeper,
                    (TeamSide::Away, ObjectClass::Goalkeeper) => s.away_keeper,
                    (TeamSide::Home, _) => s.home,
                    (TeamSide::Away, _) => s.away,
                    (TeamSide::Other, _) => s.referee,
                };
                let wears = m
                    .canvas
                    .ids
                    .iter()
                    .enumerate()
                    .any(|(i, &id)| id as u32 == o.id && img.data[i * 3..i * 3 + 3] == shirt);
                assert!(
                    wears,
                    "object {} ({:?} {:?}) shows no {shirt:?}",
                    o.id, o.team, o.role
                );
            }
        }
        assert_eq!(count[BALL_ID as usize], t.ball.visible_px);
        assert_eq!(t.ball.visible, t.ball.visible_px > 0);
    }
    assert!(
        fully_visible > 20,
        "only {fully_visible} fully visible figures"
    );
}

#[test]
fn the_first_frame_offers_calibration_points_that_fit_the_homography() {
    for seed in 0..8 {
        check_calibration(seed);
    }
}

fn check_calibration(seed: u64) {
    let mut m = SynthMatch::new(
        seed,
        SynthConfig {
            scoreboard: true,
            ..plain(640, 360)
        },
    )
    .unwrap();
    let (_, t) = m.render_next();
    let pts = m.calibration();
    assert!(pts.len() >= 4, "{pts:?}");
    for p in &pts {
        let (u, v) = apply(&t.camera.image_from_pitch, p.pitch.x, p.pitch.y).unwrap();
        assert!((u - p.pixel.x).abs() < 1e-6 && (v - p.pixel.y).abs() < 1e-6);
    }
    // Four of them in general position (no three on a line), so a homography can be fitted.
    let area = |a: usize, b: usize, c: usize| {
        let (p, q, r) = (pts[a].pitch, pts[b].pitch, pts[c].pitch);
        ((q.x - p.x) * (r.y - p.y) - (q.y - p.y) * (r.x - p.x)).abs()
    };
    let n = pts.len();
    let general = (0..n).any(|a| {
        (a + 1..n).any(|b| {
            (b + 1..n).any(|c| {
                (c + 1..n).any(|d| {
                    [area(a, b, c), area(a, b, d), area(a, c, d), area(b, c, d)]
                        .iter()
                        .all(|&s| s > 1.0)
                })
            })
        })
    });
    assert!(general, "{pts:?}");
}

#[test]
fn there_are_22_players_with_two_keepers_and_a_referee() {
    let (_, t) = SynthMatch::new(9, plain(160, 90)).unwrap().render_next();
    assert_eq!(t.objects.len(), 23);
    let count = |team: TeamSide, role: ObjectClass| {
        t.objects
            .iter()
            .filter(|o| o.team == team && o.role == role)
            .count()
    };
    assert_eq!(count(TeamSide::Home, ObjectClass::Player), 10);
    assert_eq!(count(TeamSide::Away, ObjectClass::Player), 10);
    assert_eq!(count(TeamSide::Home, ObjectClass::Goalkeeper), 1);
    assert_eq!(count(TeamSide::Away, ObjectClass::Goalkeeper), 1);
    assert_eq!(count(TeamSide::Other, ObjectClass::Referee), 1);
    let ids: Vec<u32> = t.objects.iter().map(|o| o.id).collect();
    assert_eq!(ids, (1..=23).collect::<Vec<_>>());
}

#[test]
fn every_minute_has_a_goal_and_a_ball_out() {
    for seed in 0..6 {
        let events = simulate_events(seed, 240.0, 25);
        for minute in 0..4 {
            let inside = |k: EventKind| {
                events
                    .iter()
                    .filter(|e| e.kind == k && (e.time_secs / 60.0).floor() as i64 == minute)
                    .count()
            };
            assert!(
                inside(EventKind::Goal) >= 1,
                "seed {seed} minute {minute}: no goal"
            );
            assert!(
                inside(EventKind::BallOut) >= 1,
                "seed {seed} minute {minute}: no ball out"
            );
            assert!(
                inside(EventKind::Pass) >= 3,
                "seed {seed} minute {minute}: few passes"
            );
            assert!(
                inside(EventKind::Shot) >= 1,
                "seed {seed} minute {minute}: no shot"
            );
        }
        // Every kind of event occurs.
        for k in EventKind::ALL {
            assert!(events.iter().any(|e| e.kind == k), "seed {seed}: no {k:?}");
        }
    }
}

#[test]
fn goals_cross_the_line_between_the_posts_and_change_the_score() {
    let mut sim = Sim::new(12);
    let mut seen = 0;
    let mut goals = 0;
    for _ in 0..(150.0 / DT) as usize {
        sim.step();
        for e in &sim.events[seen..] {
            if e.kind == EventKind::Goal {
                goals += 1;
                assert!(e.at.x < 0.0 || e.at.x > 105.0, "{e:?}");
                assert!((e.at.y - 34.0).abs() < 3.66, "{e:?}");
            }
        }
        seen = sim.events.len();
        assert_eq!(sim.score[0] + sim.score[1], goals);
    }
    assert!(goals >= 2);
}

#[test]
fn ball_and_player_speeds_are_realistic() {
    for seed in 0..4 {
        let events = simulate_events(seed, 120.0, 25);
        for e in &events {
            match e.kind {
                EventKind::Pass => {
                    let s = e.speed_mps.unwrap();
                    assert!((10.0..=25.0).contains(&s), "seed {seed}: pass at {s} m/s");
                }
                EventKind::Shot => {
                    let s = e.speed_mps.unwrap();
                    assert!((15.0..=35.0).contains(&s), "seed {seed}: shot at {s} m/s");
                }
                _ => {}
            }
        }
        let mut sim = Sim::new(seed);
        for _ in 0..(120.0 / DT) as usize {
            sim.step();
            let b = &sim.ball;
            let speed = (b.vel.len().powi(2) + b.vz * b.vz).sqrt();
            assert!(
                speed <= 35.0,
                "seed {seed}: ball at {speed} m/s at {}",
                sim.time()
            );
            assert!(b.h < 25.0);
            assert!(
                (-6.0..=111.0).contains(&b.pos.x) && (-4.0..=74.0).contains(&b.pos.y),
                "ball at {:?}",
                b.pos
            );
            for p in &sim.people {
                assert!(
                    p.vel.len() < 9.5,
                    "seed {seed}: player {} at {} m/s",
                    p.id,
                    p.vel.len()
                );
                assert!(
                    (-8.0..=113.0).contains(&p.pos.x) && (-8.0..=76.0).contains(&p.pos.y),
                    "player {} at {:?}",
                    p.id,
                    p.pos
                );
            }
        }
    }
}

#[test]
fn rendered_events_are_the_simulated_events() {
    for fps in [25, 30, 12] {
        let cfg = SynthConfig {
            duration_secs: 4.0,
            fps,
            ..plain(96, 64)
        };
        let rendered: Vec<_> = SynthMatch::new(8, cfg)
            .unwrap()
            .flat_map(|(_, t)| t.events)
            .collect();
        let simulated = simulate_events(8, 4.0, fps);
        assert!(!simulated.is_empty());
        assert_eq!(rendered, simulated, "fps {fps}");
        // The same match whatever the frame rate: same events at the same times.
        let times: Vec<f64> = simulated.iter().map(|e| e.time_secs).collect();
        let at_25: Vec<f64> = simulate_events(8, 4.0, 25)
            .iter()
            .map(|e| e.time_secs)
            .collect();
        assert_eq!(times, at_25);
        for e in &simulated {
            // Each event is reported on the first frame at or after it happened.
            let f = e.frame as f64 / f64::from(fps);
            assert!(
                f >= e.time_secs - 1e-9 && f - e.time_secs < 1.0 / f64::from(fps) + 1e-9,
                "{e:?}"
            );
        }
    }
}

#[test]
fn kits_are_told_apart() {
    let dist = |a: [u8; 3], b: [u8; 3]| -> i32 {
        (0..3)
            .map(|i| (i32::from(a[i]) - i32::from(b[i])).abs())
            .sum()
    };
    let grass = [52, 126, 50];
    for r in 0..2000u64 {
        let p = crate::render::Palette::pick(r.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let shirts = [
            p.home.shirt,
            p.away.shirt,
            p.home_keeper,
            p.away_keeper,
            [22, 22, 22],
        ];
        for i in 0..shirts.len() {
            assert!(dist(shirts[i], grass) > 120, "{p:?}");
            for j in i + 1..shirts.len() {
                assert!(
                    dist(shirts[i], shirts[j]) > 120,
                    "{p:?}: {:?} vs {:?}",
                    shirts[i],
                    shirts[j]
                );
            }
        }
    }
}

#[test]
fn the_stress_options_change_only_what_they_say() {
    let base = plain(320, 180);
    let render = |cfg: SynthConfig| -> Vec<_> {
        let mut m = SynthMatch::new(5, cfg).unwrap();
        (0..40).map(|n| m.render(n * 5)).collect()
    };
    let where_people = |t: &crate::FrameTruth| -> Vec<_> {
        t.objects
            .iter()
            .map(|o| (o.id, o.pitch, o.bbox_full))
            .collect()
    };
    let normal = render(base.clone());
    assert!(
        normal.iter().any(|(_, t)| t.ball.visible),
        "the ball is seen"
    );

    // no ball: never visible, nothing drawn of it, the same match and camera otherwise
    let no_ball = render(SynthConfig {
        ball: false,
        ..base.clone()
    });
    for ((ia, ta), (ib, tb)) in normal.iter().zip(&no_ball) {
        assert!(
            !tb.ball.visible && tb.ball.visible_px == 0,
            "frame {}",
            tb.frame_number
        );
        assert_eq!(ta.ball.pitch, tb.ball.pitch);
        assert_eq!(where_people(ta), where_people(tb));
        assert_eq!(ta.events, tb.events);
        if ta.ball.visible {
            assert_ne!(
                ia.data, ib.data,
                "frame {}: the ball was drawn",
                ta.frame_number
            );
        }
    }

    // one kit: both teams in the home shirt, keepers and referee as they were
    let kits = |cfg: SynthConfig| SynthMatch::new(5, cfg).unwrap().shirts();
    let (two, one) = (
        kits(base.clone()),
        kits(SynthConfig {
            one_kit: true,
            ..base.clone()
        }),
    );
    assert_ne!(two.home, two.away);
    assert_eq!(one.away, one.home);
    assert_eq!(one.home, two.home);
    assert_eq!(
        (one.home_keeper, one.away_keeper, one.referee),
        (two.home_keeper, two.away_keeper, two.referee)
    );
    let one_kit = render(SynthConfig {
        one_kit: true,
        ..base
    });
    for ((_, ta), (_, tb)) in normal.iter().zip(&one_kit) {
        assert_eq!(where_people(ta), where_people(tb));
        assert_eq!(
            ta.objects.iter().map(|o| o.team).collect::<Vec<_>>(),
            tb.objects.iter().map(|o| o.team).collect::<Vec<_>>()
        );
    }
}
