//! The Sportz match centre on `/ws` (seed `realtime-deep-dive.txt`), with the Sportz camelCase
//! field names so existing clients work unchanged:
//!
//! | direction | message |
//! |---|---|
//! | server → client | `{type: 'welcome'}` on connect |
//! | client → server | `{type: 'subscribe', matchId}` / `{type: 'unsubscribe', matchId}` |
//! | server → client | `{type: 'subscribed', matchId}` / `{type: 'unsubscribed', matchId}` |
//! | server → client | `{type: 'match_created', data}`, `{type: 'score_update', data}`: to **all** clients |
//! | server → client | `{type: 'match_updated', data}` (an addition: status/details changed): to **all** clients |
//! | server → client | `{type: 'commentary', data}`: to **that match's subscribers** only |
//! | server → client | `{type: 'error', message}`: malformed input (the connection stays open) |

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::status::MatchStatus;
use crate::worker::VideoSource;
use crate::{ContractError, MatchId, SessionId};

/// How the match card shows a match: upcoming, live or final.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchPhase {
    Scheduled,
    Live,
    Finished,
}

impl MatchPhase {
    /// The phase at `now`: a running session makes a match live and a completed one final;
    /// otherwise the kick-off and end times decide.
    #[must_use]
    pub fn of(
        status: MatchStatus,
        now: OffsetDateTime,
        start: Option<OffsetDateTime>,
        end: Option<OffsetDateTime>,
    ) -> Self {
        match status {
            MatchStatus::Processing | MatchStatus::Paused | MatchStatus::Starting => {
                return Self::Live;
            }
            MatchStatus::Completed => return Self::Finished,
            MatchStatus::Draft | MatchStatus::Ready | MatchStatus::Failed => {}
        }
        match (start, end) {
            (_, Some(end)) if now >= end => Self::Finished,
            (Some(start), _) if now >= start => Self::Live,
            _ => Self::Scheduled,
        }
    }
}

/// A match as REST returns it and `match_created` carries it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MatchDto {
    pub id: MatchId,
    pub name: String,
    pub sport: String,
    pub home_team: String,
    pub away_team: String,
    pub competition: Option<String>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub start_time: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    pub end_time: Option<OffsetDateTime>,
    pub home_score: u32,
    pub away_score: u32,
    pub status: MatchStatus,
    pub phase: MatchPhase,
    pub status_message: Option<String>,
    pub video_source: Option<VideoSource>,
    pub current_session_id: Option<SessionId>,
    pub event_count: u64,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// `score_update.data`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScoreUpdate {
    pub match_id: MatchId,
    pub home_score: u32,
    pub away_score: u32,
}

/// A commentary row as REST returns it and `commentary` carries it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CommentaryDto {
    pub id: i64,
    pub match_id: MatchId,
    pub minute: Option<u32>,
    /// Order within the match (> 0).
    pub sequence: u32,
    pub period: Option<String>,
    pub event_type: String,
    pub actor: Option<String>,
    pub team: Option<String>,
    pub message: String,
    /// A JSON object, or `null`.
    pub metadata: Option<serde_json::Value>,
    pub tags: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
}

/// A message a `/ws` client sends.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMessage {
    #[serde(rename_all = "camelCase")]
    Subscribe { match_id: MatchId },
    #[serde(rename_all = "camelCase")]
    Unsubscribe { match_id: MatchId },
}

impl ClientMessage {
    /// Reads a client's text frame.
    ///
    /// # Errors
    /// [`ContractError::Malformed`] with a message for the client that says what was expected.
    pub fn from_json(text: &str) -> Result<Self, ContractError> {
        const EXPECTED: &str =
            r#"expected {"type":"subscribe"|"unsubscribe","matchId":"match_<ULID>"}"#;
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| ContractError::Malformed(format!("not JSON ({e}); {EXPECTED}")))?;
        let Some(kind) = value.get("type").and_then(serde_json::Value::as_str) else {
            return Err(ContractError::Malformed(format!(
                "missing string field `type`; {EXPECTED}"
            )));
        };
        if kind != "subscribe" && kind != "unsubscribe" {
            return Err(ContractError::Malformed(format!(
                "unknown message type `{kind}`; {EXPECTED}"
            )));
        }
        serde_json::from_value(value)
            .map_err(|e| ContractError::Malformed(format!("{e}; {EXPECTED}")))
    }
}

