//! Builders for small truth and prediction files. Everything goes through the real text formats
//! (truth JSONL, contract envelopes) and the crate's parsers, as the CLI will.

#![allow(dead_code, reason = "each test binary uses part of the shared helpers")]

use sportz_contract::{
    Ball, CoordinateMode, Envelope, EventData, EventId, EventKind, FrameData, MatchId, ObjectClass,
    Payload, PitchPoint, PixelPoint, Player, Sequencer, SessionId, TeamSide, Velocity,
};
use sportz_eval::{Predictions, Truth, parse_events_json, parse_predictions, parse_truth_jsonl};
use sportz_synth::{
    BallTruth, CameraTruth, EventTruth, FrameTruth, ObjectTruth, Score, Visibility,
};

pub const FPS: f64 = 25.0;

/// The box of slot `k`: 20×60 px boxes 100 px apart, never overlapping.
pub fn slot_box(k: usize) -> [f64; 4] {
    let x = 100.0 + 100.0 * k as f64;
    [x, 300.0, x + 20.0, 360.0]
}

/// The pitch point of slot `k`.
pub fn slot_pitch(k: usize) -> PitchPoint {
    PitchPoint {
        x: 10.0 + 10.0 * k as f64,
        y: 30.0,
    }
}

pub fn person(id: u32, k: usize) -> ObjectTruth {
    let bbox = slot_box(k);
    ObjectTruth {
        id,
        role: ObjectClass::Player,
        team: if id <= 11 {
            TeamSide::Home
        } else {
            TeamSide::Away
        },
        number: u8::try_from(id % 100).unwrap(),
        bbox: Some(bbox),
        bbox_full: bbox,
        pitch: slot_pitch(k),
        foot_pixel: PixelPoint {
            x: (bbox[0] + bbox[2]) / 2.0,
            y: bbox[3],
        },
        speed_mps: 0.0,
        visibility: Visibility::Visible,
        visible_fraction: 1.0,
        occluded_fraction: 0.0,
        visible_px: 1200,
    }
}

pub const BALL_PX: PixelPoint = PixelPoint { x: 640.0, y: 200.0 };
pub const BALL_PITCH: PitchPoint = PitchPoint { x: 52.5, y: 34.0 };

pub fn ball_truth(visible: bool) -> BallTruth {
    BallTruth {
        pixel: BALL_PX,
        bbox: visible.then_some([635.0, 195.0, 645.0, 205.0]),
        pitch: BALL_PITCH,
        height_m: 0.0,
        visible,
        visible_px: if visible { 80 } else { 0 },
        velocity_mps: [0.0; 3],
        speed_mps: 0.0,
        owner: None,
        in_play: true,
    }
}

pub fn truth_frame(n: u64, objects: Vec<ObjectTruth>, ball: BallTruth) -> FrameTruth {
    let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    FrameTruth {
        frame_number: n,
        video_timestamp: n as f64 / FPS,
        camera: CameraTruth {
            image_from_pitch: id,
            pitch_from_image: id,
            position_m: [52.5, 80.0, 20.0],
            target: BALL_PITCH,
            fov_deg: 40.0,
            shot: sportz_synth::Shot::Main,
            cut: false,
            pitch_visible: true,
        },
        objects,
        ball,
        events: Vec::new(),
        score: Score::default(),
        possession: None,
    }
}

/// A predicted player at slot `k` with track id `track`.
pub fn pred_player(track: u64, k: usize) -> Player {
    Player {
        track_id: track,
        class: ObjectClass::Player,
        bbox: slot_box(k),
        confidence: 0.9,
        pitch: Some(slot_pitch(k)),
        team: Some(TeamSide::Home),
    }
}

/// A predicted ball `dx` pixels right of the true one.
pub fn pred_ball(dx: f64) -> Ball {
    Ball {
        track_id: 1,
        bbox: [
            BALL_PX.x + dx - 5.0,
            BALL_PX.y - 5.0,
            BALL_PX.x + dx + 5.0,
            BALL_PX.y + 5.0,
        ],
        pixel: PixelPoint {
            x: BALL_PX.x + dx,
            y: BALL_PX.y,
        },
        pitch: Some(BALL_PITCH),
        confidence: 0.9,
        velocity: Velocity { x: 0.0, y: 0.0 },
        speed: 0.0,
        speed_mps: None,
        predicted: false,
        height_m: None,
    }
}

