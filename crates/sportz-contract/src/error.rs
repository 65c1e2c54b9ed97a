//! The one error type of the contract crate.

/// Why a wire message or id could not be read. Messages say what was expected and what came.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ContractError {
    /// The text was not JSON, or the envelope itself (not its `data`) was malformed.
    #[error("invalid message: {0}")]
    Malformed(String),
    /// The envelope's `type` is not one of the seven the contract defines.
    #[error("unknown message type `{found}`, expected one of {expected}")]
    UnknownType { found: String, expected: String },
    /// The `data` of a known type failed to parse; `path` is the JSON path inside `data`.
    #[error("invalid {message_type} data at `{path}`: {reason}")]
    InvalidData {
        message_type: &'static str,
        path: String,
        reason: String,
    },
    /// An id did not have the `<prefix>_<ULID>` form.
    #[error("invalid {kind} id `{value}`: {reason}")]
    InvalidId {
        kind: &'static str,
        value: String,
        reason: String,
    },
}
