use super::*;

/// One object in one frame: a label (the ground truth identity), its box and confidence.
type Obs = (&'static str, BBox, f32);

fn person(b: BBox, conf: f32) -> Detection {
    Detection::new(b, conf, 0).with_class(ObjectClass::Player)
}

/// Runs the frames and returns, per label, the track ids it got in order (unmatched frames left out).
fn run(cfg: TrackerConfig, frames: &[Vec<Obs>]) -> HashMap<&'static str, Vec<u64>> {
    let mut tracker = ByteTracker::new(cfg);
    let mut ids: HashMap<&'static str, Vec<u64>> = HashMap::new();
    for obs in frames {
        let dets: Vec<Detection> = obs.iter().map(|(_, b, c)| person(*b, *c)).collect();
        for (i, t) in tracker.update_tracks(&dets) {
            ids.entry(obs[i].0).or_default().push(t.track_id);
        }
    }
    ids
}

/// Each label must keep one id all along, and `expected` gives `(label, id, frames matched)`.
fn check(frames: &[Vec<Obs>], expected: &[(&str, &[u64], usize)]) {
    check_cfg(TrackerConfig::default(), frames, expected);
}

fn check_cfg(cfg: TrackerConfig, frames: &[Vec<Obs>], expected: &[(&str, &[u64], usize)]) {
    let ids = run(cfg, frames);
    for (label, want_ids, want_frames) in expected {
        let got = ids.get(label).cloned().unwrap_or_default();
        let mut distinct = got.clone();
        distinct.dedup();
        assert_eq!(
            (distinct.as_slice(), got.len()),
            (*want_ids, *want_frames),
            "{label}: ids {got:?}"
        );
    }
}

fn at(x: f32, y: f32) -> BBox {
    BBox::new(x, y, x + 12.0, y + 30.0)
}

#[test]
fn a_walking_player_keeps_one_id() {
    let frames: Vec<Vec<Obs>> = (0..40)
        .map(|i| vec![("a", at(100.0 + 2.0 * i as f32, 50.0), 0.9)])
        .collect();
    check(&frames, &[("a", &[1], 40)]);
}

#[test]
fn two_players_crossing_keep_their_ids() {
    // head-on at the same height: the boxes overlap fully at the crossing
    let frames: Vec<Vec<Obs>> = (0..60)
        .map(|i| {
            let i = i as f32;
            vec![
                ("a", at(100.0 + 3.0 * i, 50.0), 0.9),
                ("b", at(280.0 - 3.0 * i, 52.0), 0.85),
            ]
        })
        .collect();
    check(&frames, &[("a", &[1], 60), ("b", &[2], 60)]);
}

#[test]
fn a_player_hidden_behind_another_comes_back_with_its_id() {
    // b passes behind a, whose box is the only one the detector sees for 8 frames
    let frames: Vec<Vec<Obs>> = (0..50)
        .map(|i| {
            let a = ("a", at(200.0, 50.0), 0.9);
            let b = ("b", at(120.0 + 3.0 * i as f32, 48.0), 0.8);
            if (24..32).contains(&i) {
                vec![a]
            } else {
                vec![a, b]
            }
        })
        .collect();
    check(&frames, &[("a", &[1], 50), ("b", &[2], 42)]);
}

#[test]
fn low_confidence_detections_extend_tracks_but_never_start_them() {
    let frames: Vec<Vec<Obs>> = (0..30)
        .map(|i| {
            let x = 100.0 + i as f32;
            let conf = if i < 5 { 0.9 } else { 0.3 }; // the player turns and blurs
            vec![("a", at(x, 50.0), conf), ("ghost", at(400.0, 50.0), 0.3)]
        })
        .collect();
    check(&frames, &[("a", &[1], 30), ("ghost", &[], 0)]);
}

