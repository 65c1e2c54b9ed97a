//! The rules both engines share, as plain functions over typed rows: new rows, status
//! decisions, supersession, deletability and the SQL of the derived phase (paging is in `page.rs`).

use sportz_contract::status::{IgnoreReason, decide_session_update};
use sportz_contract::{
    DesiredState, MatchId, MatchStatus, SessionId, SessionStatus, StatusDecision,
};
use time::OffsetDateTime;

use crate::error::{Result, StoreError};
use crate::model::{ApiToken, Match, NewMatch, Session, SessionStatusUpdate, now};

/// The phase of a match at `?now` in SQL, the same rule as `MatchPhase::of`.
pub(crate) fn phase_sql(now: &str) -> String {
    format!(
        "CASE WHEN status IN ('starting', 'processing', 'paused') THEN 'live' \
         WHEN status = 'completed' THEN 'finished' \
         WHEN end_time IS NOT NULL AND {now} >= end_time THEN 'finished' \
         WHEN start_time IS NOT NULL AND {now} >= start_time THEN 'live' \
         ELSE 'scheduled' END"
    )
}

pub(crate) const fn phase_name(p: sportz_contract::match_centre::MatchPhase) -> &'static str {
    use sportz_contract::match_centre::MatchPhase as P;
    match p {
        P::Scheduled => "scheduled",
        P::Live => "live",
        P::Finished => "finished",
    }
}

/// Apply a status update to a session row and (per the contract's rule) to its match. A session
/// that already ended is left as it is: its later updates change neither row.
pub(crate) fn decide(
    session: &mut Session,
    m: &mut Match,
    update: SessionStatusUpdate,
    desired: Option<DesiredState>,
    at: OffsetDateTime,
) -> StatusDecision {
    let decision = decide_session_update(
        session.status,
        m.current_session_id.as_ref(),
        desired,
        &session.id,
        update.status,
    );
    if session.status.is_terminal() {
        return decision;
    }
    // the worker numbers every message of a session: an update older than one already applied
    // (a stream entry replayed after a transient failure) changes nothing
    if let Some(seq) = update.seq {
        let last = session.last_status_seq;
        if last > 0 && seq <= last {
            return StatusDecision::Ignore(IgnoreReason::OutOfOrder { seq, last });
        }
        session.last_status_seq = seq;
    }
    session.status = update.status;
    if update.status.is_terminal() {
        session.stopped_at = Some(at);
    }
    if update.worker_id.is_some() {
        session.worker_id.clone_from(&update.worker_id);
    }
    if update.device.is_some() {
        session.device.clone_from(&update.device);
    }
    if update.error.is_some() {
        session.error.clone_from(&update.error);
    }
    session.updated_at = at;
    if let StatusDecision::Apply(status) = decision {
        m.status = status;
        m.status_message = update.message;
        if update.error.is_some() {
            m.last_error = update.error;
        }
        m.updated_at = at;
    }
    decision
}

/// The session a new one supersedes is marked stopped (it will send nothing that counts).
pub(crate) fn supersede(old: &mut Session, by: SessionId, at: OffsetDateTime) -> bool {
    if old.status.is_terminal() {
        return false;
    }
    old.status = SessionStatus::Stopped;
    old.error = Some(format!("superseded by session {by}"));
    old.stopped_at = Some(at);
    old.updated_at = at;
    true
}

pub(crate) fn new_match_row(new: NewMatch) -> Result<Match> {
    new.validate()?;
    let at = now();
    let status = if new.video_source.is_some() {
        MatchStatus::Ready
    } else {
        MatchStatus::Draft
    };
    Ok(Match {
        id: MatchId::generate(),
        name: new.name,
        sport: new.sport,
        home_team: new.home_team,
        away_team: new.away_team,
        competition: new.competition,
        start_time: new.start_time.map(crate::model::truncate_us),
        end_time: new.end_time.map(crate::model::truncate_us),
        home_score: 0,
        away_score: 0,
        status,
        status_message: None,
        last_error: None,
        video_source: new.video_source,
        settings: new.settings,
        calibration: Vec::new(),
        current_session_id: None,
        event_count: 0,
        created_at: at,
        updated_at: at,
    })
}

pub(crate) fn check_deletable(m: &Match) -> Result<()> {
    if m.status.is_active() {
        return Err(StoreError::conflict(
            "match",
            format!(
                "match `{}` is {}; stop it before deleting it",
                m.id,
                m.status.as_str()
            ),
        ));
    }
    Ok(())
}

pub(crate) fn new_session_row(m: &Match, id: SessionId, at: OffsetDateTime) -> Result<Session> {
    let config = m.session_config().ok_or_else(|| {
        StoreError::conflict(
            "match",
            format!(
                "match `{}` has no video source; set one before starting it",
                m.id
            ),
        )
    })?;
    Ok(Session {
        id,
        match_id: m.id,
        worker_id: None,
        status: SessionStatus::Starting,
        device: None,
        config,
        frames_processed: 0,
        avg_fps: None,
        avg_latency_ms: None,
        error: None,
        started_at: at,
        stopped_at: None,
        updated_at: at,
        last_status_seq: 0,
    })
}

pub(crate) fn token_stale(t: &ApiToken, at: OffsetDateTime) -> bool {
    t.last_used_at
        .is_none_or(|u| at - u >= time::Duration::seconds(60))
}
