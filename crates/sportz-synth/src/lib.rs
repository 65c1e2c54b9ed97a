//! The synthetic match generator (issue 8), being built.
