//! CDF and GSR exports: coordinates and field names.

mod common;

use common::*;
use serde_json::{Value, json};
use sportz_contract::{FrameData, ObjectClass, PitchPoint, TeamSide};
use sportz_eval::export::{
    self, CDF_VERSION, GSR_BALL_TRACK_OFFSET, cdf_meta, cdf_tracking, cdf_tracking_jsonl,
    gsr_labels, gsr_predictions, mot_tracking, to_cdf_pitch, to_gsr_pitch,
};
use sportz_eval::{ExportOptions, parse_predictions};

fn opts() -> ExportOptions {
    ExportOptions {
        kickoff_unix: Some(1_700_000_000.0), // 2023-11-14T22:13:20Z
        ..ExportOptions::default()
    }
}

fn at(x: f64, y: f64) -> PitchPoint {
    PitchPoint { x, y }
}

/// Two frames: a home player at the centre spot, an away player at the (0, 0) corner, a referee
/// at the (105, 68) corner, an unassigned player, and the ball at the centre; frame 1 has an
/// uncalibrated player and no ball.
fn frames() -> Vec<FrameData> {
    let mut home = pred_player(10, 0);
    home.pitch = Some(at(52.5, 34.0));
    let mut away = pred_player(20, 1);
    away.team = Some(TeamSide::Away);
    away.pitch = Some(at(0.0, 0.0));
    let mut referee = pred_player(30, 2);
    referee.class = ObjectClass::Referee;
    referee.team = Some(TeamSide::Other);
    referee.pitch = Some(at(105.0, 68.0));
    let mut nobody = pred_player(40, 3);
    nobody.team = None;
    let mut ball = pred_ball(0.0);
    ball.pitch = Some(at(52.5, 34.0));
    let f0 = pred_frame(0, vec![home.clone(), away, referee, nobody], Some(ball));
    let mut lost = home;
    lost.pitch = None;
    let f1 = pred_frame(1, vec![lost], None);
    // Through the real parser, as the CLI will.
    parse_predictions(pred_jsonl(&[f0, f1], &[]).as_bytes(), "pred.jsonl")
        .unwrap()
        .frames
}

#[test]
fn cdf_and_gsr_put_the_origin_at_the_centre_spot() {
    let o = ExportOptions::default();
    assert_eq!(to_cdf_pitch(at(52.5, 34.0), &o), (0.0, 0.0));
    assert_eq!(to_cdf_pitch(at(0.0, 0.0), &o), (-52.5, 34.0)); // far-left corner: CDF y is up
    assert_eq!(to_cdf_pitch(at(105.0, 68.0), &o), (52.5, -34.0));
    assert_eq!(to_cdf_pitch(at(105.0, 0.0), &o), (52.5, 34.0));
    assert_eq!(to_gsr_pitch(at(52.5, 34.0), &o), (0.0, 0.0));
    assert_eq!(to_gsr_pitch(at(0.0, 0.0), &o), (-52.5, -34.0)); // GSR y points to the camera
    assert_eq!(to_gsr_pitch(at(105.0, 68.0), &o), (52.5, 34.0));
}

#[test]
fn cdf_tracking_frames_follow_the_schema() {
    let rows = cdf_tracking(&frames(), &opts());
    assert_eq!(rows.len(), 2);
    let f0 = &rows[0];
    for key in ["frame_id", "timestamp", "period", "match", "teams", "ball"] {
        assert!(
            f0.get(key).is_some(),
            "CDF frame lacks required `{key}`: {f0}"
        );
    }
    assert_eq!(f0["frame_id"], 0);
    assert_eq!(f0["timestamp"], "2023-11-14T22:13:20Z");
    assert_eq!(rows[1]["timestamp"], "2023-11-14T22:13:20.04Z");
    assert_eq!(f0["period"], "first_half");
    assert_eq!(f0["match"], json!({"id": "sportz"}));
    assert_eq!(
        f0["teams"]["home"],
        json!({"id": "home", "players": [{"id": "track_10", "x": 0.0, "y": 0.0, "is_visible": true}]})
    );
    assert_eq!(
        f0["teams"]["away"],
        json!({"id": "away", "players": [{"id": "track_20", "x": -52.5, "y": 34.0, "is_visible": true}]})
    );
    assert_eq!(
        f0["officials"],
        json!([{"id": "track_30", "x": 52.5, "y": -34.0}])
    );
    assert_eq!(f0["ball"], json!({"x": 0.0, "y": 0.0, "z": null}));
    // Frame 1: the home player without a pitch position, no ball.
    assert_eq!(rows[1]["teams"]["home"]["players"][0]["x"], Value::Null);
    assert_eq!(rows[1]["ball"], json!({"x": null, "y": null, "z": null}));

    let jsonl = cdf_tracking_jsonl(&frames(), &opts());
    assert_eq!(jsonl.lines().count(), 2);
    assert!(jsonl.ends_with('\n'));
    let back: Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(back, rows[0]);
}

#[test]
fn cdf_meta_has_the_required_sections() {
    let m = cdf_meta(&frames(), &opts());
    for key in ["competition", "season", "match", "teams", "venue", "meta"] {
        assert!(m.get(key).is_some(), "CDF meta lacks `{key}`");
    }
    for key in ["id", "kickoff_time", "periods", "whistles"] {
        assert!(
            m["match"].get(key).is_some(),
            "CDF meta.match lacks `{key}`"
        );
    }
    for key in [
        "video",
        "tracking",
        "event",
        "landmarks",
        "meta",
        "ball",
        "cdf",
    ] {
        assert!(m["meta"].get(key).is_some(), "CDF meta.meta lacks `{key}`");
    }
    assert_eq!(m["meta"]["cdf"]["version"], CDF_VERSION);
    assert_eq!(m["meta"]["tracking"]["fps"], 25);
    assert_eq!(m["venue"]["pitch_length"], 105.0);
    assert_eq!(m["venue"]["pitch_width"], 68.0);
    let period = &m["match"]["periods"][0];
    assert_eq!(period["frame_id_start"], 0);
    assert_eq!(period["frame_id_end"], 1);
    assert_eq!(period["play_direction"], "left_right");
    assert_eq!(m["match"]["kickoff_time"], "2023-11-14T22:13:20Z");
    assert_eq!(
        m["teams"]["home"]["players"],
        json!([{"id": "track_10", "team_id": "home", "jersey_number": null, "is_starter": true}])
    );
    assert_eq!(m["teams"]["away"]["players"][0]["id"], "track_20");
}

