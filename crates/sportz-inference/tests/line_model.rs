//! The built-in pitch-line model on the real ONNX Runtime: it loads from the bytes compiled in,
//! says "line" on a painted line across grass and not on plain grass or a white board, and
//! refuses bytes that are not a model and models that are not line models, naming them.

use sportz_inference::OnnxLineModel;
use sportz_vision::RgbImage;
use sportz_vision::image::LineModel as _;

/// 640×360 grass with mowing stripes, a 3-pixel white line down x = 300..303 over the lower two
/// thirds, and a white board (a flat white block with no grass beside it) at the top left.
fn frame() -> Vec<u8> {
    let (w, h) = (640usize, 360usize);
    let mut px = Vec::with_capacity(w * h * 3);
    for y in 0..h {
        for x in 0..w {
            let stripe = (x / 80) % 2 == 0;
            let mut c = if stripe { [52, 128, 50] } else { [44, 112, 44] };
            if (300..303).contains(&x) && y >= 120 {
                c = [225, 228, 225];
            }
            if y < 60 && x < 200 {
                c = [240, 240, 240];
            }
            px.extend_from_slice(&c);
        }
    }
    px
}

#[test]
fn the_built_in_line_model_finds_a_painted_line_and_nothing_on_plain_grass() {
    let model = OnnxLineModel::built_in(1).expect("the built-in line model loads");
    let px = frame();
    let img = RgbImage::new(&px, 640, 360).unwrap();
    let map = model.line_map(&img).expect("a line map");
    let (gw, gh) = map.size();
    assert_eq!((gw, gh), (320, 184), "stride 2 over the 640×368 input");
    let on: Vec<f32> = (140..340)
        .step_by(20)
        .map(|y| map.at(301.5, f64::from(y)))
        .collect();
    assert!(on.iter().all(|p| *p >= 0.5), "on the line: {on:?}");
    let grass: Vec<f32> = (140..340)
        .step_by(20)
        .flat_map(|y| [map.at(150.0, f64::from(y)), map.at(500.0, f64::from(y))])
        .collect();
    assert!(grass.iter().all(|p| *p < 0.5), "plain grass: {grass:?}");
    let board = map.at(100.0, 30.0);
    assert!(board < 0.5, "inside a white board: {board}");
}

#[test]
fn bytes_that_are_not_a_model_are_refused_with_the_reason() {
    let err = OnnxLineModel::from_bytes("garbage.onnx", b"not an onnx model", 1).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("cannot read the model garbage.onnx"), "{msg}");
    // a real model of another kind (a detector): it loads, but is refused as a line model
    let det = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../models/sportz-det.onnx"
    ))
    .unwrap();
    let err = OnnxLineModel::from_bytes("sportz-det.onnx", &det, 1).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("sportz-det.onnx") && msg.contains("not a line model"),
        "{msg}"
    );
}
