//! The typed rows the store returns and the inputs it takes. The store builds no wire or REST
//! shapes: the API turns rows into them (`sportz_api::dto`). What a row derives for the domain
//! stays here: a match's phase at a time and the [`SessionConfig`] a worker gets.
//! Every row and input type is here (≈ 600 lines with the tests), so the store's vocabulary reads
//! in one place; how columns are interpreted is in `rows.rs`.

use serde::{Deserialize, Serialize};
use sportz_contract::match_centre::MatchPhase;
use sportz_contract::status::StatusDecision;
use sportz_contract::worker::PointPair;
use sportz_contract::{
    EventData, EventId, EventKind, MatchId, MatchStatus, SessionConfig, SessionId, SessionStatus,
    VideoSource,
};
use time::OffsetDateTime;

use crate::error::{Result, StoreError};

/// The most rows one page returns, whatever the caller asks for.
pub const MAX_PAGE_SIZE: u32 = 500;
/// The page size when the caller does not say.
pub const DEFAULT_PAGE_SIZE: u32 = 50;

/// How a video is processed (the columns behind a session's [`SessionConfig`], less the source
/// and the calibration, which are stored beside them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProcessingSettings {
    /// Frames per second to sample at; `None` keeps the source's rate.
    pub target_fps: Option<f64>,
    /// Read files at native speed rather than as fast as possible.
    pub realtime: bool,
    /// Detector model path or name; `None` for the worker's default.
    pub model: Option<String>,
    /// 0..=1.
    pub confidence_threshold: f64,
    pub enable_tracking: bool,
    pub enable_teams: bool,
    pub enable_events: bool,
}

impl Default for ProcessingSettings {
    /// The contract's defaults ([`SessionConfig::new`]).
    fn default() -> Self {
        let c = SessionConfig::new(VideoSource::Synthetic(0));
        Self {
            target_fps: c.target_fps,
            realtime: c.realtime,
            model: c.model,
            confidence_threshold: c.confidence_threshold,
            enable_tracking: c.enable_tracking,
            enable_teams: c.enable_teams,
            enable_events: c.enable_events,
        }
    }
}

impl ProcessingSettings {
    pub(crate) fn validate(&self) -> Result<()> {
        if let Some(fps) = self.target_fps
            && !(fps.is_finite() && fps > 0.0)
        {
            return Err(StoreError::Invalid(format!(
                "targetFps must be a positive number, got {fps}"
            )));
        }
        if !(0.0..=1.0).contains(&self.confidence_threshold) {
            return Err(StoreError::Invalid(format!(
                "confidenceThreshold must be between 0 and 1, got {}",
                self.confidence_threshold
            )));
        }
        Ok(())
    }
}

/// A stored match.
#[derive(Debug, Clone, PartialEq)]
pub struct Match {
    pub id: MatchId,
    pub name: String,
    pub sport: String,
    pub home_team: String,
    pub away_team: String,
    pub competition: Option<String>,
    pub start_time: Option<OffsetDateTime>,
    pub end_time: Option<OffsetDateTime>,
    pub home_score: u32,
    pub away_score: u32,
    /// The one status model (see `migrations/README.md`).
    pub status: MatchStatus,
    pub status_message: Option<String>,
    /// The last error a session reported, kept after the match leaves `failed`.
    pub last_error: Option<String>,
    pub video_source: Option<VideoSource>,
    pub settings: ProcessingSettings,
    pub calibration: Vec<PointPair>,
    /// The session whose status updates count; updates from any other are ignored.
    pub current_session_id: Option<SessionId>,
    /// Events stored for the match (duplicates are not counted).
    pub event_count: u64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

impl Match {
    /// The match-card phase at `now` (derived, never stored).
    #[must_use]
    pub fn phase(&self, now: OffsetDateTime) -> MatchPhase {
        MatchPhase::of(self.status, now, self.start_time, self.end_time)
    }

