//! The detector on real ONNX Runtime: tiny constant-output models written by `tiny_onnx`, and
//! (with `SPORTZ_ASSETS`) the real YOLOX-nano on a frame of the broadcast clip.

use std::path::{Path, PathBuf};

use sportz_contract::ObjectClass;
use sportz_inference::tiny_onnx::{ConstOutput, TinyModel};
use sportz_inference::{Detector, DetectorOptions, InferenceError, Provider};
use sportz_vision::RgbImage;

fn write_model(dir: &Path, name: &str, model: &TinyModel) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, model.to_bytes()).unwrap();
    path
}

fn person_and_ball_names() -> Vec<(String, String)> {
    vec![(
        "names".to_owned(),
        "{0: 'person', 1: 'sports ball'}".to_owned(),
    )]
}

/// A YOLOv8-layout output `[1,6,n]` with one person at input box `person` (x1,y1,x2,y2) and
/// one ball at `ball`, both 0.9.
fn yolov8_output(n: usize, person: [f32; 4], ball: [f32; 4]) -> Vec<f32> {
    let mut data = vec![0.0f32; 6 * n];
    for (i, (b, class)) in [(person, 0usize), (ball, 1)].into_iter().enumerate() {
        let v = [
            (b[0] + b[2]) / 2.0,
            (b[1] + b[3]) / 2.0,
            b[2] - b[0],
            b[3] - b[1],
        ];
        for (ch, value) in v.into_iter().enumerate() {
            data[ch * n + i] = value;
        }
        data[(4 + class) * n + i] = 0.9;
    }
    data
}

#[test]
fn a_missing_model_file_is_named() {
    let err = Detector::load("/nonexistent/dir/model.onnx", &DetectorOptions::cpu()).unwrap_err();
    assert!(matches!(err, InferenceError::ModelMissing(_)), "{err:?}");
    assert!(
        err.to_string().contains("/nonexistent/dir/model.onnx"),
        "{err}"
    );
}

#[test]
fn a_model_that_fits_no_layout_lists_its_shapes_and_the_supported_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let model = TinyModel {
        input_name: "images".into(),
        input: (64, 64),
        outputs: vec![ConstOutput::new(
            "feature_map",
            &[1, 2, 4, 4],
            vec![0.5; 32],
        )],
        metadata: vec![],
    };
    let path = write_model(dir.path(), "odd.onnx", &model);
    let err = Detector::load(&path, &DetectorOptions::cpu()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, InferenceError::Model { .. }), "{err:?}");
    assert!(text.contains("feature_map [1,2,4,4]"), "{text}");
    assert!(text.contains("yolov8/11 [1,4+nc,N]"), "{text}");
    assert!(text.contains("odd.onnx"), "{text}");
}

#[test]
fn a_non_image_input_is_refused_with_what_was_found() {
    // a model whose only input is an image of 1 channel
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = TinyModel {
        input_name: "images".into(),
        input: (32, 32),
        outputs: vec![ConstOutput::new("output0", &[1, 6, 4], vec![0.0; 24])],
        metadata: person_and_ball_names(),
    }
    .to_bytes();
    // the input's channel dim is the only `3` written as a varint dim_value: make it 1
    let needle = [0x0a, 0x02, 0x08, 0x03];
    let at = bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .expect("the channel dim");
    bytes[at + 3] = 0x01;
    let path = dir.path().join("gray.onnx");
    std::fs::write(&path, bytes).unwrap();
    let err = Detector::load(&path, &DetectorOptions::cpu()).unwrap_err();
    assert!(matches!(err, InferenceError::Input { .. }), "{err:?}");
    assert!(
        err.to_string().contains("images Float32 [1,1,32,32]"),
        "{err}"
    );
}

