//! Session controls, under this status machine (anything else is 409):
//!
//! | action | allowed from | effect |
//! |---|---|---|
//! | start | ready, completed, failed | new session: store `starting`, control `running`, command on `worker:commands` |
//! | start | paused | resume: control `running` for the current session |
//! | pause | starting, processing | control `paused` (the worker reports `paused`) |
//! | stop | starting, processing, paused | control `stopped` (the worker reports `stopped` → completed); with no lease, applied at once |
//! | restart | any but draft | new session; the old one sees the control key name another session and exits |
//!
//! A draft match (no video source) cannot be started. Status changes reach `/ws` clients as
//! `match_updated`.

use sportz_contract::status::{DesiredState, MatchStatus, SessionStatus};
use sportz_contract::{Control, MatchId, SessionId, WorkerCommand};
use sportz_store::{EventFilter, Match, Page, Session, SessionStatusUpdate, StoredEvent};

use super::announce_match_updated;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Start,
    Pause,
    Stop,
    Restart,
}

impl Action {
    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Start => "start",
            Self::Pause => "pause",
            Self::Stop => "stop",
            Self::Restart => "restart",
        }
    }
}

/// What an action does from a status (pure: the machine above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    NewSession,
    SetControl(DesiredState),
    Refuse,
}

#[must_use]
pub const fn plan(action: Action, status: MatchStatus) -> Plan {
    use MatchStatus as M;
    match (action, status) {
        (Action::Start, M::Ready | M::Completed | M::Failed) => Plan::NewSession,
        (Action::Start, M::Paused) => Plan::SetControl(DesiredState::Running),
        (Action::Pause, M::Starting | M::Processing) => Plan::SetControl(DesiredState::Paused),
        (Action::Stop, M::Starting | M::Processing | M::Paused) => {
            Plan::SetControl(DesiredState::Stopped)
        }
        (Action::Restart, s) if !matches!(s, M::Draft) => Plan::NewSession,
        _ => Plan::Refuse,
    }
}

fn refusal(action: Action, m: &Match) -> ApiError {
    let why = match (action, m.status) {
        (_, MatchStatus::Draft) => {
            "the match has no video source; set `videoSource` first".to_owned()
        }
        (Action::Start, s) => format!("the match is already {}; stop or restart it", s.as_str()),
        (Action::Pause, s) => format!("only a running match can be paused (it is {})", s.as_str()),
        (Action::Stop, s) => format!("the match is not running (it is {})", s.as_str()),
        (Action::Restart, s) => format!("cannot restart from {}", s.as_str()),
    };
    ApiError::Conflict(format!("cannot {} match {}: {why}", action.name(), m.id))
}

/// Starts, pauses, stops or restarts a match's processing (the table above) and returns the match
/// afterwards; every `/ws` client gets `match_updated`.
///
/// # Errors
/// 404 unknown match, 409 illegal transition, 503 when the bus is down.
pub async fn act(state: &AppState, id: MatchId, action: Action) -> ApiResult<Match> {
    let m = state.store.get_match(id).await?;
    let result = match plan(action, m.status) {
        Plan::Refuse => return Err(refusal(action, &m)),
        Plan::NewSession => new_session(state, &m).await?,
        Plan::SetControl(desired) => {
            let session = m
                .current_session_id
                .ok_or_else(|| ApiError::Conflict(format!("match {id} has no current session")))?;
            state
                .bus
                .set_control(
                    &id,
                    &Control {
                        session_id: session,
                        state: desired,
                    },
                )
                .await?;
            if desired == DesiredState::Stopped && state.bus.lease(&id).await?.is_none() {
                // nobody runs it: record the stop now rather than wait for a worker
                state
                    .store
                    .apply_session_status(
                        SessionStatusUpdate {
                            message: Some("stopped before a worker picked it up".to_owned()),
                            ..SessionStatusUpdate::new(session, SessionStatus::Stopped)
                        },
                        Some(DesiredState::Stopped),
                    )
                    .await?
                    .match_row
            } else {
                m
            }
        }
    };
    announce_match_updated(state, &result).await;
    Ok(result)
}

