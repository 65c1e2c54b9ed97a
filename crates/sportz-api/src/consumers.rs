//! The API's contract consumers and its watchdog.
//!
//! - `status:updates` (group `api-status`) → the store (mapping, supersession and "terminal is
//!   final" via `decide_session_update`), then the mapped status on `match:{id}:status` and `match_updated`
//!   to `/ws` clients.
//! - `events:stream` (group `api-persist`) → idempotent inserts.
//!
//! Both run one loop (`consume`), parameterised by the per-entry handler: ack only after the
//! store accepted the entry, re-read their own pending entries first on start and claim entries
//! left idle by a dead instance. An entry that can never be processed (malformed, unknown match)
//! is logged and acked.
//!
//! Watchdog (every `watchdog_every`): a session still `starting` after `start_timeout` with no
//! lease → failed ("no worker picked up the start"); a running session whose lease is missing on
//! two consecutive checks → failed ("worker lost"). Failing (not re-queueing) was chosen: the
//! operator sees why and restarts it, and a worker that is merely slow cannot end up running a
//! match twice. A failed session's control key is set to `stopped`, so a worker that still runs
//! it stops.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use sportz_bus::{BusError, StreamItem, SubEvent, Topic};
use sportz_contract::keys::{self, Channel};
use sportz_contract::status::{MatchStatus, SessionStatus, StatusDecision};
use sportz_contract::{Control, DesiredState, Envelope, Payload, SessionId, StatusData};
use sportz_store::{
    MatchFilter, NewEvent, PageRequest, SessionStats, SessionStatusUpdate, StoreError,
};

use crate::state::AppState;

pub(crate) const RETRY: Duration = Duration::from_secs(1);

pub(crate) async fn pause(state: &AppState, d: Duration) -> bool {
    tokio::select! {
        () = state.shutdown.cancelled() => false,
        () = tokio::time::sleep(d) => true,
    }
}

/// Whether an error means "try again later" (keep the entry pending).
const fn transient(e: &StoreError) -> bool {
    matches!(e, StoreError::Unavailable(_))
}

/// Consumes `status:updates`.
pub async fn status_consumer(state: Arc<AppState>) {
    consume(
        &state,
        Stream {
            key: keys::STATUS_UPDATES,
            group: keys::API_STATUS_GROUP,
            what: "status",
            batch: 16,
        },
        handle_status,
    )
    .await;
}

/// Consumes `events:stream`.
pub async fn event_consumer(state: Arc<AppState>) {
    consume(
        &state,
        Stream {
            key: keys::EVENTS_STREAM,
            group: keys::API_PERSIST_GROUP,
            what: "event",
            batch: 64,
        },
        handle_event,
    )
    .await;
}

/// Which stream a consumer reads, as whom, and how many entries at a time.
#[derive(Debug, Clone, Copy)]
struct Stream {
    key: &'static str,
    group: &'static str,
    /// `status` or `event`, in log lines.
    what: &'static str,
    batch: usize,
}

/// The one consumer loop: joins the group as this instance (waiting for the bus), then reads
/// batches (its own pending entries first, as the bus's consumer does after a restart) until
/// shutdown. Each entry goes to `handle`: `Ok` acks it (the entry was stored, or can never be and
/// was logged), `Err` is transient: the entry stays pending, the rest of the batch is left, and
/// after a pause the loop reads this consumer's pending entries again first (the failed one and
/// the rest of its batch, in order), then new ones.
async fn consume(
    state: &AppState,
    stream: Stream,
    handle: impl AsyncFn(&AppState, &StreamItem<Envelope>) -> Result<(), String>,
) {
    let what = stream.what;
    let mut consumer = loop {
        match state
            .bus
            .consumer(stream.key, stream.group, &state.config.instance_id)
            .await
        {
            Ok(c) => break c,
            Err(e) => {
                tracing::warn!("{what} consumer waiting for the bus: {e}");
                if !pause(state, RETRY).await {
                    return;
                }
            }
        }
    };
    loop {
        let batch: Result<Vec<StreamItem<Envelope>>, BusError> = tokio::select! {
            () = state.shutdown.cancelled() => return,
            b = consumer.next_batch(stream.batch, Duration::from_secs(1)) => b,
        };
        let batch = match batch {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!("{what} consumer: {e}");
                if !pause(state, RETRY).await {
                    return;
                }
                continue;
            }
        };
        for item in batch {
            match handle(state, &item).await {
                Ok(()) => {
                    if let Err(e) = consumer.ack(&item.id).await {
                        tracing::warn!("{what} {} not acked (will be re-read): {e}", item.id);
                    }
                }
                Err(e) => {
                    tracing::warn!("{what} {} left pending: {e}", item.id);
                    // this entry and the rest of the batch are pending under this consumer:
                    // read them again first, in order, before anything newer
                    consumer.reread_pending();
                    pause(state, RETRY).await;
                    break;
                }
            }
        }
    }
}