#[test]
fn a_constant_yolov8_model_detects_in_source_pixels_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    // input 64×64; a 128×64 source is letterboxed (centred) to 64×32 at y offset 16, scale 0.5
    let n = 20;
    let model = TinyModel {
        input_name: "images".into(),
        input: (64, 64),
        outputs: vec![ConstOutput::new(
            "output0",
            &[1, 6, n as i64],
            yolov8_output(n, [10.0, 20.0, 20.0, 40.0], [40.0, 30.0, 42.0, 32.0]),
        )],
        metadata: person_and_ball_names(),
    };
    let path = write_model(dir.path(), "const.onnx", &model);
    let mut det = Detector::load(
        &path,
        &DetectorOptions {
            providers: Provider::DEFAULT_ORDER.to_vec(),
            threads: Some(1),
            ..DetectorOptions::default()
        },
    )
    .unwrap();
    // every provider before the chosen one says why it was passed over (with the CPU wheel:
    // cuda, tensorrt, directml and coreml are not in the build, and the device is `cpu`)
    let chosen = Provider::DEFAULT_ORDER
        .iter()
        .position(|p| *p == det.provider())
        .unwrap();
    assert_eq!(det.passed_over().len(), chosen, "{:?}", det.passed_over());
    for (why, p) in det.passed_over().iter().zip(Provider::DEFAULT_ORDER) {
        assert!(why.starts_with(&format!("{p}: ")), "{why}");
    }
    assert_eq!(det.device(), det.provider().device(0));
    assert_eq!(det.adapter().layout().name(), "yolov8");
    assert_eq!(det.model_name(), "const.onnx");

    let pixels = vec![0u8; 128 * 64 * 3];
    let image = RgbImage::new(&pixels, 128, 64).unwrap();
    let (dets, timing) = det.detect(&image).unwrap();
    assert!(timing.run_ms >= 0.0 && timing.preprocess_ms >= 0.0);
    let people = dets.people();
    assert_eq!(people.len(), 1, "{dets:?}");
    assert_eq!(people[0].class, Some(ObjectClass::Player));
    let b = people[0].bbox;
    let want = [20.0, 8.0, 40.0, 48.0];
    for (got, want) in [b.x1, b.y1, b.x2, b.y2].into_iter().zip(want) {
        assert!((f64::from(got) - want).abs() < 0.01, "{b:?}");
    }
    assert_eq!(dets.balls().len(), 1);
}

#[test]
fn a_sidecar_names_file_wins_over_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let n = 8;
    let model = TinyModel {
        input_name: "images".into(),
        input: (32, 32),
        outputs: vec![ConstOutput::new(
            "output0",
            &[1, 6, n as i64],
            yolov8_output(n, [1.0, 1.0, 5.0, 9.0], [20.0, 20.0, 22.0, 22.0]),
        )],
        metadata: person_and_ball_names(),
    };
    let path = write_model(dir.path(), "swap.onnx", &model);
    // beside the model as `<model>.names`: class 0 is now the ball, class 1 a referee
    std::fs::write(dir.path().join("swap.names"), "ball\nreferee\n").unwrap();
    let mut det = Detector::load(&path, &DetectorOptions::cpu()).unwrap();
    let pixels = vec![0u8; 32 * 32 * 3];
    let (dets, _) = det
        .detect(&RgbImage::new(&pixels, 32, 32).unwrap())
        .unwrap();
    let classes: Vec<_> = dets.iter().map(|d| d.class).collect();
    assert!(classes.contains(&Some(ObjectClass::Ball)), "{classes:?}");
    assert!(classes.contains(&Some(ObjectClass::Referee)), "{classes:?}");

    // an explicit sidecar path that does not exist is an error naming it
    let err = Detector::load(
        &path,
        &DetectorOptions {
            sidecar_names: Some(dir.path().join("missing.names")),
            ..DetectorOptions::cpu()
        },
    )
    .unwrap_err();
    assert!(err.to_string().contains("missing.names"), "{err}");
}