#[test]
fn birth_needs_the_birth_threshold_and_a_second_frame() {
    // frame 1 confirms at once; later, a new object needs two frames at ≥ 0.6
    let mut frames: Vec<Vec<Obs>> = vec![vec![("a", at(0.0, 0.0), 0.9)]];
    for i in 1..10 {
        let mut f = vec![("a", at(0.0, 0.0), 0.9), ("weak", at(300.0, 0.0), 0.55)];
        if i == 3 {
            f.push(("blip", at(500.0, 0.0), 0.95)); // one frame only: no id consumed
        }
        if i >= 5 {
            f.push(("c", at(700.0, 0.0), 0.8));
        }
        frames.push(f);
    }
    // c is seen on frames 5..=9, tentative on the first: 4 matched frames, id 2 (not 3)
    check(
        &frames,
        &[
            ("a", &[1], 10),
            ("weak", &[], 0),
            ("blip", &[], 0),
            ("c", &[2], 4),
        ],
    );
}

#[test]
fn a_track_lost_for_too_long_dies_and_a_new_id_follows() {
    let cfg = TrackerConfig {
        max_lost_frames: 5,
        ..TrackerConfig::default()
    };
    let mut frames: Vec<Vec<Obs>> = (0..5).map(|_| vec![("a", at(50.0, 50.0), 0.9)]).collect();
    frames.extend((0..4).map(|_| vec![])); // 4 frames missing: within the buffer
    frames.extend((0..5).map(|_| vec![("a", at(50.0, 50.0), 0.9)]));
    check_cfg(cfg, &frames, &[("a", &[1], 10)]);
    let mut frames: Vec<Vec<Obs>> = (0..5).map(|_| vec![("a", at(50.0, 50.0), 0.9)]).collect();
    frames.extend((0..7).map(|_| vec![])); // 7 missing: dead
    frames.extend((0..5).map(|_| vec![("a", at(50.0, 50.0), 0.9)]));
    // the reborn track is tentative on its first frame
    check_cfg(cfg, &frames, &[("a", &[1, 2], 9)]);
    let mut tracker = ByteTracker::new(cfg);
    tracker.update(&[person(at(0.0, 0.0), 0.9)]);
    for _ in 0..7 {
        tracker.update(&[]);
    }
    assert_eq!(tracker.live_tracks(), 0);
}

#[test]
fn update_fills_ids_and_votes_the_class() {
    let mut tracker = ByteTracker::new(TrackerConfig::default());
    let mut last = Vec::new();
    for i in 0..5 {
        let class = if i == 2 {
            ObjectClass::Player
        } else {
            ObjectClass::Referee
        };
        last = tracker.update(&[
            Detection::new(at(10.0, 10.0), 0.9, 0).with_class(class),
            person(at(0.0, 0.0), 0.0),
        ]);
    }
    assert_eq!(last.len(), 1);
    assert_eq!(last[0].track_id, Some(1));
    assert_eq!(last[0].class, Some(ObjectClass::Referee));
    assert_eq!(
        last[0].bbox,
        at(10.0, 10.0),
        "the tracker only fills ids: the box is the detection's"
    );
}

/// Two players crossing head-on 5 px apart, with noisy boxes and 10% missed detections, over many
/// seeds: the number of runs in which either changed id.
fn noisy_crossings(cfg: TrackerConfig, runs: u64) -> usize {
    use crate::rng::SplitMix64;
    (0..runs)
        .filter(|&seed| {
            let mut rng = SplitMix64::new(seed);
            let frames: Vec<Vec<Obs>> = (0..60)
                .map(|i| {
                    let i = i as f32;
                    // detector error: 5% of the box size on every edge
                    let mut noisy = |b: BBox| {
                        let mut j = |s: f32| s * 0.05 * rng.gaussian() as f32;
                        let (w, h) = (b.width(), b.height());
                        BBox::new(b.x1 + j(w), b.y1 + j(h), b.x2 + j(w), b.y2 + j(h))
                    };
                    let a = ("a", noisy(at(100.0 + 2.5 * i, 50.0)), 0.9);
                    let b = ("b", noisy(at(250.0 - 2.5 * i, 55.0)), 0.9);
                    [a, b]
                        .into_iter()
                        .filter(|_| rng.next_f64() > 0.1)
                        .collect()
                })
                .collect();
            let ids = run(cfg, &frames);
            ids.values().any(|v| v.windows(2).any(|w| w[0] != w[1]))
        })
        .count()
}