/// Ok → ack; Err → transient, keep pending.
async fn handle_status(state: &AppState, item: &StreamItem<Envelope>) -> Result<(), String> {
    let env = match &item.value {
        Ok(env) => env,
        Err(why) => {
            tracing::error!("dropping a malformed status entry: {why}");
            return Ok(());
        }
    };
    let (Payload::Status(st), Some(session)) = (&env.payload, env.session_id) else {
        tracing::error!("dropping a non-status entry {} on status:updates", item.id);
        return Ok(());
    };
    let Some(status) = st.status else {
        tracing::error!("dropping status entry {} without a status", item.id);
        return Ok(());
    };
    let desired = match state.bus.control(&env.match_id).await {
        Ok(c) => c.filter(|c| c.session_id == session).map(|c| c.state),
        Err(e) if e.is_unavailable() => return Err(e.to_string()),
        Err(_) => None,
    };
    let update = SessionStatusUpdate {
        message: st.message.clone(),
        worker_id: st.worker_id.clone(),
        error: (status == SessionStatus::Failed)
            .then(|| st.message.clone())
            .flatten(),
        seq: Some(env.seq),
        ..SessionStatusUpdate::new(session, status)
    };
    let outcome = match state.store.apply_session_status(update, desired).await {
        Ok(o) => o,
        Err(e) if transient(&e) => return Err(e.to_string()),
        Err(e) => {
            tracing::warn!(match_id = %env.match_id, "status for {session} not stored: {e}");
            return Ok(());
        }
    };
    match outcome.decision {
        StatusDecision::Apply(match_status) => {
            publish_match_status(
                state,
                &outcome.match_row,
                Some(session),
                Some(status),
                match_status,
                st,
            )
            .await;
            crate::service::announce_match_updated(state, &outcome.match_row).await;
        }
        StatusDecision::Ignore(reason) => {
            tracing::debug!(match_id = %env.match_id, "status {} of {session} ignored: {reason:?}", status.as_str());
        }
    }
    Ok(())
}

async fn publish_match_status(
    state: &AppState,
    m: &sportz_store::Match,
    session: Option<SessionId>,
    status: Option<SessionStatus>,
    match_status: MatchStatus,
    from: &StatusData,
) {
    let env = Envelope {
        match_id: m.id,
        session_id: session,
        ts: sportz_contract::unix_now(),
        seq: 0,
        payload: Payload::Status(StatusData {
            status,
            match_status: Some(match_status),
            message: from.message.clone(),
            worker_id: from.worker_id.clone(),
        }),
    };
    if let Err(e) = state.bus.publish_status_only(&env).await {
        tracing::warn!(match_id = %m.id, "mapped status not published: {e}");
    }
}

/// Ok → ack (stored, a duplicate, or never storable: logged); Err → transient, keep pending.
async fn handle_event(state: &AppState, item: &StreamItem<Envelope>) -> Result<(), String> {
    let event = match &item.value {
        Ok(Envelope {
            match_id,
            session_id,
            payload: Payload::Event(e),
            ..
        }) => NewEvent {
            match_id: *match_id,
            session_id: *session_id,
            data: e.clone(),
        },
        Ok(_) => {
            tracing::error!("dropping a non-event entry {} on events:stream", item.id);
            return Ok(());
        }
        Err(why) => {
            tracing::error!("dropping a malformed event entry: {why}");
            return Ok(());
        }
    };
    match state.store.insert_event(event).await {
        Ok(_inserted_or_duplicate) => Ok(()),
        Err(e) if transient(&e) => Err(e.to_string()),
        Err(e) => {
            tracing::warn!("event {} cannot be stored, dropped: {e}", item.id);
            Ok(())
        }
    }
}

