//! Decoding goldens for every layout on constructed tensors, layout recognition, and the adapter.

use super::*;

const INPUT: (u32, u32) = (64, 64);
/// Grid cells of a 64×64 input over strides 8/16/32: 64 + 16 + 4.
const CELLS: usize = 84;

fn cfg() -> DecodeConfig {
    DecodeConfig {
        confidence_threshold: 0.3,
        iou_threshold: 0.5,
        max_detections: 100,
        multi_label: false,
    }
}

/// Decodes and compares `(x1, y1, x2, y2, confidence, class_id)` rows, in order, to 1e-4.
fn check(layout: &Layout, outputs: &[OutputTensor<'_>], expected: &[[f32; 6]]) {
    check_with(layout, outputs, &cfg(), expected);
}

fn check_with(
    layout: &Layout,
    outputs: &[OutputTensor<'_>],
    cfg: &DecodeConfig,
    expected: &[[f32; 6]],
) {
    let got = layout.decode(outputs, INPUT, cfg).unwrap();
    let rows: Vec<[f32; 6]> = got
        .iter()
        .map(|d| {
            [
                d.bbox.x1,
                d.bbox.y1,
                d.bbox.x2,
                d.bbox.y2,
                d.confidence,
                d.class_id as f32,
            ]
        })
        .collect();
    let close = rows.len() == expected.len()
        && rows
            .iter()
            .zip(expected)
            .all(|(a, b)| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-4));
    assert!(
        close,
        "{}: got {rows:?}, expected {expected:?}",
        layout.name()
    );
}

fn out<'a>(name: &'a str, shape: &'a [usize], data: &'a [f32]) -> OutputTensor<'a> {
    OutputTensor { name, shape, data }
}

#[test]
fn yolov5_rows_with_objectness_and_per_class_nms() {
    let nc = 2;
    let row = 5 + nc;
    let n = 3 * CELLS;
    let mut data = vec![0.0; n * row];
    let mut set = |i: usize, v: [f32; 7]| data[i * row..(i + 1) * row].copy_from_slice(&v);
    set(10, [20.0, 30.0, 10.0, 20.0, 0.9, 0.1, 0.8]); // 0.72, class 1
    set(11, [21.0, 30.0, 10.0, 20.0, 0.9, 0.1, 0.7]); // same class, IoU 0.82: suppressed
    set(12, [21.0, 30.0, 10.0, 20.0, 0.8, 0.9, 0.2]); // class 0 overlapping: kept (0.72)
    set(13, [50.0, 50.0, 4.0, 4.0, 0.5, 0.5, 0.1]); // 0.25 < 0.3: dropped
    let shape = [1, n, row];
    check(
        &Layout::YoloV5 {
            output: 0,
            num_classes: nc,
        },
        &[out("output0", &shape, &data)],
        &[
            [15.0, 20.0, 25.0, 40.0, 0.72, 1.0],
            [16.0, 20.0, 26.0, 40.0, 0.72, 0.0],
        ],
    );
}

/// A YOLOv8 `[1, 4+2, CELLS]` output (channels first) with `rows` set: `(cell, [cx, cy, w, h,
/// score class 0, score class 1])`.
fn yolov8_two_classes(rows: &[(usize, [f32; 6])]) -> Vec<f32> {
    let mut data = vec![0.0; 6 * CELLS];
    for &(i, v) in rows {
        for (ch, x) in v.into_iter().enumerate() {
            data[ch * CELLS + i] = x;
        }
    }
    data
}

#[test]
fn yolov8_channels_first() {
    let nc = 2;
    let n = CELLS;
    let data = yolov8_two_classes(&[
        (3, [32.0, 32.0, 8.0, 16.0, 0.2, 0.95]),
        (70, [10.0, 10.0, 4.0, 4.0, 0.6, 0.1]),
        (71, [10.5, 10.0, 4.0, 4.0, 0.5, 0.1]), // suppressed by 70
    ]);
    let shape = [1, 4 + nc, n];
    check(
        &Layout::YoloV8 {
            output: 0,
            num_classes: nc,
        },
        &[out("output0", &shape, &data)],
        &[
            [28.0, 24.0, 36.0, 40.0, 0.95, 1.0],
            [8.0, 8.0, 12.0, 12.0, 0.6, 0.0],
        ],
    );
}

