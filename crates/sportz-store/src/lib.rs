//! The sportz store: matches, commentary, processing sessions, events, API tokens and settings,
//! behind one async trait, [`Store`], with two engines that pass one story test:
//!
//! - [`SqliteStore`]: the embedded default, a SQLite file (WAL) driven by rusqlite on its own
//!   threads (one writer, a few readers), so the async runtime never blocks on disk;
//! - [`PgStore`]: Postgres through an sqlx pool, for server deployments.
//!
//! Both apply their embedded, versioned migrations (`migrations/<engine>/`) when opened.
//! Semantics they share: events are idempotent on `(match, event_id)`; status updates from
//! superseded sessions are ignored ([`sportz_contract::status::decide_status_update`]); pages are
//! in a stable order with opaque cursors; constraint violations become [`StoreError::NotFound`]
//! or [`StoreError::Conflict`], never a driver error.
//!
//! The store knows nothing of the bus, the API or the worker: it takes and returns plain rows.

mod error;
mod logic;
pub mod migrate;
mod model;
mod page;
mod postgres;
mod rows;
mod sqlite;
mod token;

use std::sync::Arc;

use async_trait::async_trait;
use sportz_contract::worker::PointPair;
use sportz_contract::{DesiredState, EventId, MatchId, SessionId};

pub use error::{Result, StoreError};
pub use model::{
    ApiToken, Commentary, DEFAULT_PAGE_SIZE, EventFilter, MAX_PAGE_SIZE, Match, MatchFilter,
    MatchUpdate, NewCommentary, NewEvent, NewMatch, NewToken, Page, PageRequest,
    ProcessingSettings, Session, SessionStats, SessionStatusUpdate, StatusOutcome, StoredEvent,
    TokenRole, now, truncate_us,
};
pub use postgres::PgStore;
pub use sqlite::{SqliteOptions, SqliteStore, Synchronous};

/// Which engine a store runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Sqlite,
    Postgres,
}

/// Everything the API and the consumers persist. Object-safe: hold it as `Arc<dyn Store>`.
///
/// Every method returns a [`StoreError`] that says what is missing or conflicting; `NotFound`
/// names the row (for creations, the missing parent).
#[async_trait]
pub trait Store: Send + Sync + std::fmt::Debug {
    fn engine(&self) -> Engine;

    /// One round trip to the database (readiness checks).
    async fn ping(&self) -> Result<()>;

    // ---- matches ----

    /// Creates a match (`draft`, or `ready` when it has a video source).
    async fn create_match(&self, new: NewMatch) -> Result<Match>;
    async fn get_match(&self, id: MatchId) -> Result<Match>;
    /// Newest first (`created_at`, then id), filtered, one page.
    async fn list_matches(&self, filter: MatchFilter) -> Result<Page<Match>>;
    /// Applies a partial update and returns the new row.
    async fn update_match(&self, id: MatchId, update: MatchUpdate) -> Result<Match>;
    /// Deletes a match with its commentary, sessions and events. `Conflict` while its status is
    /// active (starting, processing, paused): stop it first.
    async fn delete_match(&self, id: MatchId) -> Result<()>;
    /// Sets the score and returns the new row.
    async fn update_score(&self, id: MatchId, home_score: u32, away_score: u32) -> Result<Match>;
    async fn get_calibration(&self, id: MatchId) -> Result<Vec<PointPair>>;
    /// Replaces the calibration point pairs and returns the new row.
    async fn set_calibration(&self, id: MatchId, pairs: Vec<PointPair>) -> Result<Match>;

    // ---- commentary ----

    /// Adds an entry; `Conflict` when the match already has its sequence number.
    async fn add_commentary(&self, new: NewCommentary) -> Result<Commentary>;
    /// Newest first (`created_at`, then id), one page.
    async fn list_commentary(
        &self,
        match_id: MatchId,
        page: PageRequest,
    ) -> Result<Page<Commentary>>;

    // ---- processing sessions ----