    /// What a worker needs to process the match, or `None` without a video source.
    #[must_use]
    pub fn session_config(&self) -> Option<SessionConfig> {
        let source = self.video_source.clone()?;
        let s = &self.settings;
        Some(SessionConfig {
            source,
            target_fps: s.target_fps,
            realtime: s.realtime,
            model: s.model.clone(),
            confidence_threshold: s.confidence_threshold,
            calibration: self.calibration.clone(),
            enable_tracking: s.enable_tracking,
            enable_teams: s.enable_teams,
            enable_events: s.enable_events,
            start_at: None,
        })
    }
}

/// A match to create. It starts `draft`, or `ready` when it has a video source.
#[derive(Debug, Clone, PartialEq)]
pub struct NewMatch {
    pub name: String,
    pub sport: String,
    pub home_team: String,
    pub away_team: String,
    pub competition: Option<String>,
    pub start_time: Option<OffsetDateTime>,
    pub end_time: Option<OffsetDateTime>,
    pub video_source: Option<VideoSource>,
    pub settings: ProcessingSettings,
}

impl NewMatch {
    /// A match between two teams with everything else unset (sport `football`).
    #[must_use]
    pub fn new(name: &str, home_team: &str, away_team: &str) -> Self {
        Self {
            name: name.to_owned(),
            sport: "football".to_owned(),
            home_team: home_team.to_owned(),
            away_team: away_team.to_owned(),
            competition: None,
            start_time: None,
            end_time: None,
            video_source: None,
            settings: ProcessingSettings::default(),
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        for (field, value) in [
            ("name", &self.name),
            ("sport", &self.sport),
            ("homeTeam", &self.home_team),
            ("awayTeam", &self.away_team),
        ] {
            non_empty(field, value)?;
        }
        check_times(self.start_time, self.end_time)?;
        self.settings.validate()
    }
}

/// A partial update of a match: `None` leaves a field as it is; `Some(None)` clears an optional
/// one. Changing the video source of a `draft`/`ready` match moves it between the two.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchUpdate {
    pub name: Option<String>,
    pub sport: Option<String>,
    pub home_team: Option<String>,
    pub away_team: Option<String>,
    pub competition: Option<Option<String>>,
    pub start_time: Option<Option<OffsetDateTime>>,
    pub end_time: Option<Option<OffsetDateTime>>,
    /// Refused (conflict) while a session is active.
    pub video_source: Option<Option<VideoSource>>,
    /// Refused (conflict) while a session is active.
    pub settings: Option<ProcessingSettings>,
    /// Set a status directly (e.g. `ready` again after `failed`); `ready` needs a video source.
    pub status: Option<MatchStatus>,
    pub status_message: Option<Option<String>>,
}

impl MatchUpdate {
    /// Applies the update to a row read inside the writing transaction.
    pub(crate) fn apply(self, m: &mut Match, now: OffsetDateTime) -> Result<()> {
        let touches_processing = self.video_source.is_some() || self.settings.is_some();
        if touches_processing && m.status.is_active() {
            return Err(StoreError::conflict(
                "match",
                format!(
                    "match `{}` is {}; stop it before changing its video source or processing settings",
                    m.id,
                    m.status.as_str()
                ),
            ));
        }
        for (field, value, slot) in [
            ("name", self.name, &mut m.name),
            ("sport", self.sport, &mut m.sport),
            ("homeTeam", self.home_team, &mut m.home_team),
            ("awayTeam", self.away_team, &mut m.away_team),
        ] {
            if let Some(v) = value {
                non_empty(field, &v)?;
                *slot = v;
            }
        }
        if let Some(c) = self.competition {
            m.competition = c;
        }
        if let Some(t) = self.start_time {
            m.start_time = t;
        }
        if let Some(t) = self.end_time {
            m.end_time = t;
        }
        check_times(m.start_time, m.end_time)?;
        if let Some(settings) = self.settings {
            settings.validate()?;
            m.settings = settings;
        }
        if let Some(source) = self.video_source {
            m.video_source = source;
            m.status = match (m.status, m.video_source.is_some()) {
                (MatchStatus::Draft, true) => MatchStatus::Ready,
                (MatchStatus::Ready, false) => MatchStatus::Draft,
                (s, _) => s,
            };
        }
        if let Some(status) = self.status {
            if status == MatchStatus::Ready && m.video_source.is_none() {
                return Err(StoreError::Invalid(
                    "status `ready` needs a video source; set videoSource first".to_owned(),
                ));
            }
            m.status = status;
        }
        if let Some(msg) = self.status_message {
            m.status_message = msg;
        }
        m.updated_at = now;
        Ok(())
    }
}

fn non_empty(field: &str, value: &str) -> Result<()> {
    if value.trim().is_empty() {
        return Err(StoreError::Invalid(format!("{field} must not be empty")));
    }
    Ok(())
}

fn check_times(start: Option<OffsetDateTime>, end: Option<OffsetDateTime>) -> Result<()> {
    match (start, end) {
        (Some(s), Some(e)) if e < s => Err(StoreError::Invalid(format!(
            "endTime ({e}) must not be before startTime ({s})"
        ))),
        _ => Ok(()),
    }
}

/// Which matches to list. Newest first (`created_at`, then id), paged by an opaque cursor.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MatchFilter {
    pub status: Option<MatchStatus>,
    /// Only matches in this phase at `now` (the same rule as [`MatchPhase::of`]).
    pub phase: Option<(MatchPhase, OffsetDateTime)>,
    pub page: PageRequest,
}

