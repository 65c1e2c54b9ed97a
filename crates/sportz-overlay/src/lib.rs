//! The pitch overlay renderer (work in progress).