    /// Starts a session: records it (`starting`, with the match's current configuration), makes it
    /// the match's current session and sets the match `starting` with `status_message` (in the
    /// same transaction: a takeover's "taken over from …" is never missing from the new
    /// session's first state). A previous current session that had not ended is marked
    /// `stopped` (superseded). `Conflict` without a video source.
    async fn create_session(
        &self,
        match_id: MatchId,
        session_id: SessionId,
        status_message: Option<String>,
    ) -> Result<Session>;
    /// Records a worker's status update on its session, and on the match when
    /// [`sportz_contract::status::decide_status_update`] says so (the match's current session and
    /// the desired state the caller read from the control key decide).
    async fn apply_session_status(
        &self,
        update: SessionStatusUpdate,
        desired: Option<DesiredState>,
    ) -> Result<StatusOutcome>;
    /// Records a session's running figures.
    async fn update_session_stats(
        &self,
        session_id: SessionId,
        stats: SessionStats,
    ) -> Result<Session>;
    async fn get_session(&self, id: SessionId) -> Result<Session>;
    /// A match's sessions, newest first.
    async fn list_sessions(&self, match_id: MatchId) -> Result<Vec<Session>>;

    // ---- events ----

    /// Stores an event once: `Ok(true)` when it was new, `Ok(false)` when its `event_id` was
    /// already stored for the match. The match's event count grows only for new events.
    async fn insert_event(&self, event: NewEvent) -> Result<bool>;
    /// Stores a batch in one transaction; returns how many were new. All or nothing on error.
    async fn insert_events(&self, events: Vec<NewEvent>) -> Result<usize>;
    /// In frame order (then row id), filtered, one page.
    async fn list_events(&self, filter: EventFilter) -> Result<Page<StoredEvent>>;
    /// The `limit` most recent events (by frame, then row id) of a match's current session (and
    /// events stored without a session), oldest first: the snapshot a newly connected live
    /// client gets. After a restart that is the new session's events, not the previous one's.
    async fn recent_events(&self, match_id: MatchId, limit: u32) -> Result<Vec<StoredEvent>>;
    /// The events of a match stored after `after` (one of its event ids), in the order they
    /// were stored, at most `limit`: what a live client that saw `after` last has missed.
    /// `Ok(None)` when the match has no such event (the client's id is from elsewhere: it gets
    /// the usual snapshot instead).
    async fn events_after(
        &self,
        match_id: MatchId,
        after: EventId,
        limit: u32,
    ) -> Result<Option<Vec<StoredEvent>>>;

    // ---- API tokens ----

    /// Creates a token; the secret is in the result only.
    async fn create_token(&self, role: TokenRole, label: Option<String>) -> Result<NewToken>;
    /// The token a secret belongs to (`None` for an unknown or revoked one); records its use.
    async fn verify_token(&self, secret: &str) -> Result<Option<ApiToken>>;
    async fn list_tokens(&self) -> Result<Vec<ApiToken>>;
    async fn revoke_token(&self, id: i64) -> Result<()>;

    // ---- settings ----

    async fn get_setting(&self, key: &str) -> Result<Option<serde_json::Value>>;
    async fn set_setting(&self, key: &str, value: serde_json::Value) -> Result<()>;
    /// All settings, by key.
    async fn list_settings(&self) -> Result<Vec<(String, serde_json::Value)>>;
}

/// Opens the store a target names: `postgres://…`/`postgresql://…` connects to Postgres, anything
/// else is a SQLite file path (an optional `sqlite://` prefix is stripped).
///
/// # Errors
/// [`StoreError::Unavailable`] when the database cannot be opened or migrated.
pub async fn open(target: &str) -> Result<Arc<dyn Store>> {
    if target.starts_with("postgres://") || target.starts_with("postgresql://") {
        Ok(Arc::new(PgStore::connect(target).await?))
    } else {
        let path = target
            .strip_prefix("sqlite://")
            .or_else(|| target.strip_prefix("sqlite:"))
            .unwrap_or(target);
        Ok(Arc::new(SqliteStore::open(path).await?))
    }
}
