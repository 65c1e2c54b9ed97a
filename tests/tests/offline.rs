//! The offline loop a user runs to measure the pipeline: `sportz synth` → `sportz track` (the
//! built-in detector, `--annotate`, `--export cdf,gsr`) → `sportz eval`, on a seed the built-in
//! model never trained on.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;
use sportz_e2e::sportz_bin;

fn sportz(args: &[&str], dir: &Path) -> Output {
    Command::new(sportz_bin())
        .args(args)
        .current_dir(dir)
        .env_remove("DISPLAY")
        .env_remove("SPORTZ_MODEL")
        .output()
        .expect("sportz starts")
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// `sportz eval ARGS --json`, parsed.
fn eval_json(args: &[&str], dir: &Path) -> Value {
    let mut all = vec!["eval"];
    all.extend_from_slice(args);
    all.push("--json");
    serde_json::from_str(&ok(&sportz(&all, dir))).expect("eval prints JSON")
}

#[test]
fn synth_track_eval_with_the_built_in_detector() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&sportz(
        &["synth", "--seed", "4243", "--seconds", "4", "--out", "m"],
        d,
    ));
    let tracked = ok(&sportz(
        &[
            "track",
            "m/match.mp4",
            "--calibration",
            "m/calibration.json",
            "--out",
            "run.jsonl",
            "--annotate",
            "run.mp4",
            "--export",
            "cdf,gsr,mot",
        ],
        d,
    ));
    assert!(tracked.contains("wrote 100 frames"), "{tracked}");
    assert!(tracked.contains("wrote 100 annotated frames"), "{tracked}");

    // the annotated video: every frame, the source's size
    let v = sportz_testkit::video_facts(&d.join("run.mp4"));
    assert_eq!((v.codec.as_str(), v.width, v.height), ("h264", 1280, 720));
    assert_eq!(v.frames, 100);

    // CDF: a frame a line in metres from the centre, plus the meta; GSR: predictions
    let cdf = std::fs::read_to_string(d.join("run.cdf.jsonl")).unwrap();
    assert_eq!(cdf.lines().count(), 100);
    let first: Value = serde_json::from_str(cdf.lines().next().unwrap()).unwrap();
    let players = first["teams"]["home"]["players"].as_array().unwrap().len()
        + first["teams"]["away"]["players"].as_array().unwrap().len();
    assert!(players >= 5, "players in the first CDF frame: {first}");
    for p in first["teams"]["home"]["players"].as_array().unwrap() {
        let (x, y) = (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap());
        assert!(
            x.abs() <= 52.5 + 1e-6 && y.abs() <= 34.0 + 1e-6,
            "centred metres: {p}"
        );
    }
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.cdf.meta.json")).unwrap())
            .unwrap();
    assert_eq!(meta["venue"]["pitch_length"], 105.0, "{meta}");
    let gsr: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("run.gsr.json")).unwrap()).unwrap();
    assert!(gsr["predictions"].as_array().unwrap().len() > 100 * 5);
    // MOT: TrackEval's tracker layout, frames from 1 to 100
    let mot = std::fs::read_to_string(d.join("run.mot.txt")).unwrap();
    let rows: Vec<Vec<&str>> = mot.lines().map(|l| l.split(',').collect()).collect();
    assert!(
        rows.len() > 100 * 5 && rows.iter().all(|r| r.len() == 10),
        "{mot:.300}"
    );
    let frames: Vec<u64> = rows.iter().map(|r| r[0].parse().unwrap()).collect();
    assert_eq!(
        (frames.iter().min(), frames.iter().max()),
        (Some(&1), Some(&100))
    );

    // eval: the built-in detector finds and tracks the players and the ball on an unseen seed
    let table = ok(&sportz(
        &["eval", "--truth", "m/truth.jsonl", "--pred", "run.jsonl"],
        d,
    ));
    for heading in ["HOTA", "IDF1", "recall", "pitch error", "goal", "ball_out"] {
        assert!(table.contains(heading), "{heading} in\n{table}");
    }
    // several runs at once: each table, then the mean and the worst run
    let pair = ["--truth", "m/truth.jsonl", "--pred", "run.jsonl"];
    let both = ok(&sportz(&[&["eval"][..], &pair, &pair].concat(), d));
    assert_eq!(both.matches("== run ").count(), 2, "{both}");
    assert!(both.contains("mean") && both.contains("worst"), "{both}");
    let json = eval_json(&["--truth", "m/truth.jsonl", "--pred", "run.jsonl"], d);
    let hota = json["players"]["hota"].as_f64().unwrap();
    let recall = json["ball"]["recall"].as_f64().unwrap();
    assert!(hota > 0.4, "player HOTA {hota}: {json}");
    assert!(recall > 0.5, "ball recall {recall}: {json}");
}

