//! The control watcher: a task that polls `match:{id}:control` and tells the session loop,
//! through a `watch` channel, whether to run, pause or stop (stop also when a newer session of
//! the match superseded this one).

use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::status::DesiredState;
use sportz_contract::{MatchId, SessionId};
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

/// What the control key currently asks of this session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Wanted {
    Run,
    Pause,
    Stop(String),
}

/// Watches `match:{id}:control`. A missing key (e.g. Redis restarted empty) is no evidence:
/// the session keeps its last instruction.
pub(crate) fn watch_control(
    bus: ContractBus,
    m: MatchId,
    session: SessionId,
    every: Duration,
    cancel: CancellationToken,
) -> watch::Receiver<Wanted> {
    let (tx, rx) = watch::channel(Wanted::Run);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(every);
        loop {
            tokio::select! {
                () = cancel.cancelled() => return,
                _ = tick.tick() => {}
            }
            let wanted = match bus.control(&m).await {
                Ok(Some(c)) if c.session_id != session => {
                    Wanted::Stop(format!("superseded by session {}", c.session_id))
                }
                Ok(Some(c)) => match c.state {
                    DesiredState::Running => Wanted::Run,
                    DesiredState::Paused => Wanted::Pause,
                    DesiredState::Stopped => Wanted::Stop("stop requested".to_owned()),
                },
                Ok(None) | Err(_) => continue,
            };
            if *tx.borrow() != wanted && tx.send(wanted).is_err() {
                return;
            }
        }
    });
    rx
}
