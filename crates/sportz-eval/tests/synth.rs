//! A real synthetic match (small and short) scored against predictions copied from its own
//! truth: every visibility case, the referee, and the real truth serialisation are exercised.

mod common;

use common::*;
use sportz_contract::{Ball, ObjectClass, PixelPoint, Player, Velocity};
use sportz_eval::{EvalOptions, Truth, evaluate, parse_predictions, parse_truth_jsonl};
use sportz_synth::{FrameTruth, SynthConfig, SynthMatch, Visibility};

fn truth_frames(n: u64) -> Vec<FrameTruth> {
    let cfg = SynthConfig {
        width: 320,
        height: 180,
        fps: 25,
        duration_secs: 10.0,
        scoreboard: false,
        motion_blur: false,
        noise: false,
        cuts: true,
        ..SynthConfig::default()
    };
    let mut m = SynthMatch::new(7, cfg).unwrap();
    (0..n).map(|_| m.render_next().1).collect()
}

/// What a perfect tracker would report: every person in frame with the truth box and foot
/// point (track id = truth id + 100), the ball when it is visible.
fn copy(f: &FrameTruth) -> sportz_contract::FrameData {
    let players: Vec<Player> = f
        .objects
        .iter()
        .filter_map(|o| {
            Some(Player {
                track_id: u64::from(o.id) + 100,
                class: o.role,
                bbox: o.bbox?,
                confidence: 1.0,
                pitch: Some(o.pitch),
                team: Some(o.team),
            })
        })
        .collect();
    let ball = f.ball.visible.then(|| Ball {
        track_id: 1,
        bbox: f.ball.bbox.unwrap(),
        pixel: PixelPoint {
            x: f.ball.pixel.x,
            y: f.ball.pixel.y,
        },
        pitch: Some(f.ball.pitch),
        confidence: 1.0,
        velocity: Velocity { x: 0.0, y: 0.0 },
        speed: 0.0,
        speed_mps: None,
        predicted: false,
        height_m: (f.ball.height_m > 0.0).then_some(f.ball.height_m),
    });
    let mut out = pred_frame(f.frame_number, players, ball);
    out.width = 320;
    out.height = 180;
    out
}

#[test]
fn a_synthetic_match_scored_against_its_own_truth_is_perfect() {
    let frames = truth_frames(40);
    let text = truth_jsonl(&frames);
    let parsed = parse_truth_jsonl(text.as_bytes(), "truth.jsonl").unwrap();
    // (Not bit-equal: serde_json's default float parsing may differ in the last bit.)
    assert_eq!(parsed.len(), frames.len());
    let pred: Vec<_> = frames.iter().map(copy).collect();
    let p = parse_predictions(pred_jsonl(&pred, &[]).as_bytes(), "pred.jsonl").unwrap();
    let r = evaluate(&Truth::from_frames(parsed), &p, &EvalOptions::default()).unwrap();

    // What the truth says should count.
    let opts = EvalOptions::default();
    let counted: u64 = frames
        .iter()
        .flat_map(|f| &f.objects)
        .filter(|o| {
            o.role != ObjectClass::Referee
                && o.bbox.is_some()
                && (o.visibility == Visibility::Visible
                    || (o.visibility == Visibility::Partial
                        && o.visible_fraction >= opts.min_visible_fraction))
        })
        .count() as u64;
    assert!(counted > 0, "the camera sees someone");
    assert_eq!(r.frames.evaluated_frames, 40);
    assert_eq!(r.players.truth_objects, counted);
    assert_eq!(r.players.pred_objects, counted);
    assert_close(r.players.hota, 1.0, "HOTA");
    assert_close(r.players.identity.idf1, 1.0, "IDF1");
    assert_eq!(r.players.clear.id_switches, 0);
    assert_close(r.players.pitch_error_m.unwrap(), 0.0, "pitch error");
    if r.ball.truth_visible > 0 {
        assert_eq!(r.ball.recall, Some(1.0));
        assert_eq!(r.ball.precision, Some(1.0));
    }
}