#[test]
fn multi_label_keeps_every_class_above_the_threshold() {
    let nc = 2;
    let data = yolov8_two_classes(&[
        (3, [32.0, 32.0, 8.0, 16.0, 0.4, 0.95]), // both classes above 0.3
        (70, [10.0, 10.0, 4.0, 4.0, 0.6, 0.1]),  // class 1 below the threshold
        (71, [10.5, 10.0, 4.0, 4.0, 0.5, 0.35]), // class 0 suppressed by 70, class 1 kept
    ]);
    let shape = [1, 4 + nc, CELLS];
    let layout = Layout::YoloV8 {
        output: 0,
        num_classes: nc,
    };
    let outputs = [out("output0", &shape, &data)];
    let multi = DecodeConfig {
        multi_label: true,
        ..cfg()
    };
    check_with(
        &layout,
        &outputs,
        &multi,
        &[
            [28.0, 24.0, 36.0, 40.0, 0.95, 1.0],
            [8.0, 8.0, 12.0, 12.0, 0.6, 0.0],
            [28.0, 24.0, 36.0, 40.0, 0.4, 0.0],
            [8.5, 8.0, 12.5, 12.0, 0.35, 1.0],
        ],
    );
    // the best class only, as tracking decodes
    check(
        &layout,
        &outputs,
        &[
            [28.0, 24.0, 36.0, 40.0, 0.95, 1.0],
            [8.0, 8.0, 12.0, 12.0, 0.6, 0.0],
        ],
    );
}

#[test]
fn yolox_raw_grids_over_three_strides() {
    let nc = 2;
    let row = 5 + nc;
    let mut data = vec![0.0; CELLS * row];
    let mut set = |i: usize, v: [f32; 7]| data[i * row..(i + 1) * row].copy_from_slice(&v);
    // stride 8, cell (gx=3, gy=1) is index 1·8 + 3 = 11
    set(
        11,
        [0.5, 0.5, 0.0, 1.0_f32.ln() + 2.0_f32.ln(), 0.9, 0.9, 0.0],
    );
    // stride 16, cell (gx=1, gy=2) is index 64 + 2·4 + 1 = 73
    set(73, [0.5, 0.5, 2.0_f32.ln(), 2.0_f32.ln(), 0.8, 0.0, 0.5]);
    // stride 32, cell (1, 1) is index 64 + 16 + 3 = 83
    set(83, [0.0, 0.0, 0.0, 0.0, 0.5, 0.4, 0.0]); // 0.2: below threshold
    let shape = [1, CELLS, row];
    check(
        &Layout::YoloX {
            output: 0,
            num_classes: nc,
            strides: vec![8, 16, 32],
        },
        &[out("output", &shape, &data)],
        &[
            // centre (28, 12), 8×16
            [24.0, 4.0, 32.0, 20.0, 0.81, 0.0],
            // centre (24, 40), 32×32
            [8.0, 24.0, 40.0, 56.0, 0.4, 1.0],
        ],
    );
}

#[test]
fn end_to_end_rows_skip_nms() {
    let mut data = vec![0.0; 300 * 6];
    data[..6].copy_from_slice(&[1.0, 2.0, 11.0, 22.0, 0.9, 32.0]);
    // overlapping same class: kept, the model already ran NMS
    data[6..12].copy_from_slice(&[1.0, 2.0, 11.0, 23.0, 0.5, 32.0]);
    data[12..18].copy_from_slice(&[5.0, 5.0, 6.0, 6.0, 0.1, 0.0]);
    let shape = [1, 300, 6];
    check(
        &Layout::EndToEnd { output: 0 },
        &[out("output0", &shape, &data)],
        &[
            [1.0, 2.0, 11.0, 22.0, 0.9, 32.0],
            [1.0, 2.0, 11.0, 23.0, 0.5, 32.0],
        ],
    );
}

#[test]
fn rtdetr_normalised_scores() {
    let nc = 2;
    let mut data = vec![0.0; 300 * (4 + nc)];
    data[..6].copy_from_slice(&[0.5, 0.25, 0.125, 0.25, 0.1, 0.7]);
    let shape = [1, 300, 4 + nc];
    check(
        &Layout::DetrScores {
            output: 0,
            num_classes: nc,
        },
        &[out("output0", &shape, &data)],
        &[[28.0, 8.0, 36.0, 24.0, 0.7, 1.0]],
    );
}

