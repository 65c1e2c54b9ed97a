//! YOLO labels, `data.yaml` names and the detections file: what parses, what it becomes, and bad
//! lines named with their line number.

use std::path::Path;

use sportz_eval::detection::{
    ObjectClass, class_map, data_yaml_candidates, parse_data_yaml_names, parse_detections_jsonl,
    parse_yolo_labels,
};

use ObjectClass::{Ball, Goalkeeper, Player, Referee};

const FOUR: [ObjectClass; 4] = [Ball, Goalkeeper, Player, Referee];

fn check_labels(text: &str, expected: &[(ObjectClass, [f64; 4])]) {
    let got = parse_yolo_labels(text, "a.txt", &FOUR, 200, 100).unwrap();
    assert_eq!(got.len(), expected.len(), "{got:?}");
    for (g, (class, bbox)) in got.iter().zip(expected) {
        assert_eq!(g.class, *class);
        for (a, b) in g.bbox.iter().zip(bbox) {
            assert!((a - b).abs() < 1e-9, "{:?} vs {bbox:?}", g.bbox);
        }
    }
}

fn check_bad_labels(text: &str, want: &str) {
    let err = parse_yolo_labels(text, "labels/a.txt", &FOUR, 200, 100)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("labels/a.txt line "), "{err}");
    assert!(err.contains(want), "want `{want}` in: {err}");
}

#[test]
fn boxes_and_polygons_become_pixel_boxes() {
    check_labels(
        "2 0.5 0.5 0.1 0.2\n",
        &[(Player, [90.0, 40.0, 110.0, 60.0])],
    );
    check_labels(
        "\n0 0.1 0.1 0.3 0.2 0.2 0.4\n3 0.5 0.5 0.1 0.2\n",
        &[
            (Ball, [20.0, 10.0, 60.0, 40.0]),
            (Referee, [90.0, 40.0, 110.0, 60.0]),
        ],
    );
    // a box that pokes out of the image is clipped to it
    check_labels(
        "1 0.0 0.5 0.2 0.2\n",
        &[(Goalkeeper, [0.0, 40.0, 20.0, 60.0])],
    );
    check_labels("", &[]);
}

#[test]
fn bad_label_lines_are_named() {
    check_bad_labels("2 0.5 0.5 0.1 0.2\n7 0.5 0.5 0.1 0.1\n", "line 2");
    check_bad_labels("7 0.5 0.5 0.1 0.1\n", "class id `7` is not one of 0..3");
    check_bad_labels("x 0.5 0.5 0.1 0.1\n", "class id `x`");
    check_bad_labels("2 0.5 0.5 0.1\n", "3 coordinates; expected 4");
    check_bad_labels("2 0.1 0.1 0.2 0.2 0.3\n", "5 coordinates");
    check_bad_labels("2 0.5 0.5 0.1 nan\n", "`nan` is not a number in 0..1");
    check_bad_labels("2 0.5 0.5 0.1 1.5\n", "`1.5` is not a number in 0..1");
}

#[test]
fn data_yaml_names_in_each_form() {
    let cases: [(&str, &[&str]); 4] = [
        (
            "names:\n- football\n- goalkeeper\n- player\n- referee\nnc: 4\n",
            &["football", "goalkeeper", "player", "referee"],
        ),
        (
            "nc: 2\nnames: ['ball', \"player\"]  # two\n",
            &["ball", "player"],
        ),
        (
            "names:\n  1: player\n  0: ball\ntrain: x\n",
            &["ball", "player"],
        ),
        (
            "path: .\nnames:\n  - ball # the ball\n  - player\n",
            &["ball", "player"],
        ),
    ];
    for (text, want) in cases {
        assert_eq!(
            parse_data_yaml_names(text, "data.yaml").unwrap(),
            want,
            "{text}"
        );
    }
    for (text, want) in [
        ("nc: 4\n", "no top-level `names:` key"),
        ("names: []\n", "`names` is empty"),
        ("names:\n  0: ball\n  2: player\n", "no id 1"),
    ] {
        let err = parse_data_yaml_names(text, "d/data.yaml")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("d/data.yaml: expected"), "{err}");
        assert!(err.contains(want), "{want} in {err}");
    }
}

#[test]
fn dataset_names_map_onto_the_contract_classes() {
    let names = [
        "football",
        "Goalkeeper",
        "player",
        "referee",
        "ball",
        "sports_ball",
    ]
    .map(str::to_owned);
    assert_eq!(
        class_map(&names, "data.yaml").unwrap(),
        [Ball, Goalkeeper, Player, Referee, Ball, Ball]
    );
    let err = class_map(&["player".to_owned(), "linesman".to_owned()], "x/data.yaml")
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("x/data.yaml: expected class names"),
        "{err}"
    );
    assert!(err.contains("class 1 is named `linesman`"), "{err}");
}

#[test]
fn data_yaml_is_looked_for_in_and_above_the_labels() {
    let got = data_yaml_candidates(Path::new("ds/valid/labels"));
    let got: Vec<String> = got.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(
        got,
        [
            "ds/valid/labels/data.yaml",
            "ds/valid/labels/../data.yaml",
            "ds/valid/labels/../../data.yaml"
        ]
    );
}

#[test]
fn detections_lines_parse_and_bad_ones_are_named() {
    let good = r#"{"image":"f/a.jpg","width":4,"height":2,"detections":[{"class":"ball","bbox":[0,0,1,1],"confidence":0.5}]}

{"image":"b.png","width":4,"height":2,"detections":[]}
"#;
    let dets = parse_detections_jsonl(good.as_bytes(), "d.jsonl").unwrap();
    assert_eq!(dets.len(), 2);
    assert_eq!((dets[0].0, dets[1].0), (1, 3));
    assert_eq!(dets[0].1.stem(), "a");
    assert_eq!(dets[0].1.detections[0].class, Ball);

    for (text, want) in [
        (
            "{\"image\":1}\n",
            "d.jsonl line 1: expected an image's detections",
        ),
        (
            "{\"image\":\"a.jpg\",\"width\":4,\"height\":2,\"detections\":[{\"class\":\"cat\",\"bbox\":[0,0,1,1],\"confidence\":0.5}]}\n",
            "unknown variant `cat`",
        ),
        (
            "{\"image\":\"a.jpg\",\"width\":4,\"height\":2,\"detections\":[{\"class\":\"ball\",\"bbox\":[2,0,1,1],\"confidence\":0.5}]}\n",
            "x1 ≤ x2",
        ),
        (
            "{\"image\":\"a.jpg\",\"width\":4,\"height\":2,\"detections\":[{\"class\":\"ball\",\"bbox\":[0,0,1,1],\"confidence\":1.5}]}\n",
            "confidence 1.5, expected 0..1",
        ),
        (
            "{\"image\":\"x/a.jpg\",\"width\":4,\"height\":2,\"detections\":[]}\n{\"image\":\"y/a.png\",\"width\":4,\"height\":2,\"detections\":[]}\n",
            "d.jsonl line 2: expected an image's detections {\"image\", \"width\", \"height\", \"detections\"}: image `y/a.png` has the same file stem as line 1",
        ),
        ("\n\n", "d.jsonl: no image line"),
    ] {
        let err = parse_detections_jsonl(text.as_bytes(), "d.jsonl")
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "want `{want}` in: {err}");
    }
}