/// A predicted frame numbered `n` at `video_timestamp = n / fps`.
pub fn pred_frame_at(n: u64, fps: f64, players: Vec<Player>, ball: Option<Ball>) -> FrameData {
    let t = n as f64 / fps;
    FrameData {
        frame_number: n,
        video_timestamp: t,
        timestamp: 1_760_000_000.0 + t,
        width: 1280,
        height: 720,
        coordinate_mode: CoordinateMode::Pitch,
        ball,
        trail: Vec::new(),
        players,
        latency_ms: 10.0,
        camera: None,
        kits: None,
    }
}

pub fn pred_frame(n: u64, players: Vec<Player>, ball: Option<Ball>) -> FrameData {
    pred_frame_at(n, FPS, players, ball)
}

pub fn truth_event(seq: u32, kind: EventKind, t: f64) -> EventTruth {
    EventTruth {
        seq,
        kind,
        frame: (t * FPS).ceil() as u64,
        time_secs: t,
        pitch: BALL_PITCH,
        team: Some(TeamSide::Home),
        player_id: Some(5),
        target_player_id: None,
        speed_mps: None,
        detail: None,
    }
}

pub fn pred_event(kind: EventKind, t: f64) -> EventData {
    EventData {
        event_id: EventId::generate(),
        kind,
        video_timestamp: t,
        timestamp: 1_760_000_000.0 + t,
        frame_number: (t * FPS).round() as u64,
        pitch: Some(BALL_PITCH),
        team: Some(TeamSide::Home),
        player_track_id: Some(5),
        confidence: 0.8,
        details: serde_json::Map::new(),
    }
}

pub fn truth_jsonl(frames: &[FrameTruth]) -> String {
    frames
        .iter()
        .map(|f| serde_json::to_string(f).unwrap() + "\n")
        .collect()
}

pub fn events_json(events: &[EventTruth]) -> String {
    serde_json::to_string(events).unwrap()
}

/// The JSONL `sportz track` would write: frames then events, as contract envelopes.
pub fn pred_jsonl(frames: &[FrameData], events: &[EventData]) -> String {
    let (m, s) = (MatchId::generate(), SessionId::generate());
    let mut seq = Sequencer::new();
    let mut out = String::new();
    for f in frames {
        let env: Envelope = seq.envelope(m, s, f.timestamp, Payload::Frame(Box::new(f.clone())));
        out.push_str(&env.to_json());
        out.push('\n');
    }
    for e in events {
        let env = seq.envelope(m, s, e.timestamp, Payload::Event(e.clone()));
        out.push_str(&env.to_json());
        out.push('\n');
    }
    out
}

/// Both sides through their text formats and parsers.
pub fn load(
    truth: &[FrameTruth],
    events: &[EventTruth],
    pred: &[FrameData],
    pred_events: &[EventData],
) -> (Truth, Predictions) {
    let frames = parse_truth_jsonl(truth_jsonl(truth).as_bytes(), "truth.jsonl").unwrap();
    let ev = parse_events_json(&events_json(events), "events.json").unwrap();
    let p = parse_predictions(pred_jsonl(pred, pred_events).as_bytes(), "pred.jsonl").unwrap();
    (Truth::new(frames, ev), p)
}

/// `n` frames of the objects `ids` at slots 0.. with the ball visible.
pub fn truth_seq(n: u64, ids: &[u32]) -> Vec<FrameTruth> {
    (0..n)
        .map(|t| {
            truth_frame(
                t,
                ids.iter()
                    .enumerate()
                    .map(|(k, &id)| person(id, k))
                    .collect(),
                ball_truth(true),
            )
        })
        .collect()
}

pub fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-9,
        "{what}: got {actual}, expected {expected}"
    );
}