#[test]
fn dfine_labels_boxes_scores_in_pixels_and_normalised() {
    let layout = Layout::DetrLabels {
        labels: 0,
        boxes: 1,
        scores: 2,
    };
    let labels = [0.0, 32.0, 5.0];
    let boxes_px = [
        10.0, 10.0, 20.0, 40.0, 30.0, 30.0, 33.0, 33.0, 0.0, 0.0, 5.0, 5.0,
    ];
    let scores = [0.9, 0.6, 0.2];
    let (s1, s2) = ([1, 3], [1, 3, 4]);
    check(
        &layout,
        &[
            out("labels", &s1, &labels),
            out("boxes", &s2, &boxes_px),
            out("scores", &s1, &scores),
        ],
        &[
            [10.0, 10.0, 20.0, 40.0, 0.9, 0.0],
            [30.0, 30.0, 33.0, 33.0, 0.6, 32.0],
        ],
    );
    let boxes_norm = boxes_px.map(|v| v / 64.0);
    check(
        &layout,
        &[
            out("labels", &s1, &labels),
            out("boxes", &s2, &boxes_norm),
            out("scores", &s1, &scores),
        ],
        &[
            [10.0, 10.0, 20.0, 40.0, 0.9, 0.0],
            [30.0, 30.0, 33.0, 33.0, 0.6, 32.0],
        ],
    );
}

#[test]
fn decode_refuses_tensors_that_do_not_match_their_shape() {
    let data = [0.0; 10];
    let shape = [1, 2, 6];
    let err = Layout::EndToEnd { output: 0 }
        .decode(&[out("output0", &shape, &data)], INPUT, &cfg())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "output `output0` has 10 values, expected 12 for its shape [1, 2, 6]"
    );
    let err = Layout::EndToEnd { output: 1 }
        .decode(&[], INPUT, &cfg())
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "the end-to-end layout reads output 1, but the model gave 0 outputs"
    );
}

fn shapes(list: &[(&str, &[i64])]) -> Vec<TensorShape> {
    list.iter().map(|(n, d)| TensorShape::new(n, d)).collect()
}

/// Recognition: output shapes + input + names count + hint → layout name and class count.
fn check_layout(
    list: &[(&str, &[i64])],
    input: (u32, u32),
    names: Option<usize>,
    hint: LayoutHint,
    expected: &str,
) {
    let got = Layout::detect(&shapes(list), input, names, hint)
        .map(|l| format!("{} {:?}", l.name(), l.num_classes()));
    let got = got.unwrap_or_else(|e| format!("error: {e}"));
    assert!(
        got.starts_with(expected),
        "{list:?} {input:?} names={names:?}: {got}"
    );
}

#[test]
fn recognises_layouts_from_shapes() {
    let none = LayoutHint::default();
    let p = (640, 640);
    // 640: 6400 + 1600 + 400 = 8400 cells
    check_layout(
        &[("output0", &[1, 84, 8400])],
        p,
        Some(80),
        none,
        "yolov8 Some(80)",
    );
    check_layout(
        &[("output0", &[1, 84, 8400])],
        p,
        None,
        none,
        "yolov8 Some(80)",
    );
    check_layout(
        &[("output0", &[1, 8, 8400])],
        p,
        Some(4),
        none,
        "yolov8 Some(4)",
    );
    check_layout(
        &[("output0", &[-1, 84, -1])],
        p,
        None,
        none,
        "yolov8 Some(80)",
    );
    check_layout(
        &[("output0", &[1, 25200, 85])],
        p,
        Some(80),
        none,
        "yolov5 Some(80)",
    );
    check_layout(
        &[("output0", &[1, 25200, 85])],
        p,
        None,
        none,
        "yolov5 Some(80)",
    );
    check_layout(
        &[("output", &[1, 3549, 85])],
        (416, 416),
        None,
        none,
        "yolox Some(80)",
    );
    check_layout(
        &[("output", &[1, 8400, 85])],
        p,
        Some(80),
        none,
        "yolox Some(80)",
    );
    check_layout(
        &[("output0", &[1, 300, 6])],
        p,
        Some(80),
        none,
        "end-to-end None",
    );
    check_layout(
        &[("output0", &[1, 300, 6])],
        p,
        None,
        none,
        "end-to-end None",
    );
    // a one-class YOLOv5 is [1,N,6] too: the names decide
    check_layout(
        &[("output0", &[1, 25200, 6])],
        p,
        Some(1),
        none,
        "yolov5 Some(1)",
    );
    check_layout(
        &[("output0", &[1, 300, 84])],
        p,
        Some(80),
        none,
        "rt-detr Some(80)",
    );
    check_layout(
        &[
            ("labels", &[1, 300]),
            ("boxes", &[1, 300, 4]),
            ("scores", &[1, 300]),
        ],
        p,
        Some(80),
        none,
        "rt-detr/d-fine None",
    );
    // the hint picks YOLOX when N is dynamic
    let yolox = LayoutHint {
        yolox: true,
        ..none
    };
    check_layout(
        &[("output", &[1, -1, 85])],
        p,
        None,
        yolox,
        "yolox Some(80)",
    );
    check_layout(
        &[("output", &[1, -1, 85])],
        p,
        None,
        none,
        "yolov5 Some(80)",
    );
    // YOLOX named but N fits no grid of this input
    check_layout(
        &[("output", &[1, 1000, 85])],
        p,
        None,
        yolox,
        "error: unsupported model layout",
    );
}