#[test]
fn gsr_labels_carry_the_soccernet_fields() {
    let g = gsr_labels(&frames(), &opts());
    for key in ["info", "images", "annotations", "categories"] {
        assert!(g.get(key).is_some(), "GSR lacks `{key}`");
    }
    assert_eq!(g["info"]["seq_length"], 2);
    let img = &g["images"][0];
    assert_eq!(img["image_id"], "1000001");
    assert_eq!(img["file_name"], "000001.jpg");
    assert_eq!(
        (img["width"].as_u64(), img["height"].as_u64()),
        (Some(1280), Some(720))
    );
    assert_eq!(g["images"][1]["image_id"], "1000002");

    let anns = g["annotations"].as_array().unwrap();
    // Frame 0: four people and the ball; frame 1: one person.
    assert_eq!(anns.len(), 6);
    let home = &anns[0];
    for key in [
        "id",
        "image_id",
        "track_id",
        "supercategory",
        "category_id",
        "attributes",
        "bbox_image",
        "bbox_pitch",
    ] {
        assert!(
            home.get(key).is_some(),
            "GSR annotation lacks `{key}`: {home}"
        );
    }
    assert_eq!(home["image_id"], "1000001");
    assert_eq!(home["track_id"], 10);
    assert_eq!(home["category_id"], 1);
    assert_eq!(
        home["attributes"],
        json!({"role": "player", "jersey": null, "team": "left"})
    );
    // slot 0 box: [100, 300, 120, 360]
    assert_eq!(
        home["bbox_image"],
        json!({"x": 100.0, "y": 300.0, "x_center": 110.0, "y_center": 330.0, "w": 20.0, "h": 60.0})
    );
    assert_eq!(
        home["bbox_pitch"],
        json!({"x_bottom_middle": 0.0, "y_bottom_middle": 0.0})
    );
    let away = &anns[1];
    assert_eq!(away["attributes"]["team"], "right");
    assert_eq!(
        away["bbox_pitch"],
        json!({"x_bottom_middle": -52.5, "y_bottom_middle": -34.0})
    );
    let referee = &anns[2];
    assert_eq!(
        (
            referee["category_id"].as_u64(),
            referee["attributes"]["role"].as_str()
        ),
        (Some(3), Some("referee"))
    );
    assert_eq!(referee["attributes"]["team"], Value::Null);
    let ball = &anns[4];
    assert_eq!(ball["attributes"]["role"], "ball");
    assert_eq!(ball["category_id"], 4);
    assert_eq!(ball["track_id"], GSR_BALL_TRACK_OFFSET + 1);
    assert_eq!(anns[5]["bbox_pitch"], Value::Null);

    let cats = g["categories"].as_array().unwrap();
    let names: Vec<(u64, &str)> = cats
        .iter()
        .map(|c| (c["id"].as_u64().unwrap(), c["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            (1, "player"),
            (2, "goalkeeper"),
            (3, "referee"),
            (4, "ball"),
            (5, "pitch"),
            (6, "camera"),
            (7, "other")
        ]
    );

    let p = gsr_predictions(&frames(), &opts());
    assert_eq!(p["predictions"].as_array().unwrap().len(), 6);
    let mut first = anns[0].clone();
    first["video_id"] = json!("1");
    assert_eq!(p["predictions"][0], first);
}

#[test]
fn fps_and_times_have_sensible_defaults() {
    let f = frames();
    assert!((export::estimate_fps(&f, &ExportOptions::default()) - 25.0).abs() < 1e-9);
    // Without a kickoff time the first frame's read time minus its video time is video time 0.
    let rows = cdf_tracking(&f, &ExportOptions::default());
    assert_eq!(rows[0]["timestamp"], export::utc(1_760_000_000.0));
    assert_eq!(export::utc(0.0), "1970-01-01T00:00:00Z");
}

#[test]
fn mot_lines_are_one_based_frames_with_ltwh_boxes() {
    let text = mot_tracking(&frames());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines.len(),
        5,
        "four people in frame 0, one in frame 1, no ball: {text}"
    );
    let fields: Vec<Vec<f64>> = lines
        .iter()
        .map(|l| l.split(',').map(|v| v.parse().unwrap()).collect())
        .collect();
    assert!(fields.iter().all(|f| f.len() == 10 && f[7..] == [-1.0; 3]));
    let f = frames();
    let p = &f[0].players[0];
    let row = &fields[0];
    assert_eq!((row[0], row[1]), (1.0, p.track_id as f64));
    assert!((row[2] - p.bbox[0]).abs() < 0.01 && (row[3] - p.bbox[1]).abs() < 0.01);
    assert!((row[4] - (p.bbox[2] - p.bbox[0])).abs() < 0.01);
    assert!((row[5] - (p.bbox[3] - p.bbox[1])).abs() < 0.01);
    assert_eq!(fields[4][0], 2.0, "frame 1 is MOT frame 2");
    assert_eq!(mot_tracking(&[]), "");
}