/// Fails starts nobody picked up and sessions whose worker was lost.
pub async fn watchdog(state: Arc<AppState>) {
    let mut missed: HashMap<SessionId, u32> = HashMap::new();
    loop {
        if !pause(&state, state.config.watchdog_every).await {
            return;
        }
        if let Err(e) = check_once(&state, &mut missed).await {
            tracing::debug!("watchdog skipped a round: {e}");
        }
    }
}

async fn fail(state: &AppState, session: SessionId, why: String) -> Result<(), String> {
    let update = SessionStatusUpdate {
        message: Some(why.clone()),
        error: Some(why.clone()),
        ..SessionStatusUpdate::new(session, SessionStatus::Failed)
    };
    let outcome = state
        .store
        .apply_session_status(update, None)
        .await
        .map_err(|e| e.to_string())?;
    if let StatusDecision::Apply(ms) = outcome.decision {
        tracing::warn!(match_id = %outcome.match_row.id, "{why}");
        // a worker that still runs the session (a stalled one, a partition) watches the control
        // key: tell it to stop, so a failed match is not processed on
        let stop = Control {
            session_id: session,
            state: DesiredState::Stopped,
        };
        if let Err(e) = state.bus.set_control(&outcome.match_row.id, &stop).await {
            tracing::warn!(match_id = %outcome.match_row.id, "cannot tell the worker to stop: {e}");
        }
        announce_watchdog_status(
            state,
            &outcome.match_row,
            session,
            SessionStatus::Failed,
            ms,
            why,
        )
        .await;
    }
    Ok(())
}

/// What the watchdog decided for a session (failed, taken over), said as the workers' statuses
/// are: on the match's status channel and to the match centre.
async fn announce_watchdog_status(
    state: &AppState,
    m: &sportz_store::Match,
    session: SessionId,
    status: SessionStatus,
    match_status: MatchStatus,
    message: String,
) {
    let from = StatusData {
        status: Some(status),
        match_status: None,
        message: Some(message),
        worker_id: None,
    };
    publish_match_status(state, m, Some(session), Some(status), match_status, &from).await;
    crate::service::announce_match_updated(state, m).await;
}

/// Failover: the lost session's match goes to another live worker with room (by heartbeat), in
/// a new session that supersedes the lost one — a file or HTTP video resumes at the last frame
/// the lost worker published (events of frames seen twice keep their ids, so the store keeps
/// them once), a live stream rejoins. The match is `starting` again with a status message
/// saying it was taken over. `Ok(false)`: no worker has room.
async fn take_over(
    state: &AppState,
    m: &sportz_store::Match,
    lost: SessionId,
) -> Result<bool, String> {
    let lost_worker = state
        .store
        .get_session(lost)
        .await
        .map_err(|e| e.to_string())?
        .worker_id;
    let workers = state.bus.heartbeats().await.map_err(|e| e.to_string())?;
    let Some(spare) = workers.iter().find(|w| {
        Some(&w.worker_id) != lost_worker.as_ref()
            && u32::try_from(w.active_matches.len()).unwrap_or(u32::MAX) < w.capacity
    }) else {
        return Ok(false);
    };
    let Some(mut config) = m.session_config() else {
        return Ok(false);
    };
    let resumable = matches!(
        config.source,
        sportz_contract::VideoSource::File(_) | sportz_contract::VideoSource::Http(_)
    );
    let at = if resumable {
        match state
            .bus
            .last_frame(&m.id)
            .await
            .map_err(|e| e.to_string())?
        {
            Some(env) if env.session_id == Some(lost) => match &env.payload {
                Payload::Frame(f) => Some(f.video_timestamp),
                _ => None,
            },
            _ => None,
        }
    } else {
        None
    };
    config.start_at = at;
    let from = lost_worker.as_deref().unwrap_or("an unknown worker");
    let message = match at {
        Some(t) => format!(
            "taken over from {from} (its lease expired) by {}, resuming at {t:.1} s",
            spare.worker_id
        ),
        None => format!(
            "taken over from {from} (its lease expired) by {}",
            spare.worker_id
        ),
    };
    // the message is on the match from the session's first write: no client sees the new
    // session `starting` without it
    let (_, session) =
        crate::service::sessions::start_session(state, m, config, Some(message.clone()))
            .await
            .map_err(|e| e.to_string())?;
    tracing::warn!(match_id = %m.id, %lost, %session, "{message}");
    let update = SessionStatusUpdate {
        message: Some(message.clone()),
        ..SessionStatusUpdate::new(session, SessionStatus::Starting)
    };
    let outcome = state
        .store
        .apply_session_status(update, Some(DesiredState::Running))
        .await
        .map_err(|e| e.to_string())?;
    if let StatusDecision::Apply(ms) = outcome.decision {
        announce_watchdog_status(
            state,
            &outcome.match_row,
            session,
            SessionStatus::Starting,
            ms,
            message,
        )
        .await;
    }
    Ok(true)
}