async fn new_session(state: &AppState, m: &Match) -> ApiResult<Match> {
    let config = m
        .session_config()
        .ok_or_else(|| refusal(Action::Start, m))?;
    start_session(state, m, config, None).await.map(|(m, _)| m)
}

/// Starts a new session of `m` with `config` (the match's current one is superseded): the
/// session row (with `message` on the match from the same write), the control key, the start
/// command. Also the watchdog's takeover.
///
/// # Errors
/// The store refuses the session, or the bus the control key or the command (the session is
/// then failed with that message).
pub(crate) async fn start_session(
    state: &AppState,
    m: &Match,
    config: sportz_contract::worker::SessionConfig,
    message: Option<String>,
) -> ApiResult<(Match, SessionId)> {
    let s = SessionId::generate();
    state.store.create_session(m.id, s, message).await?;
    let sent = async {
        state
            .bus
            .set_control(
                &m.id,
                &Control {
                    session_id: s,
                    state: DesiredState::Running,
                },
            )
            .await?;
        state
            .bus
            .send_command(&WorkerCommand::Start {
                match_id: m.id,
                session_id: s,
                config,
            })
            .await
    }
    .await;
    if let Err(e) = sent {
        let msg = format!("could not send the start command: {e}");
        let _ = state
            .store
            .apply_session_status(
                SessionStatusUpdate {
                    message: Some(msg.clone()),
                    error: Some(msg),
                    ..SessionStatusUpdate::new(s, SessionStatus::Failed)
                },
                None,
            )
            .await;
        return Err(e.into());
    }
    Ok((state.store.get_match(m.id).await?, s))
}

/// A match's sessions, newest first.
///
/// # Errors
/// 404 unknown match.
pub async fn list(state: &AppState, id: MatchId) -> ApiResult<Vec<Session>> {
    Ok(state.store.list_sessions(id).await?)
}

/// A match's detected events, in frame order, one page.
///
/// # Errors
/// 404 unknown match, 400 a malformed cursor.
pub async fn events(state: &AppState, filter: EventFilter) -> ApiResult<Page<StoredEvent>> {
    Ok(state.store.list_events(filter).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use MatchStatus as M;

    #[test]
    fn the_status_machine() {
        let cases = [
            (Action::Start, M::Draft, Plan::Refuse),
            (Action::Start, M::Ready, Plan::NewSession),
            (Action::Start, M::Completed, Plan::NewSession),
            (Action::Start, M::Failed, Plan::NewSession),
            (
                Action::Start,
                M::Paused,
                Plan::SetControl(DesiredState::Running),
            ),
            (Action::Start, M::Processing, Plan::Refuse),
            (Action::Start, M::Starting, Plan::Refuse),
            (
                Action::Pause,
                M::Processing,
                Plan::SetControl(DesiredState::Paused),
            ),
            (
                Action::Pause,
                M::Starting,
                Plan::SetControl(DesiredState::Paused),
            ),
            (Action::Pause, M::Paused, Plan::Refuse),
            (Action::Pause, M::Ready, Plan::Refuse),
            (
                Action::Stop,
                M::Processing,
                Plan::SetControl(DesiredState::Stopped),
            ),
            (
                Action::Stop,
                M::Paused,
                Plan::SetControl(DesiredState::Stopped),
            ),
            (
                Action::Stop,
                M::Starting,
                Plan::SetControl(DesiredState::Stopped),
            ),
            (Action::Stop, M::Completed, Plan::Refuse),
            (Action::Stop, M::Ready, Plan::Refuse),
            (Action::Restart, M::Draft, Plan::Refuse),
            (Action::Restart, M::Processing, Plan::NewSession),
            (Action::Restart, M::Ready, Plan::NewSession),
        ];
        for (a, s, want) in cases {
            assert_eq!(plan(a, s), want, "{a:?} from {s:?}");
        }
    }
}
