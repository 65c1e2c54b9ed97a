use sportz_contract::{EventKind, ObjectClass};

use super::*;
use crate::BBox;
use crate::pitch::{PointPair, RansacConfig};

fn meta() -> FrameMeta {
    FrameMeta {
        frame_number: 42,
        video_timestamp: 1.68,
        timestamp: 1_700_000_001.68,
        width: 1000,
        height: 680,
        latency_ms: 12.5,
    }
}

/// Pixels → metres by a pure scale of 0.105 × 0.1.
fn calibration() -> Calibration {
    let pairs =
        [(0.0, 0.0), (1000.0, 0.0), (1000.0, 680.0), (0.0, 680.0)].map(|(x, y)| PointPair {
            image: Point::new(x, y),
            pitch: Point::new(x * 0.105, y / 10.0),
        });
    Calibration::fit(&pairs, &RansacConfig::default()).unwrap()
}

fn ball() -> BallState {
    BallState {
        track_id: 3,
        bbox: BBox::new(496.0, 336.0, 504.0, 344.0),
        pixel: Point::new(500.0, 340.0),
        pitch: Some(Point::new(52.5, 34.4)),
        confidence: 0.7,
        velocity_px_s: (30.0, 40.0),
        speed_px_s: 50.0,
        velocity_mps: Some((3.0, 4.0)),
        speed_mps: Some(5.0),
        predicted: true,
        height_m: None,
    }
}

fn people() -> Vec<Detection> {
    let mut p = Detection::new(BBox::new(90.0, 100.0, 110.0, 200.0), 0.9, 0)
        .with_class(ObjectClass::Player);
    p.track_id = Some(7);
    let untracked =
        Detection::new(BBox::new(0.0, 0.0, 5.0, 5.0), 0.9, 0).with_class(ObjectClass::Player);
    vec![p, untracked]
}

#[test]
fn uncalibrated_frames_are_pixel_mode_with_null_pitch_fields() {
    let trail = [TrailSample {
        t: 1.64,
        pixel: Point::new(498.0, 338.0),
        pitch: Some(Point::new(1.0, 1.0)),
        ground: Some(Point::new(1.0, 1.0)),
        predicted: false,
    }];
    let f = build_frame(&meta(), Some(&ball()), &trail, &people(), None, None);
    assert_eq!(f.coordinate_mode, CoordinateMode::Pixel);
    let json = serde_json::to_value(&f).unwrap();
    assert_eq!(json["ball"]["pitch"], serde_json::Value::Null);
    assert_eq!(json["trail"][0]["pitch"], serde_json::Value::Null);
    assert_eq!(json["players"][0]["pitch"], serde_json::Value::Null);
    assert_eq!(
        json["players"].as_array().unwrap().len(),
        1,
        "untracked people are left out"
    );
    assert_eq!(json["ball"]["predicted"], true);
    assert_eq!(json["ball"]["speed"], 50.0);
    assert_eq!(
        json["ball"]["velocity"],
        serde_json::json!({"x": 30.0, "y": 40.0})
    );
    assert_eq!(json["players"][0]["class"], "player");
    assert!(
        json["players"][0].get("team").is_none(),
        "no side known: the extra field is absent"
    );
    let back: FrameData = serde_json::from_value(json).unwrap();
    assert_eq!(back, f);
}

