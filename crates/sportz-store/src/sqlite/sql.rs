//! SQLite helpers of the engine: typed row readers, queries, loading and saving matches and
//! sessions, and event batches, each a plain function over a connection or transaction.

use std::collections::HashMap;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OptionalExtension, Row, Transaction};
use sportz_contract::{MatchId, SessionId};
use time::OffsetDateTime;

use crate::error::{Result, StoreError};
use crate::model::{ApiToken, Commentary, Match, NewEvent, Session, StoredEvent, now};
use crate::rows::{
    MATCH_COLS, RawCommentary, RawEvent, RawMatch, RawSession, RawToken, SESSION_COLS,
    event_columns, from_us, source_parts, to_us,
};

use super::sqlite_err;

// ---- row readers ----

pub(super) fn col<T: rusqlite::types::FromSql>(row: &Row<'_>, i: usize) -> Result<T> {
    row.get(i)
        .map_err(|e| StoreError::corrupt("sqlite column", format!("{i}: {e}")))
}

pub(super) fn time_col(row: &Row<'_>, i: usize) -> Result<OffsetDateTime> {
    from_us(col(row, i)?)
}

pub(super) fn opt_time_col(row: &Row<'_>, i: usize) -> Result<Option<OffsetDateTime>> {
    col::<Option<i64>>(row, i)?.map(from_us).transpose()
}

pub(super) fn json_col(row: &Row<'_>, i: usize) -> Result<serde_json::Value> {
    let text: String = col(row, i)?;
    serde_json::from_str(&text).map_err(|e| StoreError::corrupt("json column", e))
}

pub(super) fn read_match(row: &Row<'_>) -> Result<Match> {
    RawMatch {
        id: col(row, 0)?,
        name: col(row, 1)?,
        sport: col(row, 2)?,
        home_team: col(row, 3)?,
        away_team: col(row, 4)?,
        competition: col(row, 5)?,
        start_time: opt_time_col(row, 6)?,
        end_time: opt_time_col(row, 7)?,
        home_score: col(row, 8)?,
        away_score: col(row, 9)?,
        status: col(row, 10)?,
        status_message: col(row, 11)?,
        last_error: col(row, 12)?,
        source_type: col(row, 13)?,
        source_value: col(row, 14)?,
        target_fps: col(row, 15)?,
        realtime: col(row, 16)?,
        model: col(row, 17)?,
        confidence_threshold: col(row, 18)?,
        enable_tracking: col(row, 19)?,
        enable_teams: col(row, 20)?,
        enable_events: col(row, 21)?,
        calibration: json_col(row, 22)?,
        current_session_id: col(row, 23)?,
        event_count: col(row, 24)?,
        created_at: time_col(row, 25)?,
        updated_at: time_col(row, 26)?,
    }
    .into_match()
}

pub(super) fn read_commentary(row: &Row<'_>) -> Result<Commentary> {
    let metadata: Option<String> = col(row, 9)?;
    let tags: String = col(row, 10)?;
    RawCommentary {
        id: col(row, 0)?,
        match_id: col(row, 1)?,
        minute: col(row, 2)?,
        sequence: col(row, 3)?,
        period: col(row, 4)?,
        event_type: col(row, 5)?,
        actor: col(row, 6)?,
        team: col(row, 7)?,
        message: col(row, 8)?,
        metadata: metadata
            .map(|m| serde_json::from_str(&m))
            .transpose()
            .map_err(|e| StoreError::corrupt("commentary metadata", e))?,
        tags: serde_json::from_str(&tags).map_err(|e| StoreError::corrupt("commentary tags", e))?,
        created_at: time_col(row, 11)?,
    }
    .into_commentary()
}

pub(super) fn read_session(row: &Row<'_>) -> Result<Session> {
    RawSession {
        id: col(row, 0)?,
        match_id: col(row, 1)?,
        worker_id: col(row, 2)?,
        status: col(row, 3)?,
        device: col(row, 4)?,
        config: json_col(row, 5)?,
        frames_processed: col(row, 6)?,
        avg_fps: col(row, 7)?,
        avg_latency_ms: col(row, 8)?,
        error: col(row, 9)?,
        started_at: time_col(row, 10)?,
        stopped_at: opt_time_col(row, 11)?,
        updated_at: time_col(row, 12)?,
        last_status_seq: col(row, 13)?,
    }
    .into_session()
}

pub(super) fn read_event(row: &Row<'_>) -> Result<StoredEvent> {
    RawEvent {
        id: col(row, 0)?,
        match_id: col(row, 1)?,
        session_id: col(row, 2)?,
        payload: json_col(row, 3)?,
        created_at: time_col(row, 4)?,
    }
    .into_event()
}

