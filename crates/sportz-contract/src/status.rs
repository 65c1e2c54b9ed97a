//! Worker session statuses, match statuses, the desired state the API writes, and the rule the API
//! applies to every status update it consumes.
//!
//! ```text
//! worker session:  starting → processing ⇄ paused
//!                               ⇅
//!                          reconnecting
//!                  any → completed | stopped | failed   (terminal)
//!
//! match (API):     draft → ready → starting → processing ⇄ paused → completed | failed
//! ```
//! A match is `draft` until it has a video source, `ready` once it can be started. The worker's
//! statuses map onto it with `stopped → completed` and `reconnecting → processing`
//! ([`SessionStatus::to_match_status`]); [`decide_status_update`] drops updates from superseded
//! sessions and updates that contradict the desired state.

use serde::{Deserialize, Serialize};

use crate::SessionId;

/// The status of one processing session, as the worker reports it on `status:updates`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Starting,
    Processing,
    Reconnecting,
    Paused,
    Completed,
    Stopped,
    Failed,
}

/// The status of a match as the API stores and serves it.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Created, no video source yet.
    Draft,
    /// Has a source; can be started.
    Ready,
    /// A start command was sent; no worker has reported processing yet.
    Starting,
    Processing,
    Paused,
    Completed,
    Failed,
}

/// The state the API wants a match's session in (`match:{id}:control`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DesiredState {
    Running,
    Paused,
    Stopped,
}

impl SessionStatus {
    pub const ALL: [Self; 7] = [
        Self::Starting,
        Self::Processing,
        Self::Reconnecting,
        Self::Paused,
        Self::Completed,
        Self::Stopped,
        Self::Failed,
    ];

    /// The wire name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Processing => "processing",
            Self::Reconnecting => "reconnecting",
            Self::Paused => "paused",
            Self::Completed => "completed",
            Self::Stopped => "stopped",
            Self::Failed => "failed",
        }
    }

    /// The session will send nothing more after a terminal status.
    #[must_use]
    pub const fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Stopped | Self::Failed)
    }

    /// The API's mapping: `stopped` becomes `completed`, `reconnecting` becomes `processing`, every
    /// other status keeps its name.
    #[must_use]
    pub const fn to_match_status(self) -> MatchStatus {
        match self {
            Self::Starting => MatchStatus::Starting,
            Self::Processing | Self::Reconnecting => MatchStatus::Processing,
            Self::Paused => MatchStatus::Paused,
            Self::Completed | Self::Stopped => MatchStatus::Completed,
            Self::Failed => MatchStatus::Failed,
        }
    }
}

impl MatchStatus {
    pub const ALL: [Self; 7] = [
        Self::Draft,
        Self::Ready,
        Self::Starting,
        Self::Processing,
        Self::Paused,
        Self::Completed,
        Self::Failed,
    ];

    /// The wire and database name.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Ready => "ready",
            Self::Starting => "starting",
            Self::Processing => "processing",
            Self::Paused => "paused",
            Self::Completed => "completed",
            Self::Failed => "failed",
        }
    }

    /// A session is running or about to (the match cannot be deleted or edited then).
    #[must_use]
    pub const fn is_active(self) -> bool {
        matches!(self, Self::Starting | Self::Processing | Self::Paused)
    }
}

impl std::str::FromStr for MatchStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
            format!("unknown match status `{s}`, expected one of draft, ready, starting, processing, paused, completed, failed")
        })
    }
}

impl std::str::FromStr for SessionStatus {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|v| v.as_str() == s).ok_or_else(|| {
            format!("unknown session status `{s}`, expected one of starting, processing, reconnecting, paused, completed, stopped, failed")
        })
    }
}

