//! `sportz detect` → `sportz eval --detections --labels`, as a user measures a detector on
//! labelled frames: frames of a `sportz synth` match with YOLO labels written from its truth,
//! beside files that are not usable images (each skipped with a line saying why); a frame
//! stretched to a square as exports store it; and, with
//! `SPORTZ_ASSETS`, the built-in model on the `players-dfl` valid split.

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

fn ok(out: &Output) -> (String, String) {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn failed(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// One second of a synthetic match at 5 fps in `dir/m`.
fn synth_second(dir: &Path, seed: &str) {
    ok(&sportz(
        &[
            "synth",
            "--seed",
            seed,
            "--seconds",
            "1",
            "--fps",
            "5",
            "--out",
            "m",
        ],
        dir,
    ));
}

fn ffmpeg(args: &[&str], dir: &Path) {
    let out = Command::new("ffmpeg")
        .args(["-v", "error", "-y"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("ffmpeg starts");
    assert!(out.status.success(), "ffmpeg {args:?}: {out:?}");
}

/// YOLO box labels (`data.yaml` order: football, goalkeeper, player, referee) of the visible
/// people and ball of one synth truth frame.
fn labels_of(frame: &Value, width: f64, height: f64) -> String {
    let line = |cls: u32, b: &Value| {
        let b: Vec<f64> = b
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        format!(
            "{cls} {} {} {} {}\n",
            (b[0] + b[2]) / 2.0 / width,
            (b[1] + b[3]) / 2.0 / height,
            (b[2] - b[0]) / width,
            (b[3] - b[1]) / height
        )
    };
    let mut out = String::new();
    for o in frame["objects"].as_array().unwrap() {
        let cls = match o["role"].as_str().unwrap() {
            "goalkeeper" => 1,
            "referee" => 3,
            _ => 2,
        };
        if o["visibility"] == "visible" && !o["bbox"].is_null() {
            out.push_str(&line(cls, &o["bbox"]));
        }
    }
    if frame["ball"]["visible"] == true && !frame["ball"]["bbox"].is_null() {
        out.push_str(&line(0, &frame["ball"]["bbox"]));
    }
    out
}

/// A detection's `bbox` as `[x1, y1, x2, y2]`.
fn bbox_of(det: &Value) -> [f64; 4] {
    std::array::from_fn(|k| det["bbox"][k].as_f64().unwrap())
}

fn in_unit(v: &Value) -> bool {
    v.is_null() || v.as_f64().is_some_and(|x| (0.0..=1.0).contains(&x))
}

#[test]
fn detect_then_eval_on_labelled_synth_frames() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    synth_second(d, "31");
    std::fs::create_dir_all(d.join("ds/images")).unwrap();
    std::fs::create_dir_all(d.join("ds/labels")).unwrap();
    // frames 0..=2 as JPEG, frame 3 as PNG
    ffmpeg(
        &[
            "-i",
            "m/match.mp4",
            "-frames:v",
            "3",
            "-start_number",
            "0",
            "ds/images/f%d.jpg",
        ],
        d,
    );
    ffmpeg(
        &[
            "-i",
            "m/match.mp4",
            "-vf",
            "select=eq(n\\,3)",
            "-frames:v",
            "1",
            "ds/images/f3.png",
        ],
        d,
    );
    // not usable: a truncated JPEG, a text file, a PNG that is not one, a folder
    let jpeg = std::fs::read(d.join("ds/images/f0.jpg")).unwrap();
    std::fs::write(d.join("ds/images/cut.jpg"), &jpeg[..jpeg.len() / 2]).unwrap();
    std::fs::write(d.join("ds/images/notes.txt"), "not an image\n").unwrap();
    std::fs::write(d.join("ds/images/fake.png"), "not a png either\n").unwrap();
    std::fs::create_dir(d.join("ds/images/more")).unwrap();

    let truth = std::fs::read_to_string(d.join("m/truth.jsonl")).unwrap();
    let frames: Vec<Value> = truth
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for (k, frame) in frames.iter().take(4).enumerate() {
        let labels = labels_of(frame, 1280.0, 720.0);
        assert!(!labels.is_empty(), "frame {k} has visible objects");
        std::fs::write(d.join(format!("ds/labels/f{k}.txt")), labels).unwrap();
    }
    std::fs::write(
        d.join("ds/data.yaml"),
        "names:\n- football\n- goalkeeper\n- player\n- referee\nnc: 4\n",
    )
    .unwrap();

    let (stdout, stderr) = ok(&sportz(&["detect", "ds/images", "--out", "dets.jsonl"], d));
    assert!(stdout.contains("wrote 4 images"), "{stdout}");
    assert!(stdout.contains("skipped 4"), "{stdout}");
    for want in [
        "detecting 1/6 ds/images/cut.jpg",
        "skipped ds/images/cut.jpg: a truncated JPEG",
        "skipped ds/images/fake.png: not a JPEG or PNG image",
        "skipped ds/images/notes.txt: not a .jpg, .jpeg or .png file",
        "skipped ds/images/more: a folder",
    ] {
        assert!(stderr.contains(want), "`{want}` missing from:\n{stderr}");
    }

    // the JSONL: a line per usable image, in name order, boxes inside the image
    let text = std::fs::read_to_string(d.join("dets.jsonl")).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let names: Vec<&str> = lines.iter().map(|l| l["image"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "ds/images/f0.jpg",
            "ds/images/f1.jpg",
            "ds/images/f2.jpg",
            "ds/images/f3.png"
        ]
    );
    for l in &lines {
        assert_eq!(
            (l["width"].as_u64(), l["height"].as_u64()),
            (Some(1280), Some(720))
        );
        let dets = l["detections"].as_array().unwrap();
        assert!(!dets.is_empty(), "{l}");
        for det in dets {
            let class = det["class"].as_str().unwrap();
            assert!(
                ["player", "goalkeeper", "referee", "ball"].contains(&class),
                "{det}"
            );
            let c = det["confidence"].as_f64().unwrap();
            assert!((0.01..=1.0).contains(&c), "{det}");
            let b = bbox_of(det);
            assert!(
                b[0] <= b[2] && b[1] <= b[3] && b[0] >= 0.0 && b[3] <= 720.0,
                "{det}"
            );
        }
    }

    // --one-class-per-box: the best class of each box only, as tracking decodes; the default
    // (every class above the threshold, as `yolo val`) holds each of those and more
    ok(&sportz(
        &[
            "detect",
            "ds/images",
            "--one-class-per-box",
            "--out",
            "one.jsonl",
        ],
        d,
    ));
    let one: Vec<Value> = std::fs::read_to_string(d.join("one.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut shared_boxes = 0;
    for (o, m) in one.iter().zip(&lines) {
        let (o, m) = (
            o["detections"].as_array().unwrap(),
            m["detections"].as_array().unwrap(),
        );
        for det in o {
            let same_box = o.iter().filter(|x| x["bbox"] == det["bbox"]).count();
            assert_eq!(same_box, 1, "one class per box: {det} is repeated");
            // kept, or suppressed by a more confident box of its class (NMS over more boxes)
            let covered = m.iter().any(|x| {
                x["class"] == det["class"]
                    && x["confidence"].as_f64() >= det["confidence"].as_f64()
                    && iou(&bbox_of(x), &bbox_of(det)) > 0.45
            });
            let conf = det["confidence"].as_f64().unwrap();
            assert!(
                covered || conf < 0.05,
                "{det} has no counterpart in the multi-label output"
            );
        }
        shared_boxes += m
            .iter()
            .filter(|x| {
                m.iter()
                    .any(|y| y["bbox"] == x["bbox"] && y["class"] != x["class"])
            })
            .count();
    }
    assert!(shared_boxes > 0, "no box carries two classes by default");

    // eval: the table names every class; the built-in model was trained on synth matches
    let (table, _) = ok(&sportz(
        &[
            "eval",
            "--detections",
            "dets.jsonl",
            "--labels",
            "ds/labels",
        ],
        d,
    ));
    for want in [
        "detection on 4 labelled images",
        "AP50-95",
        "player",
        "ball",
        "mean (",
    ] {
        assert!(table.contains(want), "`{want}` missing:\n{table}");
    }
    let (json, _) = ok(&sportz(
        &[
            "eval",
            "--detections",
            "dets.jsonl",
            "--labels",
            "ds/labels",
            "--json",
        ],
        d,
    ));
    let report: Value = serde_json::from_str(&json).unwrap();
    let player = &report["classes"][0];
    assert_eq!(player["class"], "player");
    assert!(player["ap50"].as_f64().unwrap() > 0.5, "{table}");
    for c in report["classes"].as_array().unwrap() {
        for k in ["ap50", "ap50_95", "precision", "recall"] {
            assert!(in_unit(&c[k]), "{k} {c}");
        }
    }

    // bad input: a class id the data.yaml lacks, a missing folder, detections of other images
    std::fs::write(
        d.join("ds/labels/f1.txt"),
        "2 0.5 0.5 0.1 0.1\n9 0.5 0.5 0.1 0.1\n",
    )
    .unwrap();
    let err = failed(&sportz(
        &[
            "eval",
            "--detections",
            "dets.jsonl",
            "--labels",
            "ds/labels",
        ],
        d,
    ));
    assert!(
        err.contains("ds/labels/f1.txt line 2: expected a YOLO label"),
        "{err}"
    );
    assert!(err.contains("class id `9`"), "{err}");
    let err = failed(&sportz(
        &["eval", "--detections", "dets.jsonl", "--labels", "nope"],
        d,
    ));
    assert!(err.contains("no labels folder nope"), "{err}");
    std::fs::create_dir(d.join("other")).unwrap();
    std::fs::write(d.join("other/g0.txt"), "2 0.5 0.5 0.1 0.1\n").unwrap();
    let err = failed(&sportz(
        &[
            "eval",
            "--detections",
            "dets.jsonl",
            "--labels",
            "other",
            "--data",
            "ds/data.yaml",
        ],
        d,
    ));
    assert!(
        err.contains("dets.jsonl line 1: image `ds/images/f0.jpg` has no label file f0.txt"),
        "{err}"
    );
    assert!(err.contains("detections of other images"), "{err}");

    // nothing usable, or an output that cannot be written: a non-zero exit
    let err = failed(&sportz(
        &["detect", "ds/images/notes.txt", "--out", "x.jsonl"],
        d,
    ));
    assert!(
        err.contains("no image could be processed (1 skipped)"),
        "{err}"
    );
    let err = failed(&sportz(
        &["detect", "ds/images", "--out", "no/such/dir/x.jsonl"],
        d,
    ));
    assert!(err.contains("cannot create the detections file"), "{err}");
    // tiles: a grid of crops finds at least what the whole image did on these 1280×720 frames
    // (auto leaves them whole: they shrink only 2× into the model), and a bad grid is refused
    let (stdout, _) = ok(&sportz(
        &[
            "detect",
            "ds/images",
            "--tiles",
            "2",
            "--out",
            "tiled.jsonl",
        ],
        d,
    ));
    assert!(stdout.contains("wrote 4 images"), "{stdout}");
    let count = |file: &str| -> Vec<usize> {
        std::fs::read_to_string(d.join(file))
            .unwrap()
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["detections"]
                    .as_array()
                    .unwrap()
                    .len()
            })
            .collect()
    };
    let (whole, tiled) = (count("dets.jsonl"), count("tiled.jsonl"));
    assert!(
        whole.iter().zip(&tiled).all(|(w, t)| t >= w),
        "{whole:?} vs {tiled:?}"
    );
    let err = failed(&sportz(
        &["detect", "ds/images", "--tiles", "9", "--out", "x.jsonl"],
        d,
    ));
    assert!(
        err.contains("--tiles 9: expected auto or a grid size 1 to 4"),
        "{err}"
    );
    // help with examples of both eval modes
    let (help, _) = ok(&sportz(&["eval", "--help"], d));
    assert!(
        help.contains("sportz eval --truth") && help.contains("sportz eval --detections"),
        "{help}"
    );
    let (help, _) = ok(&sportz(&["detect", "--help"], d));
    assert!(
        help.contains("Examples:") && help.contains("sportz detect"),
        "{help}"
    );
}

/// The players of one `detect` output line above `min` confidence, as boxes.
fn players(line: &Value, min: f64) -> Vec<[f64; 4]> {
    line["detections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["class"] == "player" && d["confidence"].as_f64().unwrap() >= min)
        .map(bbox_of)
        .collect()
}

fn iou(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    let ix = (a[2].min(b[2]) - a[0].max(b[0])).max(0.0);
    let iy = (a[3].min(b[3]) - a[1].max(b[1])).max(0.0);
    let i = ix * iy;
    i / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - i)
}

/// A broadcast frame stretched to a square (as dataset exports store them) is widened back to
/// 16:9 before detection, and its boxes come out in the square image's own pixels: the players
/// found on the 1280×720 frame, squeezed to 720 wide, are the ones found on the square.
#[test]
fn square_exports_are_widened_back_and_boxes_stay_in_their_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    synth_second(d, "32");
    std::fs::create_dir_all(d.join("wide")).unwrap();
    std::fs::create_dir_all(d.join("square")).unwrap();
    ffmpeg(
        &[
            "-i",
            "m/match.mp4",
            "-frames:v",
            "1",
            "-q:v",
            "2",
            "wide/f.jpg",
        ],
        d,
    );
    ffmpeg(
        &[
            "-i",
            "wide/f.jpg",
            "-vf",
            "scale=720:720",
            "-q:v",
            "2",
            "square/f.jpg",
        ],
        d,
    );
    ok(&sportz(&["detect", "wide", "--out", "wide.jsonl"], d));
    let (_, stderr) = ok(&sportz(&["detect", "square", "--out", "square.jsonl"], d));
    assert!(
        stderr.contains("square/f.jpg is square: taken for a 16:9 frame stretched to a square"),
        "{stderr}"
    );
    let line = |f: &str| -> Value {
        serde_json::from_str(std::fs::read_to_string(d.join(f)).unwrap().trim()).unwrap()
    };
    let (wide, square) = (line("wide.jsonl"), line("square.jsonl"));
    assert_eq!(
        (square["width"].as_u64(), square["height"].as_u64()),
        (Some(720), Some(720))
    );
    let squeezed: Vec<[f64; 4]> = players(&wide, 0.5)
        .iter()
        .map(|b| [b[0] * 720.0 / 1280.0, b[1], b[2] * 720.0 / 1280.0, b[3]])
        .collect();
    let found = players(&square, 0.3);
    assert!(squeezed.len() >= 5, "{wide}");
    let matched = squeezed
        .iter()
        .filter(|b| found.iter().any(|f| iou(b, f) >= 0.6))
        .count();
    assert!(
        matched * 10 >= squeezed.len() * 8,
        "{matched} of {} players found again on the square image: {square}",
        squeezed.len()
    );
    // as they are: no widening, and the note says nothing
    let (_, stderr) = ok(&sportz(
        &[
            "detect",
            "square",
            "--aspect",
            "none",
            "--out",
            "asis.jsonl",
        ],
        d,
    ));
    assert!(!stderr.contains("is square"), "{stderr}");
    let e = failed(&sportz(
        &["detect", "square", "--aspect", "wide", "--out", "x.jsonl"],
        d,
    ));
    assert!(e.contains("expected auto, none or WIDTH:HEIGHT"), "{e}");
}

#[test]
fn the_built_in_model_on_the_dfl_valid_split() {
    let Some(assets) = sportz_testkit::assets("the_built_in_model_on_the_dfl_valid_split") else {
        return;
    };
    let split = assets.join("datasets/players-dfl/valid");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let images = split.join("images");
    let (stdout, _) = ok(&sportz(
        &["detect", images.to_str().unwrap(), "--out", "dets.jsonl"],
        d,
    ));
    assert!(stdout.contains("wrote 49 images"), "{stdout}");
    assert!(stdout.contains("skipped 0"), "{stdout}");
    let labels = split.join("labels");
    let (json, _) = ok(&sportz(
        &[
            "eval",
            "--detections",
            "dets.jsonl",
            "--labels",
            labels.to_str().unwrap(),
            "--json",
        ],
        d,
    ));
    let report: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["images"], 49);
    assert_eq!(report["mean"]["classes"], 4, "{report}");
    for c in report["classes"].as_array().unwrap() {
        assert!(c["truths"].as_u64().unwrap() > 0, "{c}");
        for k in ["ap50", "ap50_95", "precision", "recall"] {
            assert!(in_unit(&c[k]), "{k} {c}");
        }
    }
}
