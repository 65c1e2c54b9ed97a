//! `evaluate` on small hand-made matches with hand-computed answers.

mod common;

use common::*;
use sportz_contract::{EventKind, ObjectClass, PitchPoint};
use sportz_eval::{EvalError, EvalOptions, FrameAlignment, Report, evaluate};
use sportz_synth::Visibility;

fn run(
    truth: &[sportz_synth::FrameTruth],
    events: &[sportz_synth::EventTruth],
    pred: &[sportz_contract::FrameData],
    pred_events: &[sportz_contract::EventData],
) -> Report {
    let (t, p) = load(truth, events, pred, pred_events);
    evaluate(&t, &p, &EvalOptions::default()).unwrap()
}

/// Predictions that copy the truth: ids 1, 2 tracked as 101, 102, the ball exact.
fn perfect_pred(n: u64) -> Vec<sportz_contract::FrameData> {
    (0..n)
        .map(|t| {
            pred_frame(
                t,
                vec![pred_player(101, 0), pred_player(102, 1)],
                Some(pred_ball(0.0)),
            )
        })
        .collect()
}

#[test]
fn perfect_prediction_scores_one_everywhere() {
    let truth = truth_seq(10, &[1, 2]);
    let events = [
        truth_event(1, EventKind::Pass, 0.1),
        truth_event(2, EventKind::Shot, 0.3),
    ];
    let pred_events = [
        pred_event(EventKind::Pass, 0.1),
        pred_event(EventKind::Shot, 0.3),
    ];
    let r = run(&truth, &events, &perfect_pred(10), &pred_events);

    assert_eq!(r.frames.truth_frames, 10);
    assert_eq!(r.frames.pred_frames, 10);
    assert_eq!(r.frames.evaluated_frames, 10);
    assert_eq!(r.frames.pred_frames_unaligned, 0);
    let p = &r.players;
    assert_eq!(
        (p.truth_objects, p.pred_objects, p.truth_ids, p.pred_ids),
        (20, 20, 2, 2)
    );
    for (v, what) in [
        (p.hota, "HOTA"),
        (p.det_a, "DetA"),
        (p.ass_a, "AssA"),
        (p.loc_a, "LocA"),
        (p.identity.idf1, "IDF1"),
        (p.clear.mota, "MOTA"),
    ] {
        assert_close(v, 1.0, what);
    }
    assert_eq!(p.clear.id_switches, 0);
    assert_eq!(p.per_alpha.len(), 19);
    assert_eq!(p.pitch_error_m, Some(0.0));
    assert_eq!(p.pitch_error_p95_m, Some(0.0));
    assert_eq!(p.pitch_pairs, 20);

    assert_eq!(
        (r.ball.truth_visible, r.ball.pred, r.ball.recall_hits),
        (10, 10, 10)
    );
    assert_eq!((r.ball.recall, r.ball.precision), (Some(1.0), Some(1.0)));
    assert_eq!(r.ball.pitch_error_m, Some(0.0));

    let all = r.events.per_kind.last().unwrap();
    assert_eq!(
        (all.kind.as_str(), all.truth, all.pred, all.matched),
        ("all", 2, 2, 2)
    );
    assert_eq!(all.f1, Some(1.0));
    // ball_lost means another moment on each side (eval.rs, contract_kind_of_truth)
    assert!(r.events.not_comparable.truth_only.is_empty());
    assert_eq!(r.events.not_comparable.pred_only, ["ball_lost"]);
}