#[test]
fn a_model_that_fits_no_layout_lists_shapes_and_layouts() {
    let none = LayoutHint::default();
    let p = (640, 640);
    check_layout(
        &[("logits", &[1, 1000])],
        p,
        None,
        none,
        "error: unsupported model layout: found outputs logits [1,1000]; supported layouts: yolov5 [1,N,5+nc]",
    );
    check_layout(
        &[],
        p,
        None,
        none,
        "error: unsupported model layout: found outputs no outputs;",
    );
    check_layout(
        &[
            ("labels", &[1, 300]),
            ("boxes", &[1, 300, 5]),
            ("scores", &[1, 300]),
        ],
        p,
        None,
        none,
        "error: unsupported model layout: found outputs labels [1,300], boxes [1,300,5], scores [1,300]",
    );
    check_layout(
        &[("seg", &[1, 116, -1])],
        p,
        Some(80),
        none,
        "error: unsupported",
    );
}

#[test]
fn layout_hint_from_metadata() {
    let md = |k: &str, v: &str| vec![(k.to_owned(), v.to_owned())];
    assert!(LayoutHint::from_metadata(&md("description", "Megvii YOLOX-nano")).yolox);
    assert!(LayoutHint::from_metadata(&md("end2end", "True")).end_to_end);
    assert_eq!(
        LayoutHint::from_metadata(&md("stride", "32")),
        LayoutHint::default()
    );
}

fn spec<'a>(
    outputs: &'a [TensorShape],
    metadata: &'a [(String, String)],
    sidecar: Option<&'a str>,
) -> ModelSpec<'a> {
    ModelSpec {
        input: INPUT,
        outputs,
        metadata,
        sidecar_names: sidecar,
    }
}

#[test]
fn adapter_picks_names_preprocessing_and_refuses_useless_models() {
    let yolox = shapes(&[("output", &[1, CELLS as i64, 85])]);
    let a = ModelAdapter::new(&spec(&yolox, &[], None)).unwrap();
    assert_eq!(a.preprocess(), &Preprocess::YOLOX);
    assert_eq!(
        a.classes().class_of(32),
        Some(ObjectClass::Ball),
        "COCO names assumed for 80 classes"
    );

    let v8 = shapes(&[("output0", &[1, 8, CELLS as i64])]);
    let names = vec![(
        "names".to_owned(),
        "{0: 'ball', 1: 'goalkeeper', 2: 'player', 3: 'referee'}".to_owned(),
    )];
    let a = ModelAdapter::new(&spec(&v8, &names, None)).unwrap();
    assert_eq!(a.preprocess(), &Preprocess::ULTRALYTICS);
    assert_eq!(a.classes().class_of(1), Some(ObjectClass::Goalkeeper));
    // the sidecar wins over metadata
    let a = ModelAdapter::new(&spec(
        &v8,
        &names,
        Some("referee\nplayer\nball\ngoalkeeper\n"),
    ))
    .unwrap();
    assert_eq!(a.classes().class_of(0), Some(ObjectClass::Referee));

    let check_err = |s: ModelSpec<'_>, needle: &str| {
        let err = ModelAdapter::new(&s).unwrap_err().to_string();
        assert!(err.contains(needle), "{err}");
    };
    check_err(
        spec(&v8, &[], Some("a\nb\nc\n")),
        "the model outputs 4 classes but its names list 3",
    );
    check_err(
        spec(&v8, &[], Some("cat\ndog\ncar\nbus\n")),
        "no class of the model maps to player, goalkeeper, referee or ball; its classes are cat, dog, car, bus",
    );
    let v8_4 = shapes(&[("output0", &[1, 8, CELLS as i64])]);
    check_err(spec(&v8_4, &[], None), "no class names");
    let bad = vec![("names".to_owned(), "person".to_owned())];
    check_err(spec(&v8, &bad, None), "invalid class names");
}

