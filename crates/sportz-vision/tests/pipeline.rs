//! One story through the whole crate: a constructed scene rendered to RGB, a YOLOv8-layout output
//! tensor built from it, then decode → track → teams → ball → events → contract messages.

use sportz_contract::{CoordinateMode, EventKind, MatchId, TeamSide};
use sportz_vision::ball::{BallConfig, BallTracker};
use sportz_vision::detect::{
    DecodeConfig, InputTransform, ModelAdapter, ModelSpec, OutputTensor, TensorShape,
};
use sportz_vision::events::{EventConfig, EventEngine, EventFrame};
use sportz_vision::frame::{EventIds, FrameMeta, build_frame, event_data, event_inputs};
use sportz_vision::pitch::{Calibration, PointPair, RansacConfig};
use sportz_vision::teams::{TeamAssigner, TeamConfig, torso_colour};
use sportz_vision::track::{ByteTracker, TrackerConfig};
use sportz_vision::{Point, RgbImage};

/// 4 px per metre: the image is a top-down view of the pitch.
const PX_PER_M: f64 = 4.0;
const W: u32 = 420;
const H: u32 = 272;
const INPUT: (u32, u32) = (640, 640);
const ANCHORS: usize = 8400;

const RED: [u8; 3] = [200, 25, 25];
const BLUE: [u8; 3] = [25, 40, 180];

struct Person {
    /// Foot point, metres.
    at: Point,
    shirt: [u8; 3],
}

/// The pixel box of a person standing at `p` (metres): 8×20 px, feet at the bottom centre.
fn person_box(p: Point) -> [f64; 4] {
    let (x, y) = (p.x * PX_PER_M, p.y * PX_PER_M);
    [x - 4.0, y - 20.0, x + 4.0, y]
}

fn render(people: &[Person]) -> Vec<u8> {
    let mut img: Vec<u8> = (0..W * H).flat_map(|_| [40, 140, 40]).collect();
    for person in people {
        let [x1, y1, x2, y2] = person_box(person.at);
        for y in y1 as u32..y2 as u32 {
            for x in x1 as u32..x2 as u32 {
                let colour = if f64::from(y) < y1 + 10.0 {
                    person.shirt
                } else {
                    [20, 20, 20]
                };
                let i = ((y * W + x) * 3) as usize;
                img[i..i + 3].copy_from_slice(&colour);
            }
        }
    }
    img
}

/// A YOLOv8 output `[1, 6, 8400]` (classes person, sports ball) with one anchor per object.
fn model_output(t: &InputTransform, people: &[Person], ball: Point) -> Vec<f32> {
    let mut data = vec![0.0f32; 6 * ANCHORS];
    let mut put = |i: usize, b: [f64; 4], class: usize, score: f32| {
        let (x1, y1) = t.to_input(b[0], b[1]);
        let (x2, y2) = t.to_input(b[2], b[3]);
        let v = [(x1 + x2) / 2.0, (y1 + y2) / 2.0, x2 - x1, y2 - y1];
        for (ch, value) in v.into_iter().enumerate() {
            data[ch * ANCHORS + i] = value as f32;
        }
        data[(4 + class) * ANCHORS + i] = score;
    };
    for (i, p) in people.iter().enumerate() {
        put(100 + i, person_box(p.at), 0, 0.9);
    }
    // the ball: 2×2 px, resting on the ground at its position
    let (bx, by) = (ball.x * PX_PER_M, ball.y * PX_PER_M);
    put(5000, [bx - 1.0, by - 2.0, bx + 1.0, by], 1, 0.7);
    data
}

