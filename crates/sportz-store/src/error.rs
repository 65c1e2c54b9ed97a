//! The store's one error type. Driver errors never travel upward as they are: they are classified
//! (a unique violation is a conflict, a foreign-key violation names the missing parent) and logged,
//! and the caller gets a variant it can map to a status code.

/// Why a store call failed. Messages start lowercase and say what was expected.
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The row the call names (or the parent of a row it creates) does not exist.
    #[error("{what} `{id}` not found")]
    NotFound { what: &'static str, id: String },
    /// The call contradicts existing data or the row's state (a duplicate, a running match).
    #[error("{what} conflict: {detail}")]
    Conflict { what: &'static str, detail: String },
    /// The input cannot be stored as given (a malformed cursor, an out-of-range value).
    #[error("invalid input: {0}")]
    Invalid(String),
    /// The database cannot be reached or is busy; retrying later may succeed.
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// A bug or a corrupt row; the details are in the log.
    #[error("internal store error: {0}")]
    Internal(String),
}

/// Shorthand for store results.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

impl StoreError {
    pub(crate) fn not_found(what: &'static str, id: impl ToString) -> Self {
        Self::NotFound {
            what,
            id: id.to_string(),
        }
    }

    pub(crate) fn conflict(what: &'static str, detail: impl Into<String>) -> Self {
        Self::Conflict {
            what,
            detail: detail.into(),
        }
    }

    pub(crate) fn corrupt(what: &str, detail: impl std::fmt::Display) -> Self {
        tracing::error!("corrupt {what} row: {detail}");
        Self::Internal(format!("a stored {what} could not be read: {detail}"))
    }
}

/// What a constraint violation means, whatever the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Violation {
    Unique,
    ForeignKey,
    Check,
    NotNull,
}

/// The parent a foreign key or the thing a unique constraint is about, from the constraint's
/// name (Postgres: `commentary_match_id_fkey`) or the columns SQLite lists
/// (`commentary.match_id, commentary.sequence`).
pub(crate) fn subject_of(constraint: &str) -> &'static str {
    const SUBJECTS: [(&str, &str); 9] = [
        ("session_id", "session"),
        ("sequence", "commentary"),
        ("event_id", "event"),
        ("token_hash", "token"),
        ("api_tokens", "token"),
        ("settings", "setting"),
        ("match_id", "match"),
        ("processing_sessions", "session"),
        ("matches", "match"),
    ];
    SUBJECTS
        .iter()
        .find(|(needle, _)| constraint.contains(needle))
        .map_or("row", |(_, subject)| subject)
}

/// The public error for a constraint violation while doing `context` (e.g. "insert commentary").
pub(crate) fn from_violation(
    kind: Violation,
    constraint: &str,
    context: &str,
    detail: &str,
) -> StoreError {
    let subject = subject_of(constraint);
    match kind {
        Violation::Unique => {
            StoreError::conflict(subject, format!("{context}: {subject} already exists"))
        }
        Violation::ForeignKey => StoreError::NotFound {
            what: subject,
            id: format!("referenced by {context}"),
        },
        Violation::Check | Violation::NotNull => {
            StoreError::Invalid(format!("{context}: value out of range ({detail})"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(kind: Violation, constraint: &str, want: &str) {
        let got = from_violation(kind, constraint, "insert x", "detail").to_string();
        assert_eq!(got, want, "{kind:?} {constraint}");
    }

    #[test]
    fn violations_map_to_typed_errors() {
        check(
            Violation::Unique,
            "commentary.match_id, commentary.sequence",
            "commentary conflict: insert x: commentary already exists",
        );
        check(
            Violation::Unique,
            "commentary_match_id_sequence_key",
            "commentary conflict: insert x: commentary already exists",
        );
        check(
            Violation::Unique,
            "api_tokens_token_hash_key",
            "token conflict: insert x: token already exists",
        );
        check(
            Violation::ForeignKey,
            "commentary_match_id_fkey",
            "match `referenced by insert x` not found",
        );
        check(
            Violation::ForeignKey,
            "events_session_id_fkey",
            "session `referenced by insert x` not found",
        );
        check(
            Violation::Check,
            "matches_home_score_check",
            "invalid input: insert x: value out of range (detail)",
        );
        check(
            Violation::Unique,
            "something_else",
            "row conflict: insert x: row already exists",
        );
    }

    #[test]
    fn messages_are_lowercase_and_name_the_row() {
        let e = StoreError::not_found("match", "match_01JC0000000000000000000000");
        assert_eq!(
            e.to_string(),
            "match `match_01JC0000000000000000000000` not found"
        );
    }
}