#[test]
fn outputs_that_break_the_layout_at_run_time_fail_at_load_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    // labels/boxes/scores (rt-detr/d-fine) fits by its ranks, but the run gives 3 labels and
    // scores for 2 boxes: the warm-up run decodes and refuses it
    let model = TinyModel {
        input_name: "images".into(),
        input: (32, 32),
        outputs: vec![
            ConstOutput::new("labels", &[1, 3], vec![0.0, 0.0, 32.0]),
            ConstOutput::new(
                "boxes",
                &[1, 2, 4],
                vec![1.0, 1.0, 5.0, 9.0, 2.0, 2.0, 4.0, 4.0],
            ),
            ConstOutput::new("scores", &[1, 3], vec![0.9, 0.8, 0.7]),
        ],
        metadata: vec![],
    };
    let path = write_model(dir.path(), "liar.onnx", &model);
    let err = Detector::load(&path, &DetectorOptions::cpu()).unwrap_err();
    assert!(matches!(err, InferenceError::Output(_)), "{err:?}");
    let text = err.to_string();
    assert!(
        text.starts_with("unexpected model output") && text.contains("labels/scores"),
        "{text}"
    );
}

#[test]
fn a_labels_boxes_scores_model_decodes() {
    let dir = tempfile::tempdir().unwrap();
    let model = TinyModel {
        input_name: "images".into(),
        input: (32, 32),
        outputs: vec![
            ConstOutput::new("labels", &[1, 2], vec![0.0, 32.0]),
            ConstOutput::new(
                "boxes",
                &[1, 2, 4],
                vec![1.0, 1.0, 5.0, 9.0, 20.0, 20.0, 22.0, 22.0],
            ),
            ConstOutput::new("scores", &[1, 2], vec![0.9, 0.8]),
        ],
        metadata: vec![],
    };
    let path = write_model(dir.path(), "detr.onnx", &model);
    let mut det = Detector::load(&path, &DetectorOptions::cpu()).unwrap();
    assert_eq!(det.adapter().layout().name(), "rt-detr/d-fine");
    let pixels = vec![0u8; 32 * 32 * 3];
    let (dets, _) = det
        .detect(&RgbImage::new(&pixels, 32, 32).unwrap())
        .unwrap();
    assert_eq!(
        (dets.people().len(), dets.balls().len()),
        (1, 1),
        "{dets:?}"
    );
}

/// One rgb24 frame of the 640×360 clip at `secs`, decoded by an ffmpeg child.
fn frame_at(clip: &Path, secs: f64) -> (Vec<u8>, u32, u32) {
    (sportz_testkit::frame_rgb(clip, secs), 640, 360)
}

#[test]
fn yolox_nano_finds_the_players_on_a_broadcast_frame() {
    let Some(assets) = sportz_testkit::assets("yolox_nano_finds_the_players_on_a_broadcast_frame")
    else {
        return;
    };
    let model = assets.join("models/yolox_nano.onnx");
    let names = assets.join("models/coco.names");
    let mut det = Detector::load(
        &model,
        &DetectorOptions {
            sidecar_names: Some(names),
            ..DetectorOptions::default()
        },
    )
    .unwrap();
    assert_eq!(det.adapter().layout().name(), "yolox");
    assert_eq!(
        *det.adapter().preprocess(),
        sportz_vision::detect::Preprocess::YOLOX
    );
    assert_eq!(det.adapter().input(), (416, 416));
    // wide-camera frames with most of both teams in view (the camera shows few players while it
    // follows a long ball, e.g. around 16 s)
    for secs in [1.0, 12.0] {
        let (pixels, w, h) = frame_at(&assets.join("clips/japan_tajikistan_360p.mp4"), secs);
        assert_eq!(pixels.len(), (w * h * 3) as usize);
        let (dets, timing) = det.detect(&RgbImage::new(&pixels, w, h).unwrap()).unwrap();
        let people = dets.people();
        eprintln!(
            "yolox_nano at {secs} s on {}: {} people, {} balls, {timing:?}",
            det.device(),
            people.len(),
            dets.balls().len()
        );
        assert!(
            people.len() >= 8,
            "{secs} s: {} people: {people:?}",
            people.len()
        );
        for p in &people {
            let b = p.bbox;
            assert!(
                b.x1 >= -1.0 && b.x2 <= 641.0 && b.y1 >= -1.0 && b.y2 <= 361.0,
                "{b:?}"
            );
            assert!(
                b.y2 - b.y1 > b.x2 - b.x1,
                "people are taller than wide: {b:?}"
            );
        }
    }
}