#[test]
fn a_pass_between_teammates_from_tensors_to_contract_messages() {
    let outputs = [TensorShape::new("output0", &[1, 6, ANCHORS as i64])];
    let metadata = [(
        "names".to_owned(),
        "{0: 'person', 1: 'sports ball'}".to_owned(),
    )];
    let adapter = ModelAdapter::new(&ModelSpec {
        input: INPUT,
        outputs: &outputs,
        metadata: &metadata,
        sidecar_names: None,
    })
    .unwrap();
    let corners = [(0.0, 0.0), (105.0, 0.0), (105.0, 68.0), (0.0, 68.0)];
    let pairs = corners.map(|(x, y)| PointPair {
        image: Point::new(x * PX_PER_M, y * PX_PER_M),
        pitch: Point::new(x, y),
    });
    let calibration = Calibration::fit(&pairs, &RansacConfig::default()).unwrap();

    let mut tracker = ByteTracker::new(TrackerConfig::default());
    let mut ball_tracker = BallTracker::new(BallConfig::default());
    let mut teams = TeamAssigner::new(TeamConfig::default());
    let mut engine = EventEngine::new(EventConfig::default());
    let ids = EventIds::new(MatchId::generate());
    let mut events = Vec::new();
    let mut last_frame = None;

    let (p1, p2, p3) = (
        Point::new(30.0, 30.0),
        Point::new(30.0, 40.0),
        Point::new(60.0, 20.0),
    );
    for f in 0..60u32 {
        let t = f64::from(f) / 25.0;
        // the ball at player 1's feet, rolled 9 m to player 2 over 20 frames, then at theirs
        let ball = match f {
            0..20 => Point::new(30.3, 30.5),
            20..40 => Point::new(30.3, 30.5 + 9.0 * f64::from(f - 19) / 20.0),
            _ => Point::new(30.3, 39.5),
        };
        let people = [
            Person { at: p1, shirt: RED },
            Person { at: p2, shirt: RED },
            Person {
                at: p3,
                shirt: BLUE,
            },
        ];
        let pixels = render(&people);
        let image = RgbImage::new(&pixels, W, H).unwrap();
        // the input tensor itself is checked once (resampling 640×640 is slow in debug builds)
        let transform = if f == 0 {
            let (input, transform) = adapter.prepare(&image);
            assert_eq!(input.len(), 3 * 640 * 640);
            transform
        } else {
            InputTransform::new(adapter.preprocess(), (W, H), INPUT)
        };
        let data = model_output(&transform, &people, ball);
        let shape = [1, 6, ANCHORS];
        let detections = adapter
            .decode(
                &[OutputTensor {
                    name: "output0",
                    shape: &shape,
                    data: &data,
                }],
                &transform,
                &DecodeConfig::default(),
            )
            .unwrap();
        assert_eq!(
            (detections.people().len(), detections.balls().len()),
            (3, 1),
            "frame {f}"
        );

        let players = tracker.update(&detections.people());
        for p in &players {
            teams.observe(p.track_id.unwrap(), p.class, torso_colour(&image, &p.bbox));
        }
        let step = ball_tracker.update(t, &detections.balls(), Some(&calibration));
        let (ball_obs, player_obs) = event_inputs(
            step.ball.as_ref(),
            &players,
            Some(&teams),
            Some(&calibration),
            None,
        );
        let frame_events = engine.step(&EventFrame {
            frame_number: u64::from(f),
            video_timestamp: t,
            timestamp: 1_700_000_000.0 + t,
            ball: ball_obs,
            players: &player_obs,
        });
        events.extend(frame_events.iter().map(|e| event_data(e, &ids)));
        let meta = FrameMeta {
            frame_number: u64::from(f),
            video_timestamp: t,
            timestamp: 1_700_000_000.0 + t,
            width: W,
            height: H,
            latency_ms: 0.0,
        };
        last_frame = Some(build_frame(
            &meta,
            step.ball.as_ref(),
            ball_tracker.trail(),
            &players,
            Some(&teams),
            Some(&calibration),
        ));
    }

    let kinds: Vec<(EventKind, Option<u64>)> =
        events.iter().map(|e| (e.kind, e.player_track_id)).collect();
    assert_eq!(
        kinds,
        [
            (EventKind::Possession, Some(1)),
            (EventKind::Pass, Some(1)),
            (EventKind::Possession, Some(2))
        ]
    );
    let pass = &events[1];
    assert_eq!(pass.details["receiver"], 2);
    assert!(pass.team.is_some() && pass.team != Some(TeamSide::Other));
    assert!(
        events.windows(2).all(|w| w[0].event_id < w[1].event_id),
        "ids sort by time"
    );

    let frame = last_frame.unwrap();
    assert_eq!(frame.coordinate_mode, CoordinateMode::Pitch);
    assert_eq!(frame.players.len(), 3);
    let side = |id: u64| {
        frame
            .players
            .iter()
            .find(|p| p.track_id == id)
            .and_then(|p| p.team)
    };
    assert!(
        side(1).is_some() && side(1) == side(2) && side(3).is_some() && side(3) != side(1),
        "{:?}",
        frame.players
    );
    for (p, truth) in frame.players.iter().zip([p1, p2, p3]) {
        let m = p.pitch.unwrap();
        assert!(
            (m.x - truth.x).abs() < 0.3 && (m.y - truth.y).abs() < 0.3,
            "{p:?} vs {truth:?}"
        );
    }
    let ball = frame.ball.clone().unwrap();
    let m = ball.pitch.unwrap();
    assert!(
        (m.x - 30.3).abs() < 0.3 && (m.y - 39.5).abs() < 0.3,
        "{ball:?}"
    );
    assert!(!ball.predicted);
    assert_eq!(frame.trail.len(), 30);
    let json = serde_json::to_string(&frame).unwrap();
    assert!(json.contains("\"coordinate_mode\":\"pitch\""));
}