/// A message the server sends on `/ws`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMessage {
    Welcome,
    #[serde(rename_all = "camelCase")]
    Subscribed {
        match_id: MatchId,
    },
    #[serde(rename_all = "camelCase")]
    Unsubscribed {
        match_id: MatchId,
    },
    MatchCreated {
        data: Box<MatchDto>,
    },
    ScoreUpdate {
        data: ScoreUpdate,
    },
    /// Addition to the seed: a match's status or details changed (e.g. it went live). Global.
    MatchUpdated {
        data: Box<MatchDto>,
    },
    Commentary {
        data: Box<CommentaryDto>,
    },
    Error {
        message: String,
    },
}

impl ServerMessage {
    /// Whether the message goes to every client (`match_created`, `score_update`) rather than to
    /// one match's room (`commentary`) or one socket (the rest).
    #[must_use]
    pub const fn is_global(&self) -> bool {
        matches!(
            self,
            Self::MatchCreated { .. } | Self::ScoreUpdate { .. } | Self::MatchUpdated { .. }
        )
    }

    /// The room a room-scoped message goes to.
    #[must_use]
    pub fn room(&self) -> Option<&MatchId> {
        match self {
            Self::Commentary { data } => Some(&data.match_id),
            _ => None,
        }
    }

    /// The message as JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("match-centre messages always serialise")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn phase_follows_status_then_times() {
        let now = datetime!(2026-06-01 18:00 UTC);
        let before = Some(datetime!(2026-06-01 17:00 UTC));
        let after = Some(datetime!(2026-06-01 19:00 UTC));
        let cases = [
            (MatchStatus::Ready, after, None, MatchPhase::Scheduled),
            (MatchStatus::Draft, None, None, MatchPhase::Scheduled),
            (MatchStatus::Ready, before, after, MatchPhase::Live),
            (MatchStatus::Ready, before, None, MatchPhase::Live),
            (MatchStatus::Ready, before, before, MatchPhase::Finished),
            (MatchStatus::Processing, after, None, MatchPhase::Live),
            (MatchStatus::Paused, None, None, MatchPhase::Live),
            (MatchStatus::Completed, after, None, MatchPhase::Finished),
            (MatchStatus::Failed, after, None, MatchPhase::Scheduled),
        ];
        for (status, start, end, want) in cases {
            assert_eq!(
                MatchPhase::of(status, now, start, end),
                want,
                "{status:?} {start:?} {end:?}"
            );
        }
    }

    fn check_bad(input: &str, needle: &str) {
        let err = ClientMessage::from_json(input).unwrap_err().to_string();
        assert!(
            err.contains(needle),
            "`{input}` → `{err}`, expected `{needle}`"
        );
        assert!(err.contains("expected {"), "{err}");
    }

    #[test]
    fn malformed_client_messages_say_what_was_expected() {
        check_bad("hello", "not JSON");
        check_bad("[1,2]", "missing string field `type`");
        check_bad(r#"{"matchId":"x"}"#, "missing string field `type`");
        check_bad(r#"{"type":"dance"}"#, "unknown message type `dance`");
        check_bad(r#"{"type":"subscribe"}"#, "missing field `matchId`");
        check_bad(r#"{"type":"subscribe","matchId":5}"#, "invalid type");
        check_bad(
            r#"{"type":"subscribe","matchId":"match_1"}"#,
            "invalid match id",
        );
    }

    #[test]
    fn routing_of_server_messages() {
        let m: MatchId = "match_01JC0000000000000000000000".parse().unwrap();
        assert!(
            ServerMessage::ScoreUpdate {
                data: ScoreUpdate {
                    match_id: m,
                    home_score: 1,
                    away_score: 0
                }
            }
            .is_global()
        );
        assert!(!ServerMessage::Welcome.is_global());
        assert_eq!(ServerMessage::Subscribed { match_id: m }.room(), None);
    }
}
