//! The pitch overlay: a [`Scene`] of plain data (a video frame, boxes with ids, the ball and its
//! trail, the pitch lines seen through the frame's camera, a radar) drawn by wgpu into a window's surface or offscreen to PNG. It knows nothing of
//! the contract; the binary builds scenes from contract frames.
//!
//! Marks are tessellated on the CPU ([`geometry`], pure and unit-tested) and drawn by two small
//! WGSL pipelines ([`render::SHADERS`]).

pub mod geometry;
pub mod pitch_lines;
pub mod render;
pub mod scene;
pub mod window;

pub use pitch_lines::{Polyline, project_pitch_lines};
pub use render::{Gpu, Offscreen, Renderer, RgbaImage, SHADERS};
pub use scene::{BoxMark, Mark, Radar, RadarDot, Rgba, Scene, VideoImage};
pub use wgpu;
pub use window::WindowOverlay;

/// Why the overlay could not draw.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum OverlayError {
    #[error(
        "no GPU adapter: {0} (install a Vulkan or GL driver; on a machine without a GPU, mesa's lavapipe: apt install mesa-vulkan-drivers)"
    )]
    NoAdapter(String),
    #[error("cannot open the GPU device: {0}")]
    Device(String),
    #[error("invalid canvas size {0}×{1}: expected 1–8192 on each side")]
    Size(u32, u32),
    #[error("PNG: {0}")]
    Png(String),
    #[error("cannot draw into the window: {0}")]
    Surface(String),
}