/// Why a status update was not applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IgnoreReason {
    /// The update is from a session that is no longer the match's current one.
    Superseded,
    /// The update contradicts the state the API wants (e.g. `processing` after a stop request).
    ContradictsDesired(DesiredState),
    /// The session already ended with this (terminal) status: terminal is final for a session, so
    /// a late or replayed update cannot move its match again.
    SessionEnded(SessionStatus),
    /// The update is older than one already applied to its session (its `seq` is not above the
    /// last applied one): a replayed stream entry arriving after newer statuses.
    OutOfOrder { seq: u64, last: u64 },
}

/// What the API does with one status update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusDecision {
    /// Store this match status.
    Apply(MatchStatus),
    Ignore(IgnoreReason),
}

/// The rule for one update (`update_session` reports `status`), given the match's current session
/// and the desired state in `match:{id}:control` (if any):
/// - an update from any session other than the current one is ignored (superseded);
/// - terminal statuses (`completed`, `stopped`, `failed`) from the current session always apply;
/// - otherwise the update must agree with the desired state: while `stopped` is wanted no
///   non-terminal status applies; while `paused` only `paused` does; while `running`, `paused`
///   does not (a stale pause that arrives after a resume).
#[must_use]
pub fn decide_status_update(
    current_session: Option<&SessionId>,
    desired: Option<DesiredState>,
    update_session: &SessionId,
    status: SessionStatus,
) -> StatusDecision {
    if current_session != Some(update_session) {
        return StatusDecision::Ignore(IgnoreReason::Superseded);
    }
    if status.is_terminal() {
        return StatusDecision::Apply(status.to_match_status());
    }
    let contradicts = match desired {
        None => false,
        Some(DesiredState::Stopped) => true,
        Some(DesiredState::Paused) => status != SessionStatus::Paused,
        Some(DesiredState::Running) => status == SessionStatus::Paused,
    };
    match (contradicts, desired) {
        (true, Some(d)) => StatusDecision::Ignore(IgnoreReason::ContradictsDesired(d)),
        _ => StatusDecision::Apply(status.to_match_status()),
    }
}