#[test]
fn calibrated_frames_carry_metres_and_teams() {
    let cal = calibration();
    let mut teams = TeamAssigner::new(crate::teams::TeamConfig::default());
    for _ in 0..5 {
        teams.observe(7, Some(ObjectClass::Referee), None);
    }
    let f = build_frame(&meta(), None, [], &people(), Some(&teams), Some(&cal));
    assert_eq!(f.coordinate_mode, CoordinateMode::Pitch);
    assert_eq!(f.ball, None);
    let p = &f.players[0];
    let pitch = p.pitch.unwrap();
    // foot point (100, 200) px → (10.5, 20) m
    assert!(
        (pitch.x - 10.5).abs() < 1e-9 && (pitch.y - 20.0).abs() < 1e-9,
        "{pitch:?}"
    );
    assert_eq!(p.team, Some(TeamSide::Other));
    assert_eq!((p.track_id, p.bbox), (7, [90.0, 100.0, 110.0, 200.0]));
    let (b, players) = event_inputs(Some(&ball()), &people(), Some(&teams), Some(&cal), None);
    assert_eq!(b.unwrap().pitch, Some(Point::new(52.5, 34.4)));
    assert_eq!(players.len(), 1);
    assert_eq!(players[0].team, Some(TeamSide::Other));
    let (b, players) = event_inputs(Some(&ball()), &people(), None, None, None);
    assert_eq!(b.unwrap().pitch, None, "no calibration, no metres");
    assert_eq!(players[0].pitch, None);
    // a referee is published in the frame but never has the ball
    let mut referee = people();
    referee[0].class = Some(ObjectClass::Referee);
    let f = build_frame(
        &meta(),
        Some(&ball()),
        &[],
        &referee,
        Some(&teams),
        Some(&cal),
    );
    assert_eq!(f.players.len(), 1);
    let (_, players) = event_inputs(Some(&ball()), &referee, Some(&teams), Some(&cal), None);
    assert!(players.is_empty(), "{players:?}");
}

fn event(frame_number: u64, seq: u16, timestamp: f64) -> Event {
    Event {
        kind: EventKind::Pass,
        frame_number,
        video_timestamp: 3.0,
        timestamp,
        seq,
        pitch: Some(Point::new(30.0, 40.0)),
        team: Some(TeamSide::Home),
        player_track_id: Some(4),
        confidence: 0.8,
        details: serde_json::Map::new(),
    }
}

#[test]
fn event_ids_are_deterministic_per_match_frame_and_seq() {
    let m1 = MatchId::from_ulid(Ulid::from_parts(1_000, 0xABCD_EF01_2345_6789_ABCD));
    let m2 = MatchId::from_ulid(Ulid::from_parts(1_000, 0x1111_2222_3333_4444_5555));
    let ids = EventIds::new(m1);
    let a = event_data(&event(100, 0, 1_700_000_000.5), &ids);
    assert_eq!(
        a.event_id,
        event_data(&event(100, 0, 1_700_000_000.5), &ids).event_id,
        "same input, same id"
    );
    let distinct = [
        event_data(&event(100, 1, 1_700_000_000.5), &ids).event_id,
        event_data(&event(101, 0, 1_700_000_000.5), &ids).event_id,
        event_data(&event(100, 0, 1_700_000_000.5), &EventIds::new(m2)).event_id,
    ];
    assert!(distinct.iter().all(|id| *id != a.event_id), "{distinct:?}");
    assert_eq!(a.event_id.ulid().timestamp_ms(), 1_700_000_000_500);
    assert!(
        event_data(&event(90, 0, 1_700_000_000.4), &ids).event_id < a.event_id,
        "ids sort by time"
    );
    assert!(a.event_id.to_string().starts_with("evt_"));
    assert_eq!(
        (a.kind, a.frame_number, a.team, a.player_track_id),
        (EventKind::Pass, 100, Some(TeamSide::Home), Some(4))
    );
    assert_eq!(a.pitch, Some(PitchPoint { x: 30.0, y: 40.0 }));
}

#[test]
fn the_learnt_kit_colours_go_out_with_the_frame() {
    let mut teams = TeamAssigner::new(crate::teams::TeamConfig::default());
    let f = build_frame(&meta(), None, [], &people(), Some(&teams), None);
    assert_eq!(f.kits, None, "not learnt yet");
    // dark red shirts and white shirts, with a little noise, until the model is fitted
    for i in 0..60u16 {
        let e = f32::from(i % 5) * 0.004;
        let (id, colour) = if i % 2 == 0 {
            (1_u64, [0.6 + e, 0.1, 0.1])
        } else {
            (2, [0.95, 0.95 - e, 0.95])
        };
        teams.observe(id, Some(ObjectClass::Player), Some(colour));
    }
    let kits = build_frame(&meta(), None, [], &people(), Some(&teams), None)
        .kits
        .expect("kits once the two sides are known");
    // home is the darker kit
    let [home, away] = kits.rgb().expect("#rrggbb colours");
    assert!((150..=160).contains(&home[0]), "{kits:?}");
    assert!((24..=27).contains(&home[1]), "{kits:?}");
    assert!((238..=243).contains(&away[2]), "{kits:?}");
    assert_eq!(
        build_frame(&meta(), None, [], &people(), None, None).kits,
        None,
        "teams off: no kits"
    );
}

