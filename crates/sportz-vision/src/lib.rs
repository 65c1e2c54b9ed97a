//! Pure vision maths (issue 7): plain data in, plain data out, deterministic, no IO.
//!
//! The data path through this crate, one direction:
//!
//! ```text
//! model output tensors ─[detect]→ Detections ─[track]→ players with ids ─┐
//!                                           └─[ball]→ ball state + trail ─┤
//!                          pixels ─[pitch]→ metres      [teams]→ sides ───┤
//!                                                        [events]→ events ┴─[frame]→ contract
//! ```
//!
//! - [`detect`]: model layouts (YOLOv5, YOLOv8/11, YOLOX, end-to-end, RT-DETR/D-FINE) recognised
//!   from output shapes, decoders, per-class NMS, class names → [`ObjectClass`], preprocessing.
//! - [`kalman`]: constant-velocity Kalman filters (box and point).
//! - [`track`]: the ByteTrack-class player tracker.
//! - [`identity`]: published ids that outlive tracks (re-identification by pitch position).
//! - [`ball`]: the ball tracker (gating, coasting, trail, velocity).
//! - [`pitch`]: the 105×68 pitch model, homography fitting (normalised DLT, RANSAC), mapping.
//! - [`camera`]: the per-frame broadcast camera: white lines, frame-to-frame motion, cuts,
//!   automatic initialisation, the tracker that chains them.
//! - [`teams`]: shirt-colour clustering into two sides with outliers, voted per track.
//! - [`events`]: the event engine (ball_lost, possession, pass, shot, ball_out, goal).
//! - [`frame`]: adapters that build the contract's `FrameData` and `EventData`.
//! - [`assign`], [`rng`], [`geom`], [`image`]: the small shared pieces (optimal assignment, a
//!   seeded generator, boxes and points, a borrowed RGB8 image).
//!
//! Inference (ONNX Runtime) and the worker's IO live elsewhere and call into this crate.
//!
//! [`ObjectClass`]: sportz_contract::ObjectClass

pub mod assign;
pub mod ball;
pub mod camera;
pub mod detect;
pub mod events;
pub mod frame;
pub mod geom;
pub mod graphics;
pub mod identity;
pub mod image;
pub mod kalman;
pub mod pitch;
pub mod rng;
pub mod teams;
pub mod track;

pub use geom::{BBox, Point};
pub use image::RgbImage;