/// Where a page starts and how long it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageRequest {
    /// `next_cursor` of the previous page; `None` for the first page.
    pub cursor: Option<String>,
    /// 1..=[`MAX_PAGE_SIZE`] (larger values are capped); `None` for [`DEFAULT_PAGE_SIZE`].
    pub limit: Option<u32>,
}

impl PageRequest {
    /// The first page of `limit` rows.
    #[must_use]
    pub const fn first(limit: u32) -> Self {
        Self {
            cursor: None,
            limit: Some(limit),
        }
    }

    /// The page after the one that returned `cursor`.
    #[must_use]
    pub const fn after(cursor: String, limit: u32) -> Self {
        Self {
            cursor: Some(cursor),
            limit: Some(limit),
        }
    }
}

/// One page of rows and the cursor of the next (`None` on the last page).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub next_cursor: Option<String>,
}

/// A commentary entry.
#[derive(Debug, Clone, PartialEq)]
pub struct Commentary {
    pub id: i64,
    pub match_id: MatchId,
    pub minute: Option<u32>,
    /// Order within the match (> 0), unique per match.
    pub sequence: u32,
    pub period: Option<String>,
    pub event_type: String,
    pub actor: Option<String>,
    pub team: Option<String>,
    pub message: String,
    /// A JSON object, or `None`.
    pub metadata: Option<serde_json::Value>,
    pub tags: Vec<String>,
    pub created_at: OffsetDateTime,
}

/// A commentary entry to add.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCommentary {
    pub match_id: MatchId,
    pub minute: Option<u32>,
    pub sequence: u32,
    pub period: Option<String>,
    pub event_type: String,
    pub actor: Option<String>,
    pub team: Option<String>,
    pub message: String,
    pub metadata: Option<serde_json::Value>,
    pub tags: Vec<String>,
}

impl NewCommentary {
    /// The required fields only.
    #[must_use]
    pub fn new(match_id: MatchId, sequence: u32, event_type: &str, message: &str) -> Self {
        Self {
            match_id,
            minute: None,
            sequence,
            period: None,
            event_type: event_type.to_owned(),
            actor: None,
            team: None,
            message: message.to_owned(),
            metadata: None,
            tags: Vec::new(),
        }
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.sequence == 0 {
            return Err(StoreError::Invalid(
                "sequence must be greater than 0".to_owned(),
            ));
        }
        non_empty("eventType", &self.event_type)?;
        non_empty("message", &self.message)?;
        if let Some(m) = &self.metadata
            && !(m.is_object() || m.is_null())
        {
            return Err(StoreError::Invalid(
                "metadata must be a JSON object or null".to_owned(),
            ));
        }
        Ok(())
    }
}

/// One processing session of a match.
#[derive(Debug, Clone, PartialEq)]
pub struct Session {
    pub id: SessionId,
    pub match_id: MatchId,
    pub worker_id: Option<String>,
    /// What the worker last reported (the match keeps the API's view of it).
    pub status: SessionStatus,
    /// Execution device, e.g. `cpu`, `cuda:0`.
    pub device: Option<String>,
    /// The configuration the session was started with.
    pub config: SessionConfig,
    pub frames_processed: u64,
    pub avg_fps: Option<f64>,
    pub avg_latency_ms: Option<f64>,
    pub error: Option<String>,
    pub started_at: OffsetDateTime,
    /// Set when the session reaches a terminal status.
    pub stopped_at: Option<OffsetDateTime>,
    pub updated_at: OffsetDateTime,
    /// The highest `seq` of a worker status update applied to the session (0: none yet); an
    /// update with a lower one is older than what is stored and is ignored.
    pub last_status_seq: u64,
}

/// A status update from a worker (`status:updates`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionStatusUpdate {
    pub session_id: SessionId,
    pub status: SessionStatus,
    /// Stored as the match's status message when the update applies.
    pub message: Option<String>,
    pub worker_id: Option<String>,
    pub device: Option<String>,
    /// Stored on the session, and as the match's last error when the update applies.
    pub error: Option<String>,
    /// The envelope's `seq` (the worker's one sequence per session); `None` for updates that
    /// are not the worker's (the watchdog's), which are not ordered.
    pub seq: Option<u64>,
}

impl SessionStatusUpdate {
    /// An update with only a status.
    #[must_use]
    pub const fn new(session_id: SessionId, status: SessionStatus) -> Self {
        Self {
            session_id,
            status,
            message: None,
            worker_id: None,
            device: None,
            error: None,
            seq: None,
        }
    }
}

