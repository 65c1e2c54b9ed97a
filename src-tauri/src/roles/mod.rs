//! The roles that do not serve, one file each: `worker` (a worker alone on a shared bus),
//! `track` (the pipeline over a file at full speed), `synth` (a synthetic match with truth),
//! `detect` (the detector over still images), `calibrate` (the camera of still images), `eval` (scores a run against truth, or
//! detections against labelled images) and `export` (a recorded session in an analyst's format). The serving roles (`api`, `--headless`, the desktop)
//! start in [`crate::system`]; `main.rs` dispatches.

pub mod calibrate;
pub mod detect;
pub mod eval;
pub mod export;
mod stills;
pub mod synth;
pub mod track;
pub mod worker;