#[test]
fn adapter_decodes_to_source_pixels_and_keeps_mapped_classes() {
    // a 128×64 source letterboxed (centred) into 64×64: scale 0.5, pad 16 on y
    let v8 = shapes(&[("output0", &[1, 7, CELLS as i64])]);
    let a = ModelAdapter::new(&spec(&v8, &[], Some("person\ncar\nsports ball\n"))).unwrap();
    let n = CELLS;
    let mut data = vec![0.0; 7 * n];
    for (i, v) in [
        [32.0, 32.0, 8.0, 16.0, 0.9, 0.0, 0.0],
        [10.0, 20.0, 4.0, 4.0, 0.0, 0.8, 0.0],
        [50.0, 30.0, 2.0, 2.0, 0.0, 0.0, 0.5],
    ]
    .into_iter()
    .enumerate()
    {
        for (ch, x) in v.into_iter().enumerate() {
            data[ch * n + i] = x;
        }
    }
    let t = InputTransform::new(a.preprocess(), (128, 64), INPUT);
    let shape = [1, 7, n];
    let dets = a
        .decode(&[out("output0", &shape, &data)], &t, &cfg())
        .unwrap();
    let got: Vec<(BBox, Option<ObjectClass>)> = dets.iter().map(|d| (d.bbox, d.class)).collect();
    assert_eq!(
        got,
        [
            (BBox::new(56.0, 16.0, 72.0, 48.0), Some(ObjectClass::Player)),
            (BBox::new(98.0, 26.0, 102.0, 30.0), Some(ObjectClass::Ball)),
        ],
        "the car is dropped"
    );
    assert_eq!(dets.people().len(), 1);
    assert_eq!(dets.balls().len(), 1);
}

/// One man the model calls a referee at 0.6 and a player at 0.4 from neighbouring anchors
/// (per-class NMS keeps both) is one person: the more confident box stays. Two people side by
/// side, or a person and the ball, stay apart; the order is the detections' own.
#[test]
fn people_are_one_box_per_person_whatever_the_class() {
    let person = |x1: f32, y1: f32, conf: f32, class: ObjectClass| {
        Detection::new(BBox::new(x1, y1, x1 + 20.0, y1 + 60.0), conf, 0).with_class(class)
    };
    let mut dets = Detections::new(vec![
        person(100.0, 50.0, 0.4, ObjectClass::Player),
        person(300.0, 50.0, 0.9, ObjectClass::Player),
        Detection::new(BBox::new(104.0, 100.0, 110.0, 106.0), 0.3, 0).with_class(ObjectClass::Ball),
        person(102.0, 53.0, 0.6, ObjectClass::Referee), // IoU 0.75 with the first
        person(111.0, 50.0, 0.7, ObjectClass::Goalkeeper), // IoU 0.29 with the first: beside him
    ]);
    dets.keep_one_box_per_person();
    let got: Vec<(f32, Option<ObjectClass>)> = dets.iter().map(|d| (d.bbox.x1, d.class)).collect();
    assert_eq!(
        got,
        [
            (300.0, Some(ObjectClass::Player)),
            (104.0, Some(ObjectClass::Ball)),
            (102.0, Some(ObjectClass::Referee)),
            (111.0, Some(ObjectClass::Goalkeeper)),
        ]
    );
}
