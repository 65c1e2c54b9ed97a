//! The store (issue 4), being built.