#[test]
fn swapped_ids_halfway_give_the_hand_computed_association() {
    // Tracks 101/102 follow objects 1/2 for frames 0–4, then swap. Every frame is detected
    // perfectly (DetA = 1); each (truth, track) pair co-occurs 5 of 10 frames, so each match's
    // association IoU is 5 / (10 + 10 − 5) = 1/3 and AssA = 1/3, HOTA = √(1/3). The best global
    // id mapping keeps 10 of 20 detections: IDF1 = 10 / (10 + 5 + 5) = 0.5. CLEAR: both truth
    // ids switch once, MOTA = (20 − 0 − 2) / 20 = 0.9.
    let truth = truth_seq(10, &[1, 2]);
    let pred: Vec<_> = (0..10)
        .map(|t| {
            let (a, b) = if t < 5 { (101, 102) } else { (102, 101) };
            pred_frame(t, vec![pred_player(a, 0), pred_player(b, 1)], None)
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    let p = &r.players;
    assert_close(p.det_a, 1.0, "DetA");
    assert_close(p.ass_a, 1.0 / 3.0, "AssA");
    assert_close(p.hota, (1.0f64 / 3.0).sqrt(), "HOTA");
    assert_close(p.loc_a, 1.0, "LocA");
    assert_eq!(
        (p.identity.idtp, p.identity.idfp, p.identity.idfn),
        (10, 10, 10)
    );
    assert_close(p.identity.idf1, 0.5, "IDF1");
    assert_eq!(p.clear.id_switches, 2);
    assert_close(p.clear.mota, 0.9, "MOTA");
}

#[test]
fn a_new_id_halfway_gives_the_hand_computed_association() {
    // Object 1 is track 101 for frames 0–4 then track 103; object 2 is track 102 throughout.
    // Association IoU: (1,101) = 5/(10+5−5) = 0.5 for 5 matches, (1,103) = 0.5 for 5,
    // (2,102) = 1 for 10: AssA = (2.5 + 2.5 + 10) / 20 = 0.75. IDF1: IDTP = 5 + 10 = 15,
    // IDFP = IDFN = 5, IDF1 = 15 / 20 = 0.75. One id switch: MOTA = 19/20.
    let truth = truth_seq(10, &[1, 2]);
    let pred: Vec<_> = (0..10)
        .map(|t| {
            let a = if t < 5 { 101 } else { 103 };
            pred_frame(t, vec![pred_player(a, 0), pred_player(102, 1)], None)
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    let p = &r.players;
    assert_close(p.det_a, 1.0, "DetA");
    assert_close(p.ass_a, 0.75, "AssA");
    assert_close(p.hota, 0.75f64.sqrt(), "HOTA");
    assert_close(p.identity.idf1, 0.75, "IDF1");
    assert_eq!(p.clear.id_switches, 1);
    assert_close(p.clear.mota, 0.95, "MOTA");
}

#[test]
fn dropped_detections_lower_deta_and_recall() {
    // One object over 10 frames; the tracker misses it (and the ball) in frames 3 and 7.
    // DetA = 8 / (8 + 2 + 0) = 0.8; AssA = 8 / (10 + 8 − 8) = 0.8; HOTA = 0.8;
    // IDF1 = 8 / (8 + 0 + 1) = 8/9; ball recall 8/10, precision 1.
    let truth = truth_seq(10, &[1]);
    let pred: Vec<_> = (0..10)
        .map(|t| {
            if t == 3 || t == 7 {
                pred_frame(t, vec![], None)
            } else {
                pred_frame(t, vec![pred_player(101, 0)], Some(pred_ball(0.0)))
            }
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    let p = &r.players;
    assert_close(p.det_a, 0.8, "DetA");
    assert_close(p.det_re, 0.8, "DetRe");
    assert_close(p.det_pr, 1.0, "DetPr");
    assert_close(p.ass_a, 0.8, "AssA");
    assert_close(p.hota, 0.8, "HOTA");
    assert_close(p.identity.idf1, 8.0 / 9.0, "IDF1");
    assert_eq!((p.clear.tp, p.clear.fn_, p.clear.fp), (8, 2, 0));
    assert_eq!(r.ball.recall, Some(0.8));
    assert_eq!(r.ball.precision, Some(1.0));
}

#[test]
fn ball_within_five_pixels_counts_and_beyond_does_not() {
    let truth = truth_seq(4, &[]);
    for (dx, hits) in [(4.0, 4), (5.0, 4), (6.0, 0), (-4.0, 4), (-6.0, 0)] {
        let pred: Vec<_> = (0..4)
            .map(|t| pred_frame(t, vec![], Some(pred_ball(dx))))
            .collect();
        let r = run(&truth, &[], &pred, &[]);
        assert_eq!(r.ball.recall_hits, hits, "dx = {dx}");
        assert_eq!(r.ball.precision_hits, hits, "dx = {dx}");
        let expected = if hits > 0 { 1.0 } else { 0.0 };
        assert_eq!(r.ball.recall, Some(expected), "dx = {dx}");
        assert_eq!(r.ball.precision, Some(expected), "dx = {dx}");
    }
}

#[test]
fn a_hidden_true_ball_is_not_owed_but_a_right_guess_still_counts() {
    // Frames 0–1 the ball is visible, 2–3 hidden; the tracker reports it (exactly) in 1–3.
    let truth: Vec<_> = (0..4)
        .map(|t| truth_frame(t, vec![], ball_truth(t < 2)))
        .collect();
    let pred: Vec<_> = (0..4)
        .map(|t| pred_frame(t, vec![], (t > 0).then(|| pred_ball(0.0))))
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    assert_eq!((r.ball.truth_visible, r.ball.pred), (2, 3));
    assert_eq!((r.ball.recall_hits, r.ball.precision_hits), (1, 3));
    assert_eq!(r.ball.recall, Some(0.5));
    assert_eq!(r.ball.precision, Some(1.0));
}

#[test]
fn events_count_within_the_tolerance_only() {
    // 3 s of frames; a pass at 1.0 s and a goal at 2.0 s. A pass 0.9 s late matches; a goal
    // 1.1 s early does not (and is a false positive).
    let truth = truth_seq(75, &[]);
    let events = [
        truth_event(1, EventKind::Pass, 1.0),
        truth_event(2, EventKind::Goal, 2.0),
    ];
    let pred_events = [
        pred_event(EventKind::Pass, 1.9),
        pred_event(EventKind::Goal, 0.9),
    ];
    let pred: Vec<_> = (0..75).map(|t| pred_frame(t, vec![], None)).collect();
    let r = run(&truth, &events, &pred, &pred_events);
    let row = |k: &str| {
        r.events
            .per_kind
            .iter()
            .find(|s| s.kind == k)
            .unwrap()
            .clone()
    };
    let pass = row("pass");
    assert_eq!((pass.truth, pass.pred, pass.matched), (1, 1, 1));
    assert_eq!(pass.f1, Some(1.0));
    let goal = row("goal");
    assert_eq!((goal.truth, goal.pred, goal.matched), (1, 1, 0));
    assert_eq!(
        (goal.precision, goal.recall, goal.f1),
        (Some(0.0), Some(0.0), Some(0.0))
    );
    let shot = row("shot");
    assert_eq!((shot.truth, shot.pred, shot.precision), (0, 0, None));
    let all = row("all");
    assert_eq!((all.truth, all.pred, all.matched), (2, 2, 1));
    assert_eq!(all.f1, Some(0.5));
    // A different kind at the right time is no match.
    let r = run(
        &truth,
        &events[..1],
        &pred,
        &[pred_event(EventKind::Shot, 1.0)],
    );
    assert_eq!(r.events.per_kind.last().unwrap().matched, 0);
}

#[test]
fn events_match_one_to_one_at_the_maximum() {
    // Truth passes at 1.0 and 2.0; predictions at 1.6 and 2.8. Greedy-nearest would pair 1.6
    // with 2.0 and leave 1.0 and 2.8 unmatched; the maximum pairs 1.0–1.6 and 2.0–2.8.
    let truth = truth_seq(100, &[]);
    let events = [
        truth_event(1, EventKind::Pass, 1.0),
        truth_event(2, EventKind::Pass, 2.0),
    ];
    let pred: Vec<_> = (0..100).map(|t| pred_frame(t, vec![], None)).collect();
    let pe = [
        pred_event(EventKind::Pass, 1.6),
        pred_event(EventKind::Pass, 2.8),
    ];
    let r = run(&truth, &events, &pred, &pe);
    assert_eq!(r.events.per_kind.last().unwrap().matched, 2);
}

#[test]
fn events_outside_the_evaluated_frames_are_not_scored() {
    let truth = truth_seq(25, &[]); // 0.00–0.96 s
    let events = [
        truth_event(1, EventKind::Pass, 0.5),
        truth_event(2, EventKind::Pass, 30.0),
    ];
    let pred: Vec<_> = (0..25).map(|t| pred_frame(t, vec![], None)).collect();
    let r = run(&truth, &events, &pred, &[pred_event(EventKind::Pass, 0.5)]);
    assert_eq!(r.events.truth_outside_span, 1);
    assert_eq!(r.events.per_kind.last().unwrap().recall, Some(1.0));
}

#[test]
fn referee_and_occluded_people_are_ignored_not_missed() {
    // Object 1 visible (slot 0); referee 23 at slot 1; object 2 occluded at slot 2; object 3
    // partial at 10 % (slot 3) and object 4 partial at 50 % (slot 4).
    let mut people = vec![
        person(1, 0),
        person(23, 1),
        person(2, 2),
        person(3, 3),
        person(4, 4),
    ];
    people[1].role = ObjectClass::Referee;
    people[2].visibility = Visibility::Occluded;
    people[3].visibility = Visibility::Partial;
    people[3].visible_fraction = 0.1;
    people[4].visibility = Visibility::Partial;
    people[4].visible_fraction = 0.5;
    let truth: Vec<_> = (0..5)
        .map(|t| truth_frame(t, people.clone(), ball_truth(true)))
        .collect();
    let pred: Vec<_> = (0..5)
        .map(|t| {
            let mut referee = pred_player(201, 1);
            referee.class = ObjectClass::Referee;
            let mut keeper = pred_player(104, 4);
            keeper.class = ObjectClass::Goalkeeper;
            pred_frame(
                t,
                vec![
                    pred_player(101, 0),
                    referee,
                    pred_player(202, 1), // the referee, classed as a player
                    pred_player(102, 2), // the occluded player
                    pred_player(103, 3), // the barely visible player
                    keeper,              // a goalkeeper is a player
                ],
                None,
            )
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    let p = &r.players;
    assert_eq!((p.truth_objects, p.truth_ids), (10, 2));
    assert_eq!((p.pred_objects, p.pred_ids), (10, 2));
    assert_eq!(p.pred_ignored, 20);
    assert_close(p.hota, 1.0, "HOTA");
    assert_close(p.identity.idf1, 1.0, "IDF1");

    // Without the ignore regions those predictions would be false positives: a stray player
    // far from anyone still is one.
    let pred: Vec<_> = (0..5)
        .map(|t| {
            pred_frame(
                t,
                vec![
                    pred_player(101, 0),
                    pred_player(104, 4),
                    pred_player(105, 7),
                ],
                None,
            )
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    assert_eq!(r.players.clear.fp, 5);
    assert_close(r.players.det_a, 10.0 / 15.0, "DetA with a stray track");
}

#[test]
fn pitch_error_is_the_mean_distance_of_matched_pairs() {
    let truth = truth_seq(4, &[1]);
    let pred: Vec<_> = (0..4)
        .map(|t| {
            let mut p = pred_player(101, 0);
            let q = slot_pitch(0);
            // 3-4-5 off in frames 0–1, exact in 2, no pitch in 3.
            p.pitch = match t {
                0 | 1 => Some(PitchPoint {
                    x: q.x + 3.0,
                    y: q.y + 4.0,
                }),
                2 => Some(q),
                _ => None,
            };
            let mut b = pred_ball(0.0);
            b.pitch = Some(PitchPoint {
                x: BALL_PITCH.x - 6.0,
                y: BALL_PITCH.y + 8.0,
            });
            pred_frame(t, vec![p], Some(b))
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    assert_eq!(r.players.pitch_pairs, 3);
    assert_close(
        r.players.pitch_error_m.unwrap(),
        10.0 / 3.0,
        "player pitch error",
    );
    // 0, 5, 5 m: the nearest-rank 95th percentile is the largest
    assert_eq!(r.players.pitch_error_p95_m, Some(5.0));
    assert_eq!(r.ball.pitch_frames, 4);
    assert_close(r.ball.pitch_error_m.unwrap(), 10.0, "ball pitch error");
}

/// The ball's pitch error is also given over the frames where the true ball is in the air
/// (its underside at least 0.5 m up), where a ground point through the camera runs far off.
#[test]
fn the_ball_pitch_error_in_the_air_is_given_apart() {
    let mut truth = truth_seq(4, &[1]);
    truth[2].ball.height_m = 4.0;
    truth[3].ball.height_m = 0.5;
    let offsets = [(0.0, 0.0), (0.0, 0.0), (6.0, 8.0), (3.0, 4.0)];
    let pred: Vec<_> = offsets
        .iter()
        .zip(0..)
        .map(|(&(dx, dy), t)| {
            let mut b = pred_ball(0.0);
            b.pitch = Some(PitchPoint {
                x: BALL_PITCH.x + dx,
                y: BALL_PITCH.y + dy,
            });
            pred_frame(t, vec![pred_player(101, 0)], Some(b))
        })
        .collect();
    let r = run(&truth, &[], &pred, &[]);
    assert_eq!((r.ball.pitch_frames, r.ball.pitch_frames_air), (4, 2));
    assert_close(
        r.ball.pitch_error_m.unwrap(),
        15.0 / 4.0,
        "ball pitch error",
    );
    assert_close(r.ball.pitch_error_air_m.unwrap(), 7.5, "in the air");
    let table = r.table();
    assert!(
        table.contains("3.75 m (4 frames; in the air 7.50 m, 2)"),
        "{table}"
    );
    // no ball in the air: no figure
    let r = run(&truth_seq(4, &[1]), &[], &pred, &[]);
    assert_eq!(
        (r.ball.pitch_frames_air, r.ball.pitch_error_air_m),
        (0, None)
    );
}

#[test]
fn frames_align_by_timestamp_when_tracking_ran_at_half_rate() {
    // The video is 25 fps and object 1 moves one slot per frame. `sportz track --fps 12.5`
    // numbers its frames 0, 1, 2, … at 0.08 s steps, so its frame k shows truth frame 2k.
    let truth: Vec<_> = (0..10)
        .map(|t| {
            truth_frame(
                t,
                vec![person(1, usize::try_from(t).unwrap())],
                ball_truth(true),
            )
        })
        .collect();
    let pred: Vec<_> = (0..5)
        .map(|k| {
            let slot = 2 * usize::try_from(k).unwrap();
            pred_frame_at(k, 12.5, vec![pred_player(101, slot)], None)
        })
        .collect();
    let (t, p) = load(&truth, &[], &pred, &[]);
    let r = evaluate(&t, &p, &EvalOptions::default()).unwrap();
    assert_eq!(r.frames.evaluated_frames, 5);
    assert_eq!(r.frames.pred_frames_unaligned, 0);
    assert_eq!(r.players.truth_objects, 5);
    assert_close(r.players.hota, 1.0, "HOTA at half rate");

    // By frame number, predicted frame k is compared with truth frame k: only k = 0 is right.
    // TP 1, FN 4, FP 4: DetA = 1/9.
    let opts = EvalOptions {
        alignment: FrameAlignment::FrameNumber,
        ..EvalOptions::default()
    };
    let r = evaluate(&t, &p, &opts).unwrap();
    assert_eq!(r.frames.evaluated_frames, 5);
    assert_close(r.players.det_a, 1.0 / 9.0, "DetA misaligned");

    // Predictions that lie after the end of the truth do not line up at all.
    let late: Vec<_> = (100..105).map(|k| pred_frame(k, vec![], None)).collect();
    let (t, p) = load(&truth, &[], &late, &[]);
    let err = evaluate(&t, &p, &EvalOptions::default()).unwrap_err();
    assert!(matches!(err, EvalError::Alignment(_)), "{err}");
    assert!(
        err.to_string().contains("none of the 5 predicted frames"),
        "{err}"
    );
}

#[test]
fn frame_zero_of_the_prediction_is_frame_zero_of_the_truth() {
    // Only predicted frame 0 exists, with object 1 in slot 0; the truth has object 1 in slot 0
    // at frame 0 and in slot 3 at frame 1. Aligned off by one, nothing would match.
    let truth = vec![
        truth_frame(0, vec![person(1, 0)], ball_truth(true)),
        truth_frame(1, vec![person(1, 3)], ball_truth(true)),
    ];
    let pred = vec![pred_frame(0, vec![pred_player(101, 0)], None)];
    for alignment in [FrameAlignment::Timestamp, FrameAlignment::FrameNumber] {
        let (t, p) = load(&truth, &[], &pred, &[]);
        let opts = EvalOptions {
            alignment,
            ..EvalOptions::default()
        };
        let r = evaluate(&t, &p, &opts).unwrap();
        assert_eq!(r.frames.evaluated_frames, 1, "{alignment:?}");
        assert_close(r.players.det_a, 1.0, "DetA");
    }
}

#[test]
fn the_table_and_the_json_carry_the_counts() {
    let truth = truth_seq(10, &[1, 2]);
    let r = run(&truth, &[], &perfect_pred(10), &[]);
    let table = r.table();
    for needle in [
        "frames",
        "players",
        "HOTA",
        "IDF1",
        "ball",
        "events",
        "possession_change",
        "not comparable",
    ] {
        assert!(table.contains(needle), "table lacks {needle}:\n{table}");
    }
    // Counts: 10 frames each side, 20 truth and 20 predicted objects.
    let frames_line = table.lines().nth(2).unwrap();
    assert_eq!(
        frames_line.split_whitespace().collect::<Vec<_>>(),
        ["10", "10", "10", "0", "timestamp"]
    );
    let objects_line = table.lines().nth(6).unwrap();
    assert_eq!(
        objects_line.split_whitespace().collect::<Vec<_>>(),
        ["20", "2", "20", "2", "0"]
    );

    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["frames"]["evaluated_frames"], 10);
    assert_eq!(json["players"]["hota"], 1.0);
    assert_eq!(json["players"]["identity"]["idf1"], 1.0);
    assert_eq!(json["players"]["clear"]["fn"], 0);
    assert_eq!(json["ball"]["recall"], 1.0);
    assert_eq!(json["events"]["tolerance_s"], 1.0);
    assert_eq!(json["options"]["alignment"], "timestamp");
}
