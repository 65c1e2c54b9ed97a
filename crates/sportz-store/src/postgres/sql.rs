//! Postgres helpers of the engine: typed row readers, binds, loading (optionally locking) and
//! saving matches and sessions, and event batches, each a plain function over a connection.

use std::collections::{HashMap, HashSet};

use sportz_contract::{MatchId, SessionId};
use sqlx::postgres::{PgConnection, PgRow};
use sqlx::{AssertSqlSafe, Postgres, Row};
use time::OffsetDateTime;

use crate::error::{Result, StoreError};
use crate::model::{ApiToken, Commentary, Match, NewEvent, Session, StoredEvent, now};
use crate::rows::{
    MATCH_COLS, RawCommentary, RawEvent, RawMatch, RawSession, RawToken, SESSION_COLS,
    event_columns, from_us, parse_field, source_parts,
};

use super::{Query, pg_err};

pub(super) fn q(sql: String) -> Query<'static> {
    sqlx::query(AssertSqlSafe(sql))
}

pub(super) fn col<'r, T>(row: &'r PgRow, name: &str) -> Result<T>
where
    T: sqlx::Decode<'r, Postgres> + sqlx::Type<Postgres>,
{
    row.try_get(name)
        .map_err(|e| StoreError::corrupt("postgres column", format!("{name}: {e}")))
}

pub(super) fn read_match(row: &PgRow) -> Result<Match> {
    RawMatch {
        id: col(row, "id")?,
        name: col(row, "name")?,
        sport: col(row, "sport")?,
        home_team: col(row, "home_team")?,
        away_team: col(row, "away_team")?,
        competition: col(row, "competition")?,
        start_time: col(row, "start_time")?,
        end_time: col(row, "end_time")?,
        home_score: i64::from(col::<i32>(row, "home_score")?),
        away_score: i64::from(col::<i32>(row, "away_score")?),
        status: col(row, "status")?,
        status_message: col(row, "status_message")?,
        last_error: col(row, "last_error")?,
        source_type: col(row, "video_source_type")?,
        source_value: col(row, "video_source_value")?,
        target_fps: col(row, "target_fps")?,
        realtime: col(row, "realtime")?,
        model: col(row, "model")?,
        confidence_threshold: col(row, "confidence_threshold")?,
        enable_tracking: col(row, "enable_tracking")?,
        enable_teams: col(row, "enable_teams")?,
        enable_events: col(row, "enable_events")?,
        calibration: col(row, "calibration")?,
        current_session_id: col(row, "current_session_id")?,
        event_count: col(row, "event_count")?,
        created_at: col(row, "created_at")?,
        updated_at: col(row, "updated_at")?,
    }
    .into_match()
}

pub(super) fn read_commentary(row: &PgRow) -> Result<Commentary> {
    RawCommentary {
        id: col(row, "id")?,
        match_id: col(row, "match_id")?,
        minute: col::<Option<i32>>(row, "minute")?.map(i64::from),
        sequence: i64::from(col::<i32>(row, "sequence")?),
        period: col(row, "period")?,
        event_type: col(row, "event_type")?,
        actor: col(row, "actor")?,
        team: col(row, "team")?,
        message: col(row, "message")?,
        metadata: col(row, "metadata")?,
        tags: col(row, "tags")?,
        created_at: col(row, "created_at")?,
    }
    .into_commentary()
}

pub(super) fn read_session(row: &PgRow) -> Result<Session> {
    RawSession {
        id: col(row, "id")?,
        match_id: col(row, "match_id")?,
        worker_id: col(row, "worker_id")?,
        status: col(row, "status")?,
        device: col(row, "device")?,
        config: col(row, "config")?,
        frames_processed: col(row, "frames_processed")?,
        avg_fps: col(row, "avg_fps")?,
        avg_latency_ms: col(row, "avg_latency_ms")?,
        error: col(row, "error")?,
        started_at: col(row, "started_at")?,
        stopped_at: col(row, "stopped_at")?,
        updated_at: col(row, "updated_at")?,
        last_status_seq: col(row, "last_status_seq")?,
    }
    .into_session()
}

pub(super) fn read_event(row: &PgRow) -> Result<StoredEvent> {
    RawEvent {
        id: col(row, "id")?,
        match_id: col(row, "match_id")?,
        session_id: col(row, "session_id")?,
        payload: col(row, "payload")?,
        created_at: col(row, "created_at")?,
    }
    .into_event()
}

pub(super) fn read_token(row: &PgRow) -> Result<ApiToken> {
    RawToken {
        id: col(row, "id")?,
        role: col(row, "role")?,
        label: col(row, "label")?,
        created_at: col(row, "created_at")?,
        last_used_at: col(row, "last_used_at")?,
    }
    .into_token()
}