#[test]
fn noisy_crossings_keep_their_ids_over_many_seeds() {
    let switched = noisy_crossings(TrackerConfig::default(), 50);
    assert_eq!(switched, 0, "{switched}/50 runs switched an id");
}

#[test]
fn buffered_iou_follows_a_sudden_turn_of_a_small_box() {
    // a 10×24 px player running right at 3 px/frame turns on the spot and runs back: the filter
    // still predicts 3 px/frame to the right for a while
    let small = |x: f32| BBox::new(x, 20.0, x + 10.0, 44.0);
    let xs: Vec<f32> = (0..20)
        .map(|i| 100.0 + 3.0 * i as f32)
        .chain((1..20).map(|i| 157.0 - 3.0 * i as f32))
        .collect();
    let frames: Vec<Vec<Obs>> = xs.iter().map(|&x| vec![("a", small(x), 0.9)]).collect();
    check(&frames, &[("a", &[1], 39)]);
}

#[test]
fn a_fast_pan_keeps_ids_when_the_tracks_are_moved_with_the_picture() {
    // two players standing still on the pitch; from frame 6 the camera pans 30 px a frame: their
    // boxes (16 px wide) jump farther than their buffered width, so IoU alone loses them
    let pan = crate::pitch::Homography::from_matrix([
        [1.0, 0.0, -30.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ])
    .unwrap();
    let frame = |i: u32| {
        let dx = -30.0 * i.saturating_sub(5) as f32;
        vec![
            person(BBox::from_ltwh(600.0 + dx, 300.0, 16.0, 40.0), 0.9),
            person(BBox::from_ltwh(700.0 + dx, 320.0, 16.0, 40.0), 0.9),
        ]
    };
    // the ids each frame
    let ids = |compensate: bool| {
        let mut tracker = ByteTracker::new(TrackerConfig::default());
        (0..12)
            .map(|i| {
                if compensate && i > 5 {
                    tracker.compensate(&pan);
                }
                let out = tracker.update(&frame(i));
                out.iter().filter_map(|d| d.track_id).collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    assert!(ids(true).iter().all(|f| f == &[1, 2]), "{:?}", ids(true));
    assert!(
        ids(false)[6..].iter().all(|f| f.len() < 2),
        "without compensation the players are lost (or swapped): {:?}",
        ids(false)
    );
    // remove and reset drop tracks; ids keep counting
    let mut tracker = ByteTracker::new(TrackerConfig::default());
    tracker.update(&frame(0));
    tracker.remove(1);
    assert_eq!(tracker.live_tracks(), 1);
    tracker.reset();
    assert_eq!(tracker.live_tracks(), 0);
}

#[test]
fn shirt_colours_keep_two_jostling_players_apart() {
    // a red and a white player shoulder to shoulder, trading places by 3 px every frame: overlap
    // and motion cannot tell whose box is whose, the shirts can
    let red = Some([0.8, 0.1, 0.1]);
    let white = Some([0.95, 0.95, 0.95]);
    let run = |with_colours: bool| {
        let mut tracker = ByteTracker::new(TrackerConfig::default());
        let mut ids: HashMap<bool, Vec<u64>> = HashMap::new();
        for i in 0..30 {
            let (xr, xw) = if i % 2 == 0 {
                (300.0, 303.0)
            } else {
                (303.0, 300.0)
            };
            let dets = [
                person(BBox::from_ltwh(xr, 300.0, 20.0, 50.0), 0.9),
                person(BBox::from_ltwh(xw, 300.0, 20.0, 50.0), 0.9),
            ];
            let colours = if with_colours {
                vec![red, white]
            } else {
                vec![]
            };
            for (d, t) in tracker.update_with_colours(&dets, &colours) {
                ids.entry(d == 0).or_default().push(t.track_id.unwrap());
            }
        }
        ids.values()
            .map(|seen| {
                let mut distinct = seen.clone();
                distinct.sort_unstable();
                distinct.dedup();
                distinct.len()
            })
            .max()
            .unwrap()
    };
    assert_eq!(run(true), 1, "each shirt keeps one id");
    assert!(run(false) > 1, "without the shirts the ids trade places");
}
