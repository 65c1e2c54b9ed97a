//! The recorder task: subscribes to the status, detections and metrics channels of every match
//! and appends each message with a session id to that session's recording, flushing every
//! second. Events are not recorded: they are in the store, once each (see `export`). A session's
//! file is closed after its terminal status, or after a minute without messages (its worker
//! died: a takeover starts a new session, with a new file).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use sportz_bus::{SubEvent, Topic};
use sportz_contract::keys::Channel;
use sportz_contract::status::SessionStatus;
use sportz_contract::{Envelope, MatchId, Payload, SessionId};

use super::file::Writer;
use super::{RecordingSettings, prune};
use crate::consumers::{RETRY, pause};
use crate::state::AppState;

/// How often what arrived is written (the most a crash loses).
pub const FLUSH_EVERY: Duration = Duration::from_secs(1);

/// A session without messages for this long is closed.
const IDLE: Duration = Duration::from_secs(60);

/// How often the retention rules run (also once at start).
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

struct Open {
    writer: Writer,
    last: Instant,
    match_id: MatchId,
}

/// The open recordings, and the sessions whose recording stopped on an error.
struct Recordings {
    settings: RecordingSettings,
    open: HashMap<SessionId, Open>,
    failed: HashSet<SessionId>,
    /// The statuses each session's worker published, to tell the API's echoes of them (kept
    /// after the session closes: an echo may come after the worker's next status, or after its
    /// terminal one).
    worker_status: HashMap<SessionId, HashSet<SessionStatus>>,
}

/// Whether `env` is the API's echo of a status the session's worker published (the API
/// announces each status it applies once more, with `match_status` and `seq` 0, and not always
/// before the worker's next one): recorded once, the worker's. Statuses only the API publishes
/// (a takeover, a lost worker) are no echo.
fn is_echo(env: &Envelope, worker_said: Option<&HashSet<SessionStatus>>) -> bool {
    match &env.payload {
        Payload::Status(d) => {
            env.seq == 0
                && d.status
                    .is_some_and(|st| worker_said.is_some_and(|said| said.contains(&st)))
        }
        _ => false,
    }
}

impl Recordings {
    fn record(&mut self, env: &Envelope, line: &str) {
        let Some(s) = env.session_id else { return };
        if self.failed.contains(&s) {
            return;
        }
        if let Payload::Status(d) = &env.payload {
            if is_echo(env, self.worker_status.get(&s)) {
                return;
            }
            if let (Some(status), true) = (d.status, env.seq > 0) {
                self.worker_status.entry(s).or_default().insert(status);
            }
        }
        let path = self.settings.path(env.match_id, s);
        let open = self.open.entry(s).or_insert_with(|| Open {
            writer: Writer::new(path),
            last: Instant::now(),
            match_id: env.match_id,
        });
        open.writer.push(line);
        open.last = Instant::now();
    }

    /// Writes what waits; closes the finished and the idle. `ended`: sessions to close now.
    fn flush(&mut self, state: &AppState, ended: &[SessionId]) {
        let usage = &state.recordings;
        let mut close: Vec<SessionId> = ended.to_vec();
        for (s, open) in &mut self.open {
            let new = !open.writer.on_disk();
            match open.writer.flush() {
                Ok(n) => {
                    usage.bytes.fetch_add(n, Ordering::Relaxed);
                    if new && n > 0 {
                        usage.files.fetch_add(1, Ordering::Relaxed);
                    }
                }
                Err(e) => {
                    let msg = format!(
                        "the recording of session {s} (match {}) stopped: {e}; the session goes on unrecorded",
                        open.match_id
                    );
                    tracing::error!("{msg}");
                    usage.errors.fetch_add(1, Ordering::Relaxed);
                    state.metrics.recording_error();
                    *usage
                        .last_error
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(msg);
                    self.failed.insert(*s);
                    close.push(*s);
                }
            }
            if open.last.elapsed() > IDLE {
                close.push(*s);
            }
        }
        for s in close {
            self.open.remove(&s);
        }
    }

