//! Golden tests of the wire formats: every fixture parses into its type and re-serialises to the
//! same JSON value, and broken inputs fail with errors that name what is wrong.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use sportz_contract::match_centre::{ClientMessage, ServerMessage};
use sportz_contract::{
    Control, Envelope, FrameData, Heartbeat, Lease, MessageType, Payload, WorkerCommand,
};

fn fixture(name: &str) -> Value {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Parses `name` as `T`, re-serialises it and asserts the JSON value is unchanged.
fn round_trip<T: DeserializeOwned + Serialize>(name: &str) -> T {
    let original = fixture(name);
    let parsed: T = serde_json::from_value(original.clone())
        .unwrap_or_else(|e| panic!("{name} does not parse: {e}"));
    let again = serde_json::to_value(&parsed).unwrap();
    assert_eq!(again, original, "{name} changed on a round trip");
    parsed
}

#[test]
fn seed_frame_data_round_trips_to_the_same_json_value() {
    let frame: FrameData = round_trip("frame_data_seed.json");
    assert_eq!(frame.frame_number, 1221);
    let ball = frame.ball.as_ref().unwrap();
    assert_eq!(ball.pixel.x, 842.0);
    assert_eq!(ball.pitch.unwrap().x, 72.4);
    assert!(!ball.predicted);
    assert_eq!(frame.players[0].track_id, 42);
    // the text form too: whole pixel values stay integers, as in the seed
    let text = serde_json::to_string(&frame).unwrap();
    assert!(text.contains(r#""bbox":[836,385,848,397]"#), "{text}");
    assert!(text.contains(r#""pixel":{"x":842,"y":391}"#), "{text}");
    assert!(text.contains(r#""latency_ms":183.0"#), "{text}");
}

#[test]
fn every_envelope_fixture_round_trips() {
    let cases = [
        ("status.json", MessageType::Status),
        ("status_snapshot_no_session.json", MessageType::Status),
        ("frame.json", MessageType::Frame),
        ("frame_uncalibrated.json", MessageType::Frame),
        ("ball.json", MessageType::Ball),
        ("players.json", MessageType::Players),
        ("event.json", MessageType::Event),
        ("metrics.json", MessageType::Metrics),
        ("error.json", MessageType::Error),
    ];
    for (name, t) in cases {
        let env: Envelope = round_trip(name);
        assert_eq!(env.message_type(), t, "{name}");
        // and through the text helpers
        let again = Envelope::from_json(&env.to_json()).unwrap();
        assert_eq!(again, env, "{name}");
    }
}

#[test]
fn the_frame_envelope_carries_the_seed_data_unchanged() {
    let env: Envelope = round_trip("frame.json");
    let Payload::Frame(frame) = &env.payload else {
        panic!("not a frame: {env:?}")
    };
    assert_eq!(
        serde_json::to_value(frame).unwrap(),
        fixture("frame_data_seed.json")
    );
    assert_eq!(env.seq, 42);
    // the ball and players views of it match their own fixtures
    let ball: Envelope = round_trip("ball.json");
    assert_eq!(ball.payload, Payload::Ball(frame.ball_data()));
    let players: Envelope = round_trip("players.json");
    assert_eq!(players.payload, Payload::Players(frame.players_data()));
}

#[test]
fn worker_records_round_trip() {
    let cmd: WorkerCommand = round_trip("command_start.json");
    assert_eq!(
        cmd.match_id().to_string(),
        "match_01JC4Z8Q7B2M5N3P6R9S0T1V2W"
    );
    let control: Control = round_trip("control.json");
    assert!(!control.wants(&"ses_01JC4Z9A1B2C3D4E5F6G7H8J9Z".parse().unwrap()));
    assert!(control.wants(cmd.session_id()));
    let _: Lease = round_trip("lease.json");
    let hb: Heartbeat = round_trip("heartbeat.json");
    assert_eq!(hb.spare_capacity(), 1);
}

#[test]
fn match_centre_messages_round_trip() {
    for name in ["ws_subscribe.json", "ws_unsubscribe.json"] {
        let msg: ClientMessage = round_trip(name);
        let text = fixture(name).to_string();
        assert_eq!(ClientMessage::from_json(&text).unwrap(), msg);
    }
    for name in [
        "ws_welcome.json",
        "ws_subscribed.json",
        "ws_unsubscribed.json",
        "ws_match_created.json",
        "ws_match_updated.json",
        "ws_score_update.json",
        "ws_commentary.json",
        "ws_error.json",
    ] {
        let msg: ServerMessage = round_trip(name);
        let global = matches!(
            name,
            "ws_match_created.json" | "ws_match_updated.json" | "ws_score_update.json"
        );
        assert_eq!(msg.is_global(), global, "{name}");
    }
}

#[test]
fn start_command_defaults_fill_omitted_settings() {
    let cmd: WorkerCommand = serde_json::from_value(json!({
        "command": "start",
        "match_id": "match_01JC4Z8Q7B2M5N3P6R9S0T1V2W",
        "session_id": "ses_01JC4Z9A1B2C3D4E5F6G7H8J9K",
        "config": {"source": {"type": "synthetic", "value": 7}}
    }))
    .unwrap();
    let WorkerCommand::Start { config, .. } = cmd;
    assert!(config.realtime && config.enable_events && config.calibration.is_empty());
    assert_eq!(config.confidence_threshold, 0.3);
}

fn frame_without(pointer_parent: &str, field: &str) -> String {
    let mut v = fixture("frame.json");
    v.pointer_mut(pointer_parent)
        .and_then(Value::as_object_mut)
        .unwrap()
        .remove(field)
        .unwrap();
    v.to_string()
}

fn check_err(input: &str, needles: &[&str]) {
    let err = Envelope::from_json(input).unwrap_err().to_string();
    for n in needles {
        assert!(err.contains(n), "error `{err}` should mention `{n}`");
    }
}

#[test]
fn a_frame_missing_ball_pixel_is_rejected_naming_pixel() {
    check_err(
        &frame_without("/data/ball", "pixel"),
        &["frame", "`ball`", "`pixel`"],
    );
}

#[test]
fn missing_required_fields_are_named() {
    check_err(
        &frame_without("/data", "latency_ms"),
        &["frame", "`latency_ms`"],
    );
    check_err(
        &frame_without("/data/players/0", "track_id"),
        &["`players[0]`", "`track_id`"],
    );
    check_err(&frame_without("/data/trail/0", "t"), &["`trail[0]`", "`t`"]);
    check_err(&frame_without("", "seq"), &["`seq`"]);
    check_err(&frame_without("", "session_id"), &["`session_id`"]);
    check_err(&frame_without("", "data"), &["`data`"]);
    check_err(&frame_without("", "type"), &["`type`"]);
    // `ball` may be null, but not absent
    check_err(&frame_without("/data", "ball"), &["`ball`"]);
}

#[test]
fn unknown_type_is_rejected_with_the_list_of_types() {
    let mut v = fixture("status.json");
    v["type"] = json!("telemetry");
    check_err(
        &v.to_string(),
        &["unknown message type `telemetry`", "status, frame"],
    );
}

#[test]
fn wrong_types_and_values_are_named() {
    let mut v = fixture("frame.json");
    v["data"]["coordinate_mode"] = json!("metres");
    check_err(&v.to_string(), &["`coordinate_mode`", "metres"]);
    let mut v = fixture("event.json");
    v["data"]["kind"] = json!("tackle");
    check_err(&v.to_string(), &["event", "`kind`", "tackle"]);
    let mut v = fixture("status.json");
    v["match_id"] = json!("match_42");
    check_err(&v.to_string(), &["invalid match id `match_42`"]);
    check_err("not json", &["invalid message"]);
}

#[test]
fn extra_fields_from_newer_producers_are_tolerated() {
    let mut v = fixture("frame.json");
    v["data"]["lens"] = json!({"zoom": 1.2});
    v["data"]["ball"]["height_m"] = json!(0.4);
    let env = Envelope::from_json(&v.to_string()).unwrap();
    assert_eq!(env.message_type(), MessageType::Frame);
}

#[test]
fn a_frame_carries_its_own_camera_as_an_extra_field() {
    let mut v = fixture("frame.json");
    let h = [0.01, 0.002, -3.0, 0.0, 0.03, -5.0, 0.0, 0.0004, 1.0];
    v["data"]["camera"] = json!({"image_to_pitch": h, "source": "tracked", "confidence": 0.9});
    let env = Envelope::from_json(&v.to_string()).unwrap();
    let Payload::Frame(f) = &env.payload else {
        panic!("not a frame")
    };
    let cam = f.camera.as_ref().unwrap();
    assert_eq!(cam.image_to_pitch, h);
    assert_eq!(cam.source, sportz_contract::CameraSource::Tracked);
    // and back out unchanged
    let again: serde_json::Value = serde_json::from_str(&env.to_json()).unwrap();
    assert_eq!(again["data"]["camera"]["source"], json!("tracked"));
    // without it, the frame is byte-for-byte the seed's shape (no `camera` key)
    let plain = Envelope::from_json(&fixture("frame.json").to_string()).unwrap();
    assert!(!plain.to_json().contains("\"camera\""));
    // a malformed camera says what was expected
    v["data"]["camera"] =
        json!({"image_to_pitch": [1, 2, 3], "source": "tracked", "confidence": 1});
    check_err(&v.to_string(), &["camera"]);
    v["data"]["camera"] = json!({"image_to_pitch": h, "source": "guessed", "confidence": 1});
    check_err(&v.to_string(), &["guessed"]);
}