pub(super) fn json(v: &impl serde::Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(v).map_err(|e| StoreError::Invalid(format!("not JSON-serialisable: {e}")))
}

/// Binds every column of a match in [`MATCH_COLS`] order.
pub(super) fn bind_match(query: Query<'static>, m: &Match) -> Result<Query<'static>> {
    let (source_type, source_value) = match &m.video_source {
        Some(s) => {
            let (t, v) = source_parts(s);
            (Some(t.to_owned()), Some(v))
        }
        None => (None, None),
    };
    let s = &m.settings;
    let score = |v: u32| {
        i32::try_from(v).map_err(|_| StoreError::Invalid(format!("score {v} is too large")))
    };
    Ok(query
        .bind(m.id.to_string())
        .bind(m.name.clone())
        .bind(m.sport.clone())
        .bind(m.home_team.clone())
        .bind(m.away_team.clone())
        .bind(m.competition.clone())
        .bind(m.start_time)
        .bind(m.end_time)
        .bind(score(m.home_score)?)
        .bind(score(m.away_score)?)
        .bind(m.status.as_str())
        .bind(m.status_message.clone())
        .bind(m.last_error.clone())
        .bind(source_type)
        .bind(source_value)
        .bind(s.target_fps)
        .bind(s.realtime)
        .bind(s.model.clone())
        .bind(s.confidence_threshold)
        .bind(s.enable_tracking)
        .bind(s.enable_teams)
        .bind(s.enable_events)
        .bind(json(&m.calibration)?)
        .bind(m.current_session_id.map(|s| s.to_string()))
        .bind(i64::try_from(m.event_count).unwrap_or(i64::MAX))
        .bind(m.created_at)
        .bind(m.updated_at))
}

pub(super) async fn load_match(conn: &mut PgConnection, id: MatchId, lock: bool) -> Result<Match> {
    let row = q(format!(
        "SELECT {MATCH_COLS} FROM matches WHERE id = $1{}",
        if lock { " FOR NO KEY UPDATE" } else { "" }
    ))
    .bind(id.to_string())
    .fetch_optional(conn)
    .await
    .map_err(pg_err("read match"))?;
    row.as_ref()
        .map(read_match)
        .transpose()?
        .ok_or_else(|| StoreError::not_found("match", id))
}

pub(super) async fn match_exists(conn: &mut PgConnection, id: MatchId) -> Result<bool> {
    sqlx::query("SELECT 1 FROM matches WHERE id = $1")
        .bind(id.to_string())
        .fetch_optional(conn)
        .await
        .map(|r| r.is_some())
        .map_err(pg_err("read match"))
}

pub(super) async fn load_session(
    conn: &mut PgConnection,
    id: SessionId,
    lock: bool,
) -> Result<Session> {
    let row = q(format!(
        "SELECT {SESSION_COLS} FROM processing_sessions WHERE id = $1{}",
        if lock { " FOR NO KEY UPDATE" } else { "" }
    ))
    .bind(id.to_string())
    .fetch_optional(conn)
    .await
    .map_err(pg_err("read session"))?;
    row.as_ref()
        .map(read_session)
        .transpose()?
        .ok_or_else(|| StoreError::not_found("session", id))
}

pub(super) async fn save_match(conn: &mut PgConnection, m: &Match) -> Result<()> {
    let sets = MATCH_COLS
        .split(", ")
        .enumerate()
        .skip(1)
        .map(|(i, c)| format!("{} = ${}", c.trim(), i + 1))
        .collect::<Vec<_>>()
        .join(", ");
    let done = bind_match(q(format!("UPDATE matches SET {sets} WHERE id = $1")), m)?
        .execute(conn)
        .await
        .map_err(pg_err("update match"))?;
    if done.rows_affected() == 0 {
        return Err(StoreError::not_found("match", m.id));
    }
    Ok(())
}

pub(super) async fn save_session(conn: &mut PgConnection, s: &Session) -> Result<()> {
    sqlx::query(
        "UPDATE processing_sessions SET worker_id = $2, status = $3, device = $4, \
         frames_processed = $5, avg_fps = $6, avg_latency_ms = $7, error = $8, stopped_at = $9, \
         updated_at = $10, last_status_seq = $11 WHERE id = $1",
    )
    .bind(s.id.to_string())
    .bind(s.worker_id.clone())
    .bind(s.status.as_str())
    .bind(s.device.clone())
    .bind(i64::try_from(s.frames_processed).unwrap_or(i64::MAX))
    .bind(s.avg_fps)
    .bind(s.avg_latency_ms)
    .bind(s.error.clone())
    .bind(s.stopped_at)
    .bind(s.updated_at)
    .bind(i64::try_from(s.last_status_seq).unwrap_or(i64::MAX))
    .execute(conn)
    .await
    .map_err(pg_err("update session"))?;
    Ok(())
}

pub(super) fn cursor_time(us: i64) -> Result<OffsetDateTime> {
    from_us(us).map_err(|_| StoreError::Invalid("malformed cursor (bad time)".into()))
}
/// Checks the parents of a batch (each match exists, each session belongs to its event's match).
pub(super) async fn check_event_parents(
    conn: &mut PgConnection,
    events: &[NewEvent],
) -> Result<()> {
    let mut matches: HashSet<MatchId> = HashSet::new();
    let mut owners: HashMap<SessionId, MatchId> = HashMap::new();
    for ev in events {
        if matches.insert(ev.match_id) && !match_exists(&mut *conn, ev.match_id).await? {
            return Err(StoreError::not_found("match", ev.match_id));
        }
        let Some(sid) = ev.session_id else { continue };
        let owner = if let Some(m) = owners.get(&sid) {
            *m
        } else {
            let row = sqlx::query("SELECT match_id FROM processing_sessions WHERE id = $1")
                .bind(sid.to_string())
                .fetch_optional(&mut *conn)
                .await
                .map_err(pg_err("insert event"))?
                .ok_or_else(|| StoreError::not_found("session", sid))?;
            let owner: MatchId = parse_field("match id", &col::<String>(&row, "match_id")?)?;
            owners.insert(sid, owner);
            owner
        };
        if owner != ev.match_id {
            return Err(StoreError::Invalid(format!(
                "event {}: session {sid} belongs to match {owner}, not {}",
                ev.data.event_id, ev.match_id
            )));
        }
    }
    Ok(())
}

/// Inserts a batch with one statement (`UNNEST` of column arrays); duplicates, in the table or
/// within the batch, are skipped by `ON CONFLICT DO NOTHING`. Returns the new rows' count.
pub(super) async fn insert_events_tx(
    conn: &mut PgConnection,
    events: &[NewEvent],
) -> Result<usize> {
    if events.is_empty() {
        return Ok(0);
    }
    check_event_parents(&mut *conn, events).await?;
    let n = events.len();
    let (mut event_ids, mut match_ids, mut session_ids, mut kinds) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut video_ts, mut frames, mut confidences, mut payloads) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    for ev in events {
        let (frame, payload) = event_columns(&ev.data)?;
        event_ids.push(ev.data.event_id.to_string());
        match_ids.push(ev.match_id.to_string());
        session_ids.push(ev.session_id.map(|s| s.to_string()));
        kinds.push(ev.data.kind.as_str().to_owned());
        video_ts.push(ev.data.video_timestamp);
        frames.push(frame);
        confidences.push(ev.data.confidence);
        payloads.push(payload);
    }
    let e = pg_err("insert events");
    let inserted = sqlx::query(
        "INSERT INTO events (event_id, match_id, session_id, kind, video_timestamp, frame_number, \
         confidence, payload, created_at) \
         SELECT e.*, $9 FROM UNNEST($1::text[], $2::text[], $3::text[], $4::text[], \
         $5::float8[], $6::int8[], $7::float8[], $8::jsonb[]) \
         AS e(event_id, match_id, session_id, kind, video_timestamp, frame_number, confidence, payload) \
         ON CONFLICT (match_id, event_id) DO NOTHING RETURNING match_id",
    )
    .bind(event_ids)
    .bind(match_ids)
    .bind(session_ids)
    .bind(kinds)
    .bind(video_ts)
    .bind(frames)
    .bind(confidences)
    .bind(payloads)
    .bind(now())
    .fetch_all(&mut *conn)
    .await
    .map_err(&e)?;
    let mut counts: HashMap<String, i64> = HashMap::new();
    for row in &inserted {
        *counts.entry(col::<String>(row, "match_id")?).or_default() += 1;
    }
    // a fixed order, so concurrent batches lock their matches in the same order
    let mut counts: Vec<(String, i64)> = counts.into_iter().collect();
    counts.sort_unstable();
    for (match_id, n) in counts {
        sqlx::query("UPDATE matches SET event_count = event_count + $2 WHERE id = $1")
            .bind(match_id)
            .bind(n)
            .execute(&mut *conn)
            .await
            .map_err(&e)?;
    }
    Ok(inserted.len())
}