/// What [`crate::Store::apply_session_status`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct StatusOutcome {
    /// `Apply(status)` when the match took the update, `Ignore(reason)` otherwise.
    pub decision: StatusDecision,
    /// The match after the call (unchanged when ignored).
    pub match_row: Match,
}

impl StatusOutcome {
    #[must_use]
    pub const fn applied(&self) -> bool {
        matches!(self.decision, StatusDecision::Apply(_))
    }
}

/// A session's running figures (from `metrics`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SessionStats {
    pub frames_processed: u64,
    pub avg_fps: Option<f64>,
    pub avg_latency_ms: Option<f64>,
}

/// A detected event to store; idempotent on `(match_id, data.event_id)`.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEvent {
    pub match_id: MatchId,
    pub session_id: Option<SessionId>,
    pub data: EventData,
}

/// A stored event.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    /// The row id (the tie-breaker of the stable order).
    pub id: i64,
    pub match_id: MatchId,
    pub session_id: Option<SessionId>,
    /// The contract's `event.data`, as received.
    pub data: EventData,
    pub created_at: OffsetDateTime,
}

impl StoredEvent {
    #[must_use]
    pub const fn event_id(&self) -> EventId {
        self.data.event_id
    }
}

/// Which events to list: one match's, in frame order (then row id), paged by an opaque cursor.
#[derive(Debug, Clone, PartialEq)]
pub struct EventFilter {
    pub match_id: MatchId,
    pub kind: Option<EventKind>,
    pub session_id: Option<SessionId>,
    pub page: PageRequest,
}

impl EventFilter {
    /// All events of a match, first page of `limit`.
    #[must_use]
    pub const fn of_match(match_id: MatchId, limit: u32) -> Self {
        Self {
            match_id,
            kind: None,
            session_id: None,
            page: PageRequest::first(limit),
        }
    }
}

/// What an API token may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TokenRole {
    /// Create and edit matches, start and stop sessions, post commentary and scores.
    Operator,
    /// Read only.
    Viewer,
}

impl TokenRole {
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Operator => "operator",
            Self::Viewer => "viewer",
        }
    }
}

impl std::str::FromStr for TokenRole {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "operator" => Ok(Self::Operator),
            "viewer" => Ok(Self::Viewer),
            _ => Err(format!(
                "unknown token role `{s}`, expected operator or viewer"
            )),
        }
    }
}

/// A stored API token (its secret is never stored, only its SHA-256).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiToken {
    pub id: i64,
    pub role: TokenRole,
    pub label: Option<String>,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
}

/// A token just created: the row and the secret, shown once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewToken {
    pub token: ApiToken,
    /// `sportz_<43 base64url characters>`; give it to the user, it cannot be read back.
    pub secret: String,
}

/// The store's clock: UTC, truncated to microseconds (what both engines keep).
#[must_use]
pub fn now() -> OffsetDateTime {
    truncate_us(OffsetDateTime::now_utc())
}

/// `t` truncated to whole microseconds, as stored.
#[must_use]
pub fn truncate_us(t: OffsetDateTime) -> OffsetDateTime {
    let nanos = t.nanosecond();
    t.replace_nanosecond(nanos - nanos % 1_000)
        .expect("a smaller nanosecond is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_makes_a_draft_ready_and_its_removal_a_draft_again() {
        let mut m = Match {
            id: MatchId::generate(),
            name: "a".into(),
            sport: "football".into(),
            home_team: "h".into(),
            away_team: "a".into(),
            competition: None,
            start_time: None,
            end_time: None,
            home_score: 0,
            away_score: 0,
            status: MatchStatus::Draft,
            status_message: None,
            last_error: None,
            video_source: None,
            settings: ProcessingSettings::default(),
            calibration: Vec::new(),
            current_session_id: None,
            event_count: 0,
            created_at: now(),
            updated_at: now(),
        };
        let set = MatchUpdate {
            video_source: Some(Some(VideoSource::Synthetic(1))),
            ..MatchUpdate::default()
        };
        set.apply(&mut m, now()).unwrap();
        assert_eq!(m.status, MatchStatus::Ready);
        let clear = MatchUpdate {
            video_source: Some(None),
            ..MatchUpdate::default()
        };
        clear.clone().apply(&mut m, now()).unwrap();
        assert_eq!(m.status, MatchStatus::Draft);
        m.status = MatchStatus::Processing;
        let err = clear.apply(&mut m, now()).unwrap_err();
        assert!(matches!(err, StoreError::Conflict { .. }), "{err}");
        let bad = MatchUpdate {
            name: Some("  ".into()),
            ..MatchUpdate::default()
        };
        assert_eq!(
            bad.apply(&mut m, now()).unwrap_err(),
            StoreError::Invalid("name must not be empty".into())
        );
    }
}
