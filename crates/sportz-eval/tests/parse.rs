//! Malformed inputs fail with errors that name the input and the line.

mod common;

use common::*;
use sportz_eval::{EvalError, parse_events_json, parse_predictions, parse_truth_jsonl};

#[test]
fn a_truth_line_without_camera_is_named() {
    let frames = truth_seq(3, &[1]);
    let mut lines: Vec<String> = truth_jsonl(&frames).lines().map(str::to_owned).collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[1]).unwrap();
    v.as_object_mut().unwrap().remove("camera");
    lines[1] = v.to_string();
    // A blank line first: line numbers still count it.
    let text = format!("\n{}\n", lines.join("\n"));
    let err = parse_truth_jsonl(text.as_bytes(), "truth.jsonl").unwrap_err();
    assert!(matches!(err, EvalError::Line { line: 3, .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.starts_with("truth.jsonl line 3: expected a FrameTruth: missing field `camera`"),
        "{msg}"
    );
}

#[test]
fn a_truth_line_that_is_not_json_is_named() {
    let text = truth_jsonl(&truth_seq(1, &[])) + "{not json\n";
    let err = parse_truth_jsonl(text.as_bytes(), "t.jsonl").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("t.jsonl line 2: expected a FrameTruth: "),
        "{err}"
    );
}

#[test]
fn an_empty_truth_is_an_error() {
    let err = parse_truth_jsonl("\n\n".as_bytes(), "truth.jsonl").unwrap_err();
    assert!(matches!(err, EvalError::Empty { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("truth.jsonl: no frames"),
        "{err}"
    );
}

#[test]
fn a_bad_prediction_line_names_the_line_and_the_field() {
    let frames: Vec<_> = (0..3)
        .map(|t| pred_frame(t, vec![pred_player(1, 0)], None))
        .collect();
    let mut lines: Vec<String> = pred_jsonl(&frames, &[])
        .lines()
        .map(str::to_owned)
        .collect();
    let mut v: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    v["data"]["players"][0]
        .as_object_mut()
        .unwrap()
        .remove("bbox");
    lines[2] = v.to_string();
    let err = parse_predictions(lines.join("\n").as_bytes(), "pred.jsonl").unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.starts_with("pred.jsonl line 3: expected a contract message: "),
        "{msg}"
    );
    assert!(msg.contains("players[0]") && msg.contains("bbox"), "{msg}");
}

#[test]
fn predictions_without_frames_are_an_error_that_says_so() {
    let text = pred_jsonl(&[], &[pred_event(sportz_contract::EventKind::Pass, 1.0)]);
    let err = parse_predictions(text.as_bytes(), "pred.jsonl").unwrap_err();
    assert!(matches!(err, EvalError::Empty { .. }), "{err:?}");
    assert_eq!(
        err.to_string(),
        "pred.jsonl: no frame messages (1 event and 0 other messages); expected the JSONL that `sportz track` writes"
    );
    let err = parse_predictions("".as_bytes(), "pred.jsonl").unwrap_err();
    assert!(err.to_string().contains("no frame messages"), "{err}");
}

#[test]
fn events_json_must_be_an_array_of_events() {
    assert!(parse_events_json("[]", "events.json").unwrap().is_empty());
    let err = parse_events_json(r#"[{"seq": 1}]"#, "events.json").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("events.json: expected a JSON array of EventTruth: missing field"),
        "{err}"
    );
}

#[test]
fn frames_and_events_round_trip_through_the_parsers() {
    let frames: Vec<_> = (0..2)
        .map(|t| pred_frame(t, vec![pred_player(7, 1)], Some(pred_ball(0.0))))
        .collect();
    let events = [pred_event(sportz_contract::EventKind::Shot, 0.04)];
    let p = parse_predictions(pred_jsonl(&frames, &events).as_bytes(), "p").unwrap();
    assert_eq!(p.frames, frames);
    assert_eq!(p.events.len(), 1);
    assert_eq!(p.events[0].kind, sportz_contract::EventKind::Shot);
    assert_eq!(p.other_messages, 0);
}
