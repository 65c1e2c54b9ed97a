//! Pure vision maths (issue 7), being built.