async fn check_once(state: &AppState, missed: &mut HashMap<SessionId, u32>) -> Result<(), String> {
    let mut seen = Vec::new();
    for status in [
        MatchStatus::Starting,
        MatchStatus::Processing,
        MatchStatus::Paused,
    ] {
        let mut page = PageRequest::first(500);
        loop {
            let p = state
                .store
                .list_matches(MatchFilter {
                    status: Some(status),
                    phase: None,
                    page,
                })
                .await
                .map_err(|e| e.to_string())?;
            for m in &p.items {
                let Some(session) = m.current_session_id else {
                    continue;
                };
                seen.push(session);
                let lease = state.bus.lease(&m.id).await.map_err(|e| e.to_string())?;
                let held = lease.is_some_and(|l| l.session_id == session);
                if held {
                    missed.remove(&session);
                    continue;
                }
                if status == MatchStatus::Starting {
                    let started = state
                        .store
                        .get_session(session)
                        .await
                        .map_err(|e| e.to_string())?
                        .started_at;
                    let age = sportz_store::now() - started;
                    if age.whole_milliseconds()
                        >= i128::try_from(state.config.start_timeout.as_millis())
                            .unwrap_or(i128::MAX)
                    {
                        fail(state, session, format!(
                            "no worker picked up the start within {} s; is a worker running with spare capacity?",
                            state.config.start_timeout.as_secs()
                        )).await?;
                    }
                } else {
                    let n = missed.entry(session).or_insert(0);
                    *n += 1;
                    if *n >= 2 {
                        missed.remove(&session);
                        match take_over(state, m, session).await {
                            Ok(true) => {}
                            Ok(false) => {
                                fail(
                                    state,
                                    session,
                                    "worker lost: its lease expired and no other worker has room; restart the session".to_owned(),
                                )
                                .await?;
                            }
                            Err(e) => {
                                fail(
                                    state,
                                    session,
                                    format!("worker lost: its lease expired and the takeover failed ({e}); restart the session"),
                                )
                                .await?;
                            }
                        }
                    }
                }
            }
            match p.next_cursor {
                Some(c) => page = PageRequest::after(c, 500),
                None => break,
            }
        }
    }
    missed.retain(|s, _| seen.contains(s));
    Ok(())
}

/// Keeps each session's figures (frames, fps, latency) up to date from its metrics, at most
/// every 5 s per session.
pub async fn session_stats(state: Arc<AppState>) {
    let topics = [Topic::Pattern(Channel::Metrics.pattern())];
    let mut last: HashMap<SessionId, Instant> = HashMap::new();
    loop {
        let sub = tokio::select! {
            () = state.shutdown.cancelled() => return,
            s = state.bus.raw().subscribe(&topics, 1024) => s,
        };
        let Ok(mut sub) = sub else {
            if !pause(&state, RETRY).await {
                return;
            }
            continue;
        };
        loop {
            let ev = tokio::select! {
                () = state.shutdown.cancelled() => return,
                ev = sub.next() => ev,
            };
            let Some(ev) = ev else { break };
            let SubEvent::Message(msg) = ev else { continue };
            let Ok(env) = Envelope::from_json(&msg.payload) else {
                continue;
            };
            let (Payload::Metrics(x), Some(s)) = (&env.payload, env.session_id) else {
                continue;
            };
            if last
                .get(&s)
                .is_some_and(|t| t.elapsed() < Duration::from_secs(5))
            {
                continue;
            }
            last.insert(s, Instant::now());
            let stats = SessionStats {
                frames_processed: x.frames_processed,
                avg_fps: Some(x.inference_fps),
                avg_latency_ms: Some(x.latency_ms),
            };
            if let Err(e) = state.store.update_session_stats(s, stats).await {
                tracing::debug!("session stats of {s} not stored: {e}");
            }
        }
    }
}
