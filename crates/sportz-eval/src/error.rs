//! The one error type of the crate: every message names the input and, for JSONL, the line.

/// Why the inputs could not be evaluated or exported.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// A line of a JSONL input did not parse:
    /// `truth.jsonl line 12: expected a FrameTruth: missing field `camera` at line 1 column 40`.
    #[error("{source_name} line {line}: expected {expected}: {reason}")]
    Line {
        /// The input's name as the caller gave it (usually the file name).
        source_name: String,
        /// 1-based line number.
        line: usize,
        /// What the line should have been (`a FrameTruth`, `a contract message`).
        expected: &'static str,
        reason: String,
    },
    /// A whole-document JSON input (`events.json`) did not parse.
    #[error("{source_name}: expected {expected}: {reason}")]
    Document {
        source_name: String,
        expected: &'static str,
        reason: String,
    },
    /// The input could not be read (an IO error from the `BufRead`).
    #[error("{source_name}: cannot read line {line}: {reason}")]
    Read {
        source_name: String,
        line: usize,
        reason: String,
    },
    /// The input parsed but holds nothing to work with (no truth frames, no frame messages, …).
    #[error("{source_name}: {reason}")]
    Empty { source_name: String, reason: String },
    /// Truth and predictions do not line up (no predicted frame matches a truth frame).
    #[error("cannot align predictions with the truth: {0}")]
    Alignment(String),
}