/// Issue 17's bad input: a 5-second clip in which both teams wear one kit and the ball is never
/// seen. `track` gets through it with every frame written and invents no play with a ball it
/// never saw: no pass, shot, goal or ball out; and once the sides' shirt colours are learnt it
/// tells no two sides apart (`team: null`; session 25's build split one kit in two "teams" by
/// its shading). What it does publish is printed: the painted centre spot passes for a ball at
/// rest at the kick-off (BENCHMARKS.md, "Session 25").
#[test]
fn track_gets_through_one_kit_and_no_ball_without_inventing_play_or_sides() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&sportz(
        &[
            "synth",
            "--seed",
            "5150",
            "--seconds",
            "5",
            "--one-kit",
            "--no-ball",
            "--out",
            "m",
        ],
        d,
    ));
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("m/meta.json")).unwrap()).unwrap();
    assert_eq!(meta["config"]["one_kit"], true, "{meta}");
    assert_eq!(meta["config"]["ball"], false, "{meta}");
    ok(&sportz(&["track", "m/match.mp4", "--out", "run.jsonl"], d));
    let run: Vec<Value> = std::fs::read_to_string(d.join("run.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let frames: Vec<&Value> = run.iter().filter(|v| v["type"] == "frame").collect();
    assert_eq!(frames.len(), 125);
    let kinds: Vec<&str> = run
        .iter()
        .filter(|v| v["type"] == "event")
        .map(|v| v["data"]["kind"].as_str().unwrap())
        .collect();
    for invented in ["pass", "shot", "goal", "ball_out"] {
        assert!(
            !kinds.contains(&invented),
            "{invented} without a ball: {kinds:?}"
        );
    }
    let with_ball = frames
        .iter()
        .filter(|f| !f["data"]["ball"].is_null())
        .count();
    let mut sides = std::collections::BTreeMap::<String, usize>::new();
    for f in &frames {
        for p in f["data"]["players"].as_array().unwrap() {
            *sides.entry(p["team"].to_string()).or_default() += 1;
        }
    }
    println!(
        "one kit, no ball: a ball on {with_ball} of 125 frames, events {kinds:?}, sides {sides:?}"
    );
    // one kit is no two sides (issue 17, bad input: `team: null`) once each side's shirt colour
    // is learnt, within the first second (frame 9 was the last with a side)
    let split: Vec<(u64, String)> = frames[25..]
        .iter()
        .flat_map(|f| {
            f["data"]["players"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["team"] == "home" || p["team"] == "away")
                .map(|p| {
                    (
                        f["data"]["frame_number"].as_u64().unwrap(),
                        p["team"].to_string(),
                    )
                })
        })
        .collect();
    assert!(split.is_empty(), "sides told apart in one kit: {split:?}");
}

/// Issue 15: no clicks. `track` without `--calibration` finds the broadcast camera from the pitch
/// lines and follows it through the pans and zooms; `eval` scores the per-frame camera and the
/// player positions it gives. Thresholds are set from the benchmark (BENCHMARKS.md, "Camera"):
/// seed 4242 gave 0.60 m camera and 0.64 m player error; this 6 s clip (seed 7373) gave 80 %
/// of frames calibrated (the first second goes to initialisation attempts) at 0.38 m.
#[test]
fn track_without_a_calibration_finds_the_camera_from_the_lines() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&sportz(
        &["synth", "--seed", "7373", "--seconds", "6", "--out", "m"],
        d,
    ));
    ok(&sportz(&["track", "m/match.mp4", "--out", "run.jsonl"], d));
    let run = std::fs::read_to_string(d.join("run.jsonl")).unwrap();
    let frames: Vec<Value> = run
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "frame")
        .collect();
    assert_eq!(frames.len(), 150);
    // every frame with a camera is in pitch mode and says where its camera came from
    for f in &frames {
        let cam = &f["data"]["camera"];
        let mode = f["data"]["coordinate_mode"].as_str().unwrap();
        assert_eq!(cam.is_object(), mode == "pitch", "{}", f["data"]);
        if cam.is_object() {
            assert_eq!(cam["image_to_pitch"].as_array().unwrap().len(), 9);
            assert!(["auto", "tracked"].contains(&cam["source"].as_str().unwrap()));
        }
    }
    let json = eval_json(&["--truth", "m/truth.jsonl", "--pred", "run.jsonl"], d);
    let cam = &json["camera"];
    let calibrated = cam["calibrated_share"].as_f64().unwrap();
    let cam_error = cam["mean_error_m"].as_f64().unwrap();
    let player_error = json["players"]["pitch_error_m"].as_f64().unwrap();
    assert!(calibrated >= 0.7, "calibrated share {calibrated}: {cam}");
    assert!(cam_error < 1.0, "camera mean error {cam_error} m: {cam}");
    assert!(
        player_error < 3.0,
        "player pitch error {player_error} m: {json}"
    );
}