/// [`decide_status_update`] for a session whose stored status is `session_now`: an update of a
/// session that is not the current one is still `Superseded`; otherwise, once a session is
/// terminal (`completed`, `stopped`, `failed`) every later update of it is ignored, whatever
/// it says, so a failed or completed match never comes back to `processing` (nor flips between
/// terminal statuses) when a slow worker or a replayed stream entry speaks late.
#[must_use]
pub fn decide_session_update(
    session_now: SessionStatus,
    current_session: Option<&SessionId>,
    desired: Option<DesiredState>,
    update_session: &SessionId,
    status: SessionStatus,
) -> StatusDecision {
    match decide_status_update(current_session, desired, update_session, status) {
        // a superseded session says so first (it was closed when it was superseded)
        superseded @ StatusDecision::Ignore(IgnoreReason::Superseded) => superseded,
        _ if session_now.is_terminal() => {
            StatusDecision::Ignore(IgnoreReason::SessionEnded(session_now))
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use DesiredState as D;
    use SessionStatus as S;

    #[test]
    fn mapping_follows_the_contract() {
        let cases = [
            (S::Starting, MatchStatus::Starting),
            (S::Processing, MatchStatus::Processing),
            (S::Reconnecting, MatchStatus::Processing),
            (S::Paused, MatchStatus::Paused),
            (S::Completed, MatchStatus::Completed),
            (S::Stopped, MatchStatus::Completed),
            (S::Failed, MatchStatus::Failed),
        ];
        for (s, m) in cases {
            assert_eq!(s.to_match_status(), m, "{s:?}");
        }
    }

    fn ses(n: u64) -> SessionId {
        SessionId::from_ulid(ulid::Ulid::from_parts(n, 0))
    }

    fn check(desired: Option<D>, status: S, expected: StatusDecision) {
        let cur = ses(2);
        let got = decide_status_update(Some(&cur), desired, &cur, status);
        assert_eq!(got, expected, "desired {desired:?}, update {status:?}");
    }

    #[test]
    fn superseded_sessions_are_ignored_whatever_they_say() {
        for status in S::ALL {
            let got = decide_status_update(Some(&ses(2)), Some(D::Running), &ses(1), status);
            assert_eq!(
                got,
                StatusDecision::Ignore(IgnoreReason::Superseded),
                "{status:?}"
            );
            let got = decide_status_update(None, None, &ses(1), status);
            assert_eq!(
                got,
                StatusDecision::Ignore(IgnoreReason::Superseded),
                "{status:?}"
            );
        }
    }

    #[test]
    fn desired_state_filters_contradicting_updates() {
        use StatusDecision::{Apply, Ignore};
        let contra = |d| Ignore(IgnoreReason::ContradictsDesired(d));
        // running: everything but a stale pause
        check(Some(D::Running), S::Starting, Apply(MatchStatus::Starting));
        check(
            Some(D::Running),
            S::Processing,
            Apply(MatchStatus::Processing),
        );
        check(
            Some(D::Running),
            S::Reconnecting,
            Apply(MatchStatus::Processing),
        );
        check(Some(D::Running), S::Paused, contra(D::Running));
        // paused: only paused and terminal statuses
        check(Some(D::Paused), S::Paused, Apply(MatchStatus::Paused));
        check(Some(D::Paused), S::Processing, contra(D::Paused));
        check(Some(D::Paused), S::Reconnecting, contra(D::Paused));
        check(Some(D::Paused), S::Starting, contra(D::Paused));
        // stopped: only terminal statuses
        check(Some(D::Stopped), S::Processing, contra(D::Stopped));
        check(Some(D::Stopped), S::Paused, contra(D::Stopped));
        check(Some(D::Stopped), S::Stopped, Apply(MatchStatus::Completed));
        check(
            Some(D::Stopped),
            S::Completed,
            Apply(MatchStatus::Completed),
        );
        check(Some(D::Stopped), S::Failed, Apply(MatchStatus::Failed));
        // terminal statuses of the current session always apply
        check(Some(D::Running), S::Failed, Apply(MatchStatus::Failed));
        check(Some(D::Paused), S::Completed, Apply(MatchStatus::Completed));
        // no control key (expired or never written): nothing contradicts
        check(None, S::Paused, Apply(MatchStatus::Paused));
    }

    #[test]
    fn an_ended_session_moves_nothing() {
        let cur = ses(2);
        for ended in [S::Completed, S::Stopped, S::Failed] {
            for late in S::ALL {
                let got = decide_session_update(ended, Some(&cur), Some(D::Running), &cur, late);
                assert_eq!(
                    got,
                    StatusDecision::Ignore(IgnoreReason::SessionEnded(ended)),
                    "{late:?} after {ended:?}"
                );
            }
        }
        // a superseded session is superseded, ended or not
        for now in [S::Stopped, S::Processing] {
            assert_eq!(
                decide_session_update(now, Some(&cur), None, &ses(1), S::Processing),
                StatusDecision::Ignore(IgnoreReason::Superseded)
            );
        }
        // a session that has not ended follows the usual rule
        for now in [S::Starting, S::Processing, S::Reconnecting, S::Paused] {
            assert_eq!(
                decide_session_update(now, Some(&cur), Some(D::Running), &cur, S::Failed),
                StatusDecision::Apply(MatchStatus::Failed)
            );
        }
    }

    #[test]
    fn names_parse_back() {
        for s in S::ALL {
            assert_eq!(s.as_str().parse::<S>().unwrap(), s);
            assert_eq!(serde_json::to_value(s).unwrap(), s.as_str());
        }
        for m in MatchStatus::ALL {
            assert_eq!(m.as_str().parse::<MatchStatus>().unwrap(), m);
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
        }
        assert!(
            "live"
                .parse::<MatchStatus>()
                .unwrap_err()
                .contains("expected one of")
        );
    }
}
