//! The per-frame camera (issue 15): from the white lines of a broadcast frame to its image ↔
//! pitch homography, followed from frame to frame, re-acquired after cuts, refused when
//! implausible.
//!
//! - [`model`]: the pitch markings sampled every metre.
//! - [`broadcast`]: the physical camera (position, pan, tilt, roll, focal length), its ground
//!   homography, its decomposition from one, and the plausibility rules.
//! - [`lines`]: the white-line test (top-hat across the line, grass either side), a line mask
//!   and its distance transform.
//! - [`refine`]: fitting a camera to a frame's lines (robust Gauss–Newton on point-to-line
//!   distances), and to point pairs.
//! - [`motion`]: frame-to-frame motion (corners on grass, pyramidal Lucas–Kanade, RANSAC
//!   homography).
//! - [`cut`]: shot cuts from colour-histogram jumps.
//! - [`init`]: automatic initialisation (a search over broadcast cameras, then a line fit).
//! - [`tracker`]: the per-frame state machine the worker and `sportz track` use.
//! - [`work`]: the working resolution (wide frames shrunk before the camera reads them).

pub mod broadcast;
pub mod cut;
pub mod init;
pub mod lines;
pub mod model;
pub mod motion;
pub mod refine;
pub mod tracker;
pub mod work;

pub use broadcast::{BroadcastCamera, Implausible};
pub use init::{
    InitConfig, InitFailure, SearchStep, initialise, initialise_with_lines, search,
    search_with_lines,
};
pub use refine::{LineFit, RefineConfig, fit_to_lines};
pub use tracker::{CameraStep, CameraTracker, FrameCameraEstimate, NoCamera, TrackerSettings};
pub use work::{DEFAULT_WORK_WIDTH, WorkFrame, initialise_at_work_width, initialise_still};

#[cfg(test)]
mod tests;