pub(super) fn read_token(row: &Row<'_>) -> Result<ApiToken> {
    RawToken {
        id: col(row, 0)?,
        role: col(row, 1)?,
        label: col(row, 2)?,
        created_at: time_col(row, 3)?,
        last_used_at: opt_time_col(row, 4)?,
    }
    .into_token()
}

/// All rows of a query, read with `f`.
pub(super) fn query<T>(
    conn: &Connection,
    context: &str,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let e = sqlite_err(context);
    let mut stmt = conn.prepare_cached(sql).map_err(&e)?;
    let mut rows = stmt.query(params).map_err(&e)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(&e)? {
        out.push(f(row)?);
    }
    Ok(out)
}

pub(super) fn query_one<T>(
    conn: &Connection,
    context: &str,
    sql: &str,
    params: impl rusqlite::Params,
    f: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Option<T>> {
    Ok(query(conn, context, sql, params, f)?.into_iter().next())
}

pub(super) fn load_match(conn: &Connection, id: MatchId) -> Result<Match> {
    query_one(
        conn,
        "read match",
        &format!("SELECT {MATCH_COLS} FROM matches WHERE id = ?1"),
        [id.to_string()],
        read_match,
    )?
    .ok_or_else(|| StoreError::not_found("match", id))
}

pub(super) fn match_exists(conn: &Connection, id: MatchId) -> Result<bool> {
    conn.prepare_cached("SELECT 1 FROM matches WHERE id = ?1")
        .and_then(|mut s| s.exists([id.to_string()]))
        .map_err(sqlite_err("read match"))
}

pub(super) fn load_session(conn: &Connection, id: SessionId) -> Result<Session> {
    query_one(
        conn,
        "read session",
        &format!("SELECT {SESSION_COLS} FROM processing_sessions WHERE id = ?1"),
        [id.to_string()],
        read_session,
    )?
    .ok_or_else(|| StoreError::not_found("session", id))
}

pub(super) fn opt_us(t: Option<OffsetDateTime>) -> Option<i64> {
    t.map(to_us)
}

pub(super) fn json_text(v: &impl serde::Serialize) -> Result<String> {
    serde_json::to_string(v).map_err(|e| StoreError::Invalid(format!("not JSON-serialisable: {e}")))
}

/// The values of every column of a match, in [`MATCH_COLS`] order.
pub(super) fn match_values(m: &Match) -> Result<Vec<SqlValue>> {
    let (source_type, source_value) = match &m.video_source {
        Some(s) => {
            let (t, v) = source_parts(s);
            (Some(t.to_owned()), Some(v))
        }
        None => (None, None),
    };
    let s = &m.settings;
    let text = |v: Option<String>| v.map_or(SqlValue::Null, SqlValue::Text);
    let int = |v: Option<i64>| v.map_or(SqlValue::Null, SqlValue::Integer);
    Ok(vec![
        SqlValue::Text(m.id.to_string()),
        SqlValue::Text(m.name.clone()),
        SqlValue::Text(m.sport.clone()),
        SqlValue::Text(m.home_team.clone()),
        SqlValue::Text(m.away_team.clone()),
        text(m.competition.clone()),
        int(opt_us(m.start_time)),
        int(opt_us(m.end_time)),
        SqlValue::Integer(i64::from(m.home_score)),
        SqlValue::Integer(i64::from(m.away_score)),
        SqlValue::Text(m.status.as_str().to_owned()),
        text(m.status_message.clone()),
        text(m.last_error.clone()),
        text(source_type),
        text(source_value),
        s.target_fps.map_or(SqlValue::Null, SqlValue::Real),
        SqlValue::Integer(i64::from(s.realtime)),
        text(s.model.clone()),
        SqlValue::Real(s.confidence_threshold),
        SqlValue::Integer(i64::from(s.enable_tracking)),
        SqlValue::Integer(i64::from(s.enable_teams)),
        SqlValue::Integer(i64::from(s.enable_events)),
        SqlValue::Text(json_text(&m.calibration)?),
        text(m.current_session_id.map(|s| s.to_string())),
        SqlValue::Integer(i64::try_from(m.event_count).unwrap_or(i64::MAX)),
        SqlValue::Integer(to_us(m.created_at)),
        SqlValue::Integer(to_us(m.updated_at)),
    ])
}

pub(super) fn insert_match(tx: &Transaction<'_>, m: &Match) -> Result<()> {
    let placeholders = (1..=27)
        .map(|i| format!("?{i}"))
        .collect::<Vec<_>>()
        .join(", ");
    let values = match_values(m)?;
    tx.prepare_cached(&format!(
        "INSERT INTO matches ({MATCH_COLS}) VALUES ({placeholders})"
    ))
    .and_then(|mut s| s.execute(rusqlite::params_from_iter(values)))
    .map_err(sqlite_err("create match"))?;
    Ok(())
}

/// Writes every column of an existing match back (the row was read in the same transaction).
pub(super) fn save_match(tx: &Transaction<'_>, m: &Match) -> Result<()> {
    let sets = MATCH_COLS
        .split(", ")
        .enumerate()
        .skip(1)
        .map(|(i, c)| format!("{} = ?{}", c.trim(), i + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let values = match_values(m)?;
    let n = tx
        .prepare_cached(&format!("UPDATE matches SET {sets} WHERE id = ?1"))
        .and_then(|mut s| s.execute(rusqlite::params_from_iter(values)))
        .map_err(sqlite_err("update match"))?;
    if n == 0 {
        return Err(StoreError::not_found("match", m.id));
    }
    Ok(())
}

pub(super) fn modify_match(
    tx: &Transaction<'_>,
    id: MatchId,
    f: impl FnOnce(&mut Match, OffsetDateTime) -> Result<()>,
) -> Result<Match> {
    let mut m = load_match(tx, id)?;
    f(&mut m, now())?;
    save_match(tx, &m)?;
    Ok(m)
}

pub(super) fn save_session(tx: &Transaction<'_>, s: &Session) -> Result<()> {
    tx.prepare_cached(
        "UPDATE processing_sessions SET worker_id = ?2, status = ?3, device = ?4, \
         frames_processed = ?5, avg_fps = ?6, avg_latency_ms = ?7, error = ?8, stopped_at = ?9, \
         updated_at = ?10, last_status_seq = ?11 WHERE id = ?1",
    )
    .and_then(|mut st| {
        st.execute(rusqlite::params![
            s.id.to_string(),
            s.worker_id,
            s.status.as_str(),
            s.device,
            i64::try_from(s.frames_processed).unwrap_or(i64::MAX),
            s.avg_fps,
            s.avg_latency_ms,
            s.error,
            opt_us(s.stopped_at),
            to_us(s.updated_at),
            i64::try_from(s.last_status_seq).unwrap_or(i64::MAX),
        ])
    })
    .map_err(sqlite_err("update session"))?;
    Ok(())
}

pub(super) fn insert_events_tx(tx: &Transaction<'_>, events: &[NewEvent]) -> Result<usize> {
    let mut checked_matches: HashMap<MatchId, u64> = HashMap::new();
    let mut checked_sessions: HashMap<SessionId, MatchId> = HashMap::new();
    let created = to_us(now());
    let e = sqlite_err("insert event");
    let mut inserted = 0;
    for ev in events {
        let (frame, payload) = event_columns(&ev.data)?;
        if let std::collections::hash_map::Entry::Vacant(slot) = checked_matches.entry(ev.match_id)
        {
            if !match_exists(tx, ev.match_id)? {
                return Err(StoreError::not_found("match", ev.match_id));
            }
            slot.insert(0);
        }
        if let Some(sid) = ev.session_id {
            let owner = match checked_sessions.get(&sid) {
                Some(m) => *m,
                None => {
                    let owner: String = tx
                        .prepare_cached("SELECT match_id FROM processing_sessions WHERE id = ?1")
                        .and_then(|mut s| s.query_row([sid.to_string()], |r| r.get(0)).optional())
                        .map_err(&e)?
                        .ok_or_else(|| StoreError::not_found("session", sid))?;
                    let owner: MatchId = crate::rows::parse_field("match id", &owner)?;
                    checked_sessions.insert(sid, owner);
                    owner
                }
            };
            if owner != ev.match_id {
                return Err(StoreError::Invalid(format!(
                    "event {}: session {sid} belongs to match {owner}, not {}",
                    ev.data.event_id, ev.match_id
                )));
            }
        }
        let n = tx
            .prepare_cached(
                "INSERT INTO events (event_id, match_id, session_id, kind, video_timestamp, \
                 frame_number, confidence, payload, created_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
                 ON CONFLICT (match_id, event_id) DO NOTHING",
            )
            .and_then(|mut s| {
                s.execute(rusqlite::params![
                    ev.data.event_id.to_string(),
                    ev.match_id.to_string(),
                    ev.session_id.map(|s| s.to_string()),
                    ev.data.kind.as_str(),
                    ev.data.video_timestamp,
                    frame,
                    ev.data.confidence,
                    payload.to_string(),
                    created,
                ])
            })
            .map_err(&e)?;
        if n == 1 {
            inserted += 1;
            *checked_matches.entry(ev.match_id).or_default() += 1;
        }
    }
    for (match_id, n) in checked_matches {
        if n > 0 {
            tx.prepare_cached("UPDATE matches SET event_count = event_count + ?2 WHERE id = ?1")
                .and_then(|mut s| {
                    s.execute(rusqlite::params![
                        match_id.to_string(),
                        i64::try_from(n).unwrap_or(i64::MAX)
                    ])
                })
                .map_err(&e)?;
        }
    }
    Ok(inserted)
}