    fn prune(&self, state: &AppState) {
        let busy: HashSet<SessionId> = self.open.keys().copied().collect();
        match prune(
            &self.settings,
            &busy,
            std::time::SystemTime::now(),
            &state.recordings,
        ) {
            Ok(gone) if !gone.is_empty() => {
                tracing::info!(removed = gone.len(), "expired recordings removed");
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!(dir = %self.settings.dir.display(), "cannot apply the recordings' retention: {e}")
            }
        }
    }
}

/// Records every session's relayed messages until shutdown (nothing when recording is off).
pub async fn run(state: Arc<AppState>) {
    let Some(settings) = state.config.recordings.clone() else {
        return;
    };
    if let Err(e) = std::fs::create_dir_all(&settings.dir) {
        tracing::error!(dir = %settings.dir.display(), "cannot create the recordings directory; sessions are not recorded: {e}");
        return;
    }
    tracing::info!(dir = %settings.dir.display(), keep_days = settings.keep_days, max_gb = settings.max_bytes as f64 / f64::from(1u32 << 30), "recording sessions");
    let mut rec = Recordings {
        settings,
        open: HashMap::new(),
        failed: HashSet::new(),
        worker_status: HashMap::new(),
    };
    rec.prune(&state);
    // events are not recorded here: the store has each of them (exports read them there)
    let topics: Vec<Topic> = [Channel::Status, Channel::Detections, Channel::Metrics]
        .iter()
        .map(|c| Topic::Pattern(c.pattern()))
        .collect();
    let mut flush = tokio::time::interval(FLUSH_EVERY);
    let mut retention = tokio::time::interval(PRUNE_EVERY);
    retention.tick().await;
    loop {
        let sub = tokio::select! {
            () = state.shutdown.cancelled() => break,
            s = state.bus.raw().subscribe(&topics, 4096) => s,
        };
        let Ok(mut sub) = sub else {
            if !pause(&state, RETRY).await {
                break;
            }
            continue;
        };
        let mut ended = Vec::new();
        loop {
            tokio::select! {
                () = state.shutdown.cancelled() => {
                    rec.flush(&state, &ended);
                    return;
                }
                _ = flush.tick() => {
                    rec.flush(&state, &std::mem::take(&mut ended));
                }
                _ = retention.tick() => rec.prune(&state),
                ev = sub.next() => {
                    let Some(ev) = ev else { break };
                    let SubEvent::Message(msg) = ev else { continue };
                    let Ok(env) = Envelope::from_json(&msg.payload) else { continue };
                    rec.record(&env, &msg.payload);
                    if let (Payload::Status(st), Some(s)) = (&env.payload, env.session_id)
                        && st.status.is_some_and(sportz_contract::status::SessionStatus::is_terminal)
                    {
                        ended.push(s);
                    }
                }
            }
        }
        // the subscription ended (bus lost): keep what arrived, subscribe again
        rec.flush(&state, &std::mem::take(&mut ended));
    }
    rec.flush(&state, &[]);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(seq: u64, st: SessionStatus, match_status: bool) -> Envelope {
        Envelope {
            match_id: MatchId::generate(),
            session_id: Some(SessionId::generate()),
            ts: 1.0,
            seq,
            payload: Payload::Status(sportz_contract::StatusData {
                status: Some(st),
                match_status: match_status
                    .then_some(sportz_contract::status::MatchStatus::Processing),
                message: None,
                worker_id: Some("w".into()),
            }),
        }
    }

    #[test]
    fn the_apis_echo_of_a_worker_status_is_told_apart() {
        let said: HashSet<SessionStatus> =
            [SessionStatus::Processing, SessionStatus::Completed].into();
        // the API's copy of what the worker said, even after the worker's next status: an echo
        assert!(is_echo(
            &status(0, SessionStatus::Processing, true),
            Some(&said)
        ));
        assert!(is_echo(
            &status(0, SessionStatus::Completed, true),
            Some(&said)
        ));
        // the worker's own (seq > 0), a status it never said, or a session it never spoke for
        assert!(!is_echo(
            &status(4, SessionStatus::Processing, false),
            Some(&said)
        ));
        assert!(!is_echo(
            &status(0, SessionStatus::Failed, true),
            Some(&said)
        ));
        assert!(!is_echo(&status(0, SessionStatus::Starting, true), None));
    }
}