/// `sportz calibrate` on a still (a synthetic frame whose camera is known) and `sportz eval
/// --cameras --keypoints` on keypoint labels written from that camera, in the labelled
/// datasets' format; a grey image gets no camera and says why.
#[test]
fn calibrate_finds_the_camera_of_a_still_and_eval_scores_it_on_keypoints() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&sportz(
        &["synth", "--seed", "7474", "--seconds", "1", "--out", "m"],
        d,
    ));
    std::fs::create_dir_all(d.join("images")).unwrap();
    std::fs::create_dir_all(d.join("labels")).unwrap();
    let png = |args: &[&str], out: &str| {
        let st = Command::new("ffmpeg")
            .args(["-v", "error", "-y"])
            .args(args)
            .args(["-frames:v", "1", out])
            .current_dir(d)
            .status()
            .unwrap();
        assert!(st.success(), "ffmpeg {args:?}");
    };
    png(&["-i", "m/match.mp4"], "images/frame0.png");
    png(
        &["-f", "lavfi", "-i", "color=c=gray:s=640x360"],
        "images/grey.png",
    );
    // labels: the 32 template keypoints through the frame's true camera (normalised, v = 2
    // when inside the frame)
    let truth: Value = serde_json::from_str(
        std::fs::read_to_string(d.join("m/truth.jsonl"))
            .unwrap()
            .lines()
            .next()
            .unwrap(),
    )
    .unwrap();
    let m: Vec<Vec<f64>> =
        serde_json::from_value(truth["camera"]["image_from_pitch"].clone()).unwrap();
    let mut label = "0 0.5 0.5 1 1".to_owned();
    for (x, y) in sportz_eval::keypoints::KEYPOINT_LANDMARKS {
        let w = m[2][0] * x + m[2][1] * y + m[2][2];
        let (u, v) = (
            (m[0][0] * x + m[0][1] * y + m[0][2]) / w / 1280.0,
            (m[1][0] * x + m[1][1] * y + m[1][2]) / w / 720.0,
        );
        let vis = if w > 0.0 && (0.0..1.0).contains(&u) && (0.0..1.0).contains(&v) {
            2
        } else {
            0
        };
        label.push_str(&format!(" {u} {v} {vis}"));
    }
    std::fs::write(d.join("labels/frame0.txt"), label).unwrap();
    std::fs::write(d.join("images/notes.txt"), "not an image").unwrap();

    let said = ok(&sportz(
        &[
            "calibrate",
            "images",
            "--out",
            "cams.jsonl",
            "--draw",
            "drawn",
        ],
        d,
    ));
    assert!(said.contains("wrote 2 images (1 with a camera)"), "{said}");
    let cams = std::fs::read_to_string(d.join("cams.jsonl")).unwrap();
    let lines: Vec<Value> = cams
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        lines[0]["camera"]["image_to_pitch"].is_array(),
        "{}",
        lines[0]
    );
    assert!(lines[1]["camera"].is_null(), "{}", lines[1]);
    assert!(
        lines[1]["reason"].as_str().unwrap().contains("grass"),
        "{}",
        lines[1]
    );
    assert!(d.join("drawn/frame0.png").is_file());

    let json = eval_json(&["--cameras", "cams.jsonl", "--keypoints", "labels"], d);
    assert_eq!(json["images"], 1, "{json}");
    assert_eq!(json["calibrated"], 1, "{json}");
    let grid = json["grid_mean_m"].as_f64().unwrap();
    let kp = json["mean_px"].as_f64().unwrap();
    assert!(grid < 1.0, "grid error {grid} m: {json}");
    assert!(kp < 10.0, "keypoint error {kp} px: {json}");
}

#[test]
fn eval_refuses_bad_input_with_what_it_expected() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("truth.jsonl"), "{\"frame_number\": 0}\n").unwrap();
    std::fs::write(d.join("pred.jsonl"), "").unwrap();
    let out = sportz(
        &["eval", "--truth", "truth.jsonl", "--pred", "pred.jsonl"],
        d,
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("truth.jsonl line 1") && err.contains("missing field"),
        "{err}"
    );

    let missing = sportz(
        &["eval", "--truth", "nope.jsonl", "--pred", "pred.jsonl"],
        d,
    );
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read the truth nope.jsonl"));

    let bad_export = sportz(
        &["track", "x.mp4", "--out", "o.jsonl", "--export", "csv"],
        d,
    );
    assert_eq!(bad_export.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad_export.stderr).contains("possible values: cdf, gsr, mot"));
}

#[test]
fn track_finishes_its_output_when_nobody_reads_its_stderr() {
    // `sportz track … 2>&1 | head`, or a pager quit early: the progress line meets a closed
    // pipe, and the analysis must still run to the end (it ended at once with exit 101 and an
    // empty output file while the progress went through `eprint!`)
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(&sportz(
        &[
            "synth",
            "--seed",
            "5152",
            "--seconds",
            "2",
            "--size",
            "640x360",
            "--out",
            "m",
        ],
        d,
    ));
    let mut child = Command::new(sportz_bin())
        .args(["track", "m/match.mp4", "--out", "run.jsonl"])
        .current_dir(d)
        .env_remove("DISPLAY")
        .env_remove("SPORTZ_MODEL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sportz starts");
    drop(child.stderr.take()); // nobody reads it
    let status = child.wait().unwrap();
    assert!(status.success(), "exit {status:?}");
    let frames = std::fs::read_to_string(d.join("run.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with(r#"{"type":"frame""#))
        .count();
    assert_eq!(frames, 50);
}