/// A ball speed no kick reaches (a track hopping between candidates) is not published.
#[test]
fn a_ball_faster_than_any_kick_has_no_speed() {
    let cal = calibration();
    let speed = |mps: f64| {
        let b = BallState {
            speed_mps: Some(mps),
            ..ball()
        };
        build_frame(&meta(), Some(&b), [], &[], None, Some(&cal))
            .ball
            .unwrap()
            .speed_mps
    };
    assert_eq!(speed(25.0), Some(25.0));
    assert_eq!(speed(95.0), None);
}

#[test]
fn the_event_engine_is_told_where_the_camera_stands() {
    // a main camera 38 m behind the near touchline, 15 m up, aimed at the centre spot
    let truth = crate::camera::BroadcastCamera {
        position: [50.0, 106.0, 15.0],
        pan: (2.5f64).atan2(72.0),
        tilt: (15.0f64).atan2(2.5f64.hypot(72.0)),
        roll: 0.0,
        focal_px: 1400.0,
        width: 1280,
        height: 720,
    };
    let cal = calibration();
    // the analyser's physical camera, with its calibration
    let (b, _) = event_inputs(Some(&ball()), &[], None, Some(&cal), Some(&truth));
    assert_eq!(b.unwrap().camera_at, Some(Point::new(50.0, 106.0)));
    // none without a calibration (pixel mode), nor without a physical camera
    let (b, _) = event_inputs(Some(&ball()), &[], None, None, Some(&truth));
    assert_eq!(b.unwrap().camera_at, None);
    let (b, _) = event_inputs(Some(&ball()), &[], None, Some(&cal), None);
    assert_eq!(b.unwrap().camera_at, None);
    // a published frame carries only its homography: the camera decomposed from it
    let image_from_pitch = truth.image_from_pitch().unwrap();
    let at = camera_on_ground(&image_from_pitch, 1280, 720).unwrap();
    assert!(at.distance(&Point::new(50.0, 106.0)) < 0.01, "{at:?}");
    // no camera fits a top-down view
    let top_down = Homography::from_matrix([[4.0, 0.0, 10.0], [0.0, 4.0, 10.0], [0.0, 0.0, 1.0]]);
    assert_eq!(camera_on_ground(&top_down.unwrap(), 1280, 720), None);
}

#[test]
fn a_published_camera_reads_back_as_the_calibration_it_came_from() {
    let cal = calibration();
    let mut f = build_frame(&meta(), None, [], &people(), None, Some(&cal));
    f.camera = Some(
        crate::camera::FrameCameraEstimate {
            camera: None,
            calibration: cal.clone(),
            source: sportz_contract::CameraSource::Manual,
            confidence: 1.0,
        }
        .to_contract(),
    );
    let read = published_image_from_pitch(&f).expect("a camera");
    for p in [
        Point::new(0.0, 0.0),
        Point::new(52.5, 34.0),
        Point::new(105.0, 68.0),
    ] {
        let (a, b) = (
            read.apply(p).unwrap(),
            cal.image_from_pitch.apply(p).unwrap(),
        );
        assert!(a.distance(&b) < 1e-6, "{p:?}: {a:?} against {b:?}");
    }
    // a frame in pixel mode has none, whatever it carries
    f.coordinate_mode = CoordinateMode::Pixel;
    assert_eq!(published_image_from_pitch(&f), None);
}
