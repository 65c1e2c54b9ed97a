//! The sportz tracking worker (issue 6): takes start commands from `worker:commands`, holds a
//! lease per match, decodes video with ffmpeg, runs the vision stages and publishes frames,
//! events, statuses and metrics per the contract (`sportz-contract`).
//!
//! Not built yet: this crate only reserves its place in the workspace.
