//! Tracking evaluation and exports (work in progress).
