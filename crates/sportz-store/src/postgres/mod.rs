//! The server engine: Postgres through an sqlx pool, with runtime-checked queries (no live
//! database at build time). Writes that read-modify-write a row lock it in a transaction
//! (`FOR NO KEY UPDATE`: ids never change, so event and commentary inserts, which only need the
//! parent's key, are not blocked), always the match before its session, so concurrent API
//! instances see the same semantics as the single SQLite writer.
//!
//! Here: the pool, migrations and the one `impl Store` (one method per trait method:
//! `async_trait` wants one block, so the file stays long); the row readers, binds, loads and
//! saves they share are in `sql.rs`.

use std::time::Duration;

use async_trait::async_trait;
use sportz_contract::worker::PointPair;
use sportz_contract::{DesiredState, EventId, MatchId, MatchStatus, SessionId, StatusDecision};
use sqlx::Postgres;
use sqlx::postgres::{PgPool, PgPoolOptions};
use time::OffsetDateTime;

use crate::error::{Result, StoreError, Violation, from_violation};
use crate::logic::{
    check_deletable, decide, new_match_row, new_session_row, phase_name, phase_sql, supersede,
    token_stale,
};
use crate::migrate;
use crate::model::{
    ApiToken, Commentary, EventFilter, Match, MatchFilter, MatchUpdate, NewCommentary, NewEvent,
    NewMatch, NewToken, Page, PageRequest, Session, SessionStats, SessionStatusUpdate,
    StatusOutcome, StoredEvent, TokenRole, now,
};
use crate::page::{Listing, PageStart, commentary_page, event_page, match_page};
use crate::rows::{COMMENTARY_COLS, EVENT_COLS, MATCH_COLS, SESSION_COLS, TOKEN_COLS};
use crate::{Engine, Store, token};

mod sql;
use sql::*;

/// Serialises migrations across API instances starting at once (`pg_advisory_xact_lock`).
const MIGRATION_LOCK: i64 = 0x5350_4f52_545a; // "SPORTZ"

type Query<'q> = sqlx::query::Query<'q, Postgres, sqlx::postgres::PgArguments>;

/// The Postgres store.
#[derive(Debug, Clone)]
pub struct PgStore {
    pool: PgPool,
}

fn pg_err(context: &str) -> impl Fn(sqlx::Error) -> StoreError + '_ {
    move |e| classify(context, e)
}

fn classify(context: &str, e: sqlx::Error) -> StoreError {
    match &e {
        sqlx::Error::Database(db) => {
            let code = db.code().map(|c| c.into_owned()).unwrap_or_default();
            let violation = match code.as_str() {
                "23505" => Some(Violation::Unique),
                "23503" => Some(Violation::ForeignKey),
                "23514" => Some(Violation::Check),
                "23502" => Some(Violation::NotNull),
                _ => None,
            };
            if let Some(v) = violation {
                tracing::debug!("postgres {context}: {e}");
                return from_violation(v, db.constraint().unwrap_or(""), context, db.message());
            }
            if code.starts_with("08")
                || code.starts_with("53")
                || code.starts_with("57P")
                || code == "40001"
                || code == "40P01"
            {
                tracing::warn!("postgres {context}: {e}");
                return StoreError::Unavailable(format!("{context}: {}", db.message()));
            }
            if code.starts_with("22") {
                tracing::debug!("postgres {context}: {e}");
                return StoreError::Invalid(format!("{context}: {}", db.message()));
            }
        }
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::BeginFailed => {
            tracing::warn!("postgres {context}: {e}");
            return StoreError::Unavailable(format!("{context}: {e}"));
        }
        _ => {}
    }
    tracing::error!("postgres {context}: {e}");
    StoreError::Internal(format!("{context} failed (postgres: {e})"))
}

impl PgStore {
    /// Connects a pool to `url` (`postgres://…`) and applies pending migrations.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the server cannot be reached or migrated.
    pub async fn connect(url: &str) -> Result<Self> {
        let pool = PgPoolOptions::new()
            .max_connections(10)
            .acquire_timeout(Duration::from_secs(10))
            .connect(url)
            .await
            .map_err(|e| {
                tracing::error!("postgres connect: {e}");
                StoreError::Unavailable(format!("cannot connect to postgres: {e}"))
            })?;
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
    }

    /// Uses an existing pool (the caller configured it) and applies pending migrations.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when migrating fails.
    pub async fn from_pool(pool: PgPool) -> Result<Self> {
        let store = Self { pool };
        store.migrate().await?;
        Ok(store)
    }

    async fn migrate(&self) -> Result<()> {
        let e = pg_err("migrate");
        let mut tx = self.pool.begin().await.map_err(&e)?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await
            .map_err(&e)?;
        sqlx::raw_sql(migrate::HISTORY_DDL)
            .execute(&mut *tx)
            .await
            .map_err(&e)?;
        let applied: Vec<(i64, String)> =
            sqlx::query("SELECT version, checksum FROM schema_migrations ORDER BY version")
                .fetch_all(&mut *tx)
                .await
                .map_err(&e)?
                .iter()
                .map(|r| Ok((col(r, "version")?, col(r, "checksum")?)))
                .collect::<Result<_>>()?;
        for m in migrate::pending(migrate::POSTGRES, &applied)? {
            tracing::info!("applying postgres migration {:04}_{}", m.version, m.name);
            sqlx::raw_sql(m.sql).execute(&mut *tx).await.map_err(&e)?;
            sqlx::query(
                "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)",
            )
            .bind(m.version)
            .bind(m.name)
            .bind(m.checksum())
            .bind(now().to_string())
            .execute(&mut *tx)
            .await
            .map_err(&e)?;
        }
        tx.commit().await.map_err(&e)
    }

    /// The pool (for callers that share it).
    #[must_use]
    pub const fn pool(&self) -> &PgPool {
        &self.pool
    }

    async fn begin(&self, context: &str) -> Result<sqlx::Transaction<'static, Postgres>> {
        self.pool.begin().await.map_err(pg_err(context))
    }

    async fn conn(&self, context: &str) -> Result<sqlx::pool::PoolConnection<Postgres>> {
        self.pool.acquire().await.map_err(pg_err(context))
    }

    async fn modify_match(
        &self,
        context: &'static str,
        id: MatchId,
        f: impl FnOnce(&mut Match, OffsetDateTime) -> Result<()> + Send,
    ) -> Result<Match> {
        let mut tx = self.begin(context).await?;
        let mut m = load_match(&mut tx, id, true).await?;
        f(&mut m, now())?;
        save_match(&mut tx, &m).await?;
        tx.commit().await.map_err(pg_err(context))?;
        Ok(m)
    }
}

#[async_trait]
impl Store for PgStore {
    fn engine(&self) -> Engine {
        Engine::Postgres
    }

    async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map(|_| ())
            .map_err(pg_err("ping"))
    }

    async fn create_match(&self, new: NewMatch) -> Result<Match> {
        let m = new_match_row(new)?;
        let placeholders = (1..=27)
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>()
            .join(", ");
        bind_match(
            q(format!(
                "INSERT INTO matches ({MATCH_COLS}) VALUES ({placeholders})"
            )),
            &m,
        )?
        .execute(&self.pool)
        .await
        .map_err(pg_err("create match"))?;
        Ok(m)
    }

    async fn get_match(&self, id: MatchId) -> Result<Match> {
        let mut c = self.conn("read match").await?;
        load_match(&mut c, id, false).await
    }

    async fn list_matches(&self, filter: MatchFilter) -> Result<Page<Match>> {
        let start = PageStart::of(Listing::Matches, &filter.page)?;
        let after_time = start.key().map(cursor_time).transpose()?;
        let rows = q(format!(
            "SELECT {MATCH_COLS} FROM matches \
             WHERE ($1::text IS NULL OR status = $1) \
             AND ($2::text IS NULL OR ({}) = $2) \
             AND {} ORDER BY created_at DESC, id DESC LIMIT $6",
            phase_sql("$3::timestamptz"),
            start.after_clause("created_at, id", "<", "$4::timestamptz", "$5::text")
        ))
        .bind(filter.status.map(MatchStatus::as_str))
        .bind(filter.phase.map(|(p, _)| phase_name(p)))
        .bind(filter.phase.map(|(_, at)| at))
        .bind(after_time)
        .bind(start.id())
        .bind(start.fetch())
        .fetch_all(&self.pool)
        .await
        .map_err(pg_err("list matches"))?;
        let rows = rows.iter().map(read_match).collect::<Result<Vec<_>>>()?;
        Ok(match_page(rows, start.limit))
    }

    async fn update_match(&self, id: MatchId, update: MatchUpdate) -> Result<Match> {
        self.modify_match("update match", id, |m, at| update.apply(m, at))
            .await
    }

    async fn delete_match(&self, id: MatchId) -> Result<()> {
        let mut tx = self.begin("delete match").await?;
        check_deletable(&load_match(&mut tx, id, true).await?)?;
        sqlx::query("DELETE FROM matches WHERE id = $1")
            .bind(id.to_string())
            .execute(&mut *tx)
            .await
            .map_err(pg_err("delete match"))?;
        tx.commit().await.map_err(pg_err("delete match"))
    }

    async fn update_score(&self, id: MatchId, home_score: u32, away_score: u32) -> Result<Match> {
        self.modify_match("update score", id, |m, at| {
            m.home_score = home_score;
            m.away_score = away_score;
            m.updated_at = at;
            Ok(())
        })
        .await
    }

    async fn get_calibration(&self, id: MatchId) -> Result<Vec<PointPair>> {
        Ok(self.get_match(id).await?.calibration)
    }

    async fn set_calibration(&self, id: MatchId, pairs: Vec<PointPair>) -> Result<Match> {
        self.modify_match("set calibration", id, |m, at| {
            m.calibration = pairs;
            m.updated_at = at;
            Ok(())
        })
        .await
    }

    async fn add_commentary(&self, new: NewCommentary) -> Result<Commentary> {
        new.validate()?;
        let sequence = i32::try_from(new.sequence)
            .map_err(|_| StoreError::Invalid(format!("sequence {} is too large", new.sequence)))?;
        let minute = new
            .minute
            .map(|m| {
                i32::try_from(m)
                    .map_err(|_| StoreError::Invalid(format!("minute {m} is too large")))
            })
            .transpose()?;
        let mut tx = self.begin("add commentary").await?;
        // lock the match so the sequence check and the insert are one step
        load_match(&mut tx, new.match_id, true).await?;
        let exists = sqlx::query("SELECT 1 FROM commentary WHERE match_id = $1 AND sequence = $2")
            .bind(new.match_id.to_string())
            .bind(sequence)
            .fetch_optional(&mut *tx)
            .await
            .map_err(pg_err("add commentary"))?
            .is_some();
        if exists {
            return Err(StoreError::conflict(
                "commentary",
                format!(
                    "match `{}` already has commentary with sequence {}",
                    new.match_id, new.sequence
                ),
            ));
        }
        let row = q(format!(
            "INSERT INTO commentary (match_id, minute, sequence, period, event_type, actor, team, \
             message, metadata, tags, created_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING {COMMENTARY_COLS}"
        ))
        .bind(new.match_id.to_string())
        .bind(minute)
        .bind(sequence)
        .bind(new.period)
        .bind(new.event_type)
        .bind(new.actor)
        .bind(new.team)
        .bind(new.message)
        .bind(new.metadata)
        .bind(new.tags)
        .bind(now())
        .fetch_one(&mut *tx)
        .await
        .map_err(pg_err("add commentary"))?;
        let c = read_commentary(&row)?;
        tx.commit().await.map_err(pg_err("add commentary"))?;
        Ok(c)
    }

    async fn list_commentary(
        &self,
        match_id: MatchId,
        page: PageRequest,
    ) -> Result<Page<Commentary>> {
        let start = PageStart::of(Listing::Commentary, &page)?;
        let after_id = start.row_id()?;
        let after_time = start.key().map(cursor_time).transpose()?;
        let mut c = self.conn("list commentary").await?;
        let rows = q(format!(
            "SELECT {COMMENTARY_COLS} FROM commentary WHERE match_id = $1 \
             AND {} ORDER BY created_at DESC, id DESC LIMIT $4",
            start.after_clause("created_at, id", "<", "$2::timestamptz", "$3::bigint")
        ))
        .bind(match_id.to_string())
        .bind(after_time)
        .bind(after_id)
        .bind(start.fetch())
        .fetch_all(&mut *c)
        .await
        .map_err(pg_err("list commentary"))?;
        let rows = rows
            .iter()
            .map(read_commentary)
            .collect::<Result<Vec<_>>>()?;
        if rows.is_empty() && !match_exists(&mut c, match_id).await? {
            return Err(StoreError::not_found("match", match_id));
        }
        Ok(commentary_page(rows, start.limit))
    }

    async fn create_session(
        &self,
        match_id: MatchId,
        session_id: SessionId,
        status_message: Option<String>,
    ) -> Result<Session> {
        let e = pg_err("create session");
        let mut tx = self.begin("create session").await?;
        let mut m = load_match(&mut tx, match_id, true).await?;
        let at = now();
        let session = new_session_row(&m, session_id, at)?;
        if let Some(old) = m.current_session_id {
            let mut old = load_session(&mut tx, old, true).await?;
            if supersede(&mut old, session_id, at) {
                save_session(&mut tx, &old).await?;
            }
        }
        q(format!(
            "INSERT INTO processing_sessions ({SESSION_COLS}) \
             VALUES ($1, $2, NULL, $3, NULL, $4, 0, NULL, NULL, NULL, $5, NULL, $5, 0)"
        ))
        .bind(session.id.to_string())
        .bind(match_id.to_string())
        .bind(session.status.as_str())
        .bind(json(&session.config)?)
        .bind(at)
        .execute(&mut *tx)
        .await
        .map_err(&e)?;
        m.current_session_id = Some(session_id);
        m.status = MatchStatus::Starting;
        m.status_message = status_message;
        m.updated_at = at;
        save_match(&mut tx, &m).await?;
        tx.commit().await.map_err(&e)?;
        Ok(session)
    }

    async fn apply_session_status(
        &self,
        update: SessionStatusUpdate,
        desired: Option<DesiredState>,
    ) -> Result<StatusOutcome> {
        let mut tx = self.begin("apply session status").await?;
        let match_id = load_session(&mut tx, update.session_id, false)
            .await?
            .match_id;
        // lock order everywhere: match, then session
        let mut m = load_match(&mut tx, match_id, true).await?;
        let mut session = load_session(&mut tx, update.session_id, true).await?;
        let decision = decide(&mut session, &mut m, update, desired, now());
        save_session(&mut tx, &session).await?;
        if matches!(decision, StatusDecision::Apply(_)) {
            save_match(&mut tx, &m).await?;
        }
        tx.commit().await.map_err(pg_err("apply session status"))?;
        Ok(StatusOutcome {
            decision,
            match_row: m,
        })
    }

    async fn update_session_stats(
        &self,
        session_id: SessionId,
        stats: SessionStats,
    ) -> Result<Session> {
        let mut tx = self.begin("update session stats").await?;
        let mut s = load_session(&mut tx, session_id, true).await?;
        s.frames_processed = stats.frames_processed;
        s.avg_fps = stats.avg_fps;
        s.avg_latency_ms = stats.avg_latency_ms;
        s.updated_at = now();
        save_session(&mut tx, &s).await?;
        tx.commit().await.map_err(pg_err("update session stats"))?;
        Ok(s)
    }

    async fn get_session(&self, id: SessionId) -> Result<Session> {
        let mut c = self.conn("read session").await?;
        load_session(&mut c, id, false).await
    }

    async fn list_sessions(&self, match_id: MatchId) -> Result<Vec<Session>> {
        let mut c = self.conn("list sessions").await?;
        let rows = q(format!(
            "SELECT {SESSION_COLS} FROM processing_sessions WHERE match_id = $1 \
             ORDER BY started_at DESC, id DESC"
        ))
        .bind(match_id.to_string())
        .fetch_all(&mut *c)
        .await
        .map_err(pg_err("list sessions"))?;
        let rows = rows.iter().map(read_session).collect::<Result<Vec<_>>>()?;
        if rows.is_empty() && !match_exists(&mut c, match_id).await? {
            return Err(StoreError::not_found("match", match_id));
        }
        Ok(rows)
    }

    async fn insert_event(&self, event: NewEvent) -> Result<bool> {
        Ok(self.insert_events(vec![event]).await? == 1)
    }

    async fn insert_events(&self, events: Vec<NewEvent>) -> Result<usize> {
        let mut tx = self.begin("insert events").await?;
        let n = insert_events_tx(&mut tx, &events).await?;
        tx.commit().await.map_err(pg_err("insert events"))?;
        Ok(n)
    }

    async fn list_events(&self, filter: EventFilter) -> Result<Page<StoredEvent>> {
        let start = PageStart::of(Listing::Events, &filter.page)?;
        let after_id = start.row_id()?;
        let mut c = self.conn("list events").await?;
        let rows = q(format!(
            "SELECT {EVENT_COLS} FROM events WHERE match_id = $1 \
             AND ($2::text IS NULL OR kind = $2) AND ($3::text IS NULL OR session_id = $3) \
             AND {} ORDER BY frame_number, id LIMIT $6",
            start.after_clause("frame_number, id", ">", "$4::bigint", "$5::bigint")
        ))
        .bind(filter.match_id.to_string())
        .bind(filter.kind.map(|k| k.as_str()))
        .bind(filter.session_id.map(|s| s.to_string()))
        .bind(start.key())
        .bind(after_id)
        .bind(start.fetch())
        .fetch_all(&mut *c)
        .await
        .map_err(pg_err("list events"))?;
        let rows = rows.iter().map(read_event).collect::<Result<Vec<_>>>()?;
        if rows.is_empty() && !match_exists(&mut c, filter.match_id).await? {
            return Err(StoreError::not_found("match", filter.match_id));
        }
        Ok(event_page(rows, start.limit))
    }

    async fn recent_events(&self, match_id: MatchId, limit: u32) -> Result<Vec<StoredEvent>> {
        let limit = PageRequest::first(limit).limit()?;
        let mut c = self.conn("recent events").await?;
        let rows = q(format!(
            "SELECT {EVENT_COLS} FROM events WHERE match_id = $1 \
             AND (session_id IS NULL OR session_id = \
                  (SELECT current_session_id FROM matches WHERE id = $1)) \
             ORDER BY frame_number DESC, id DESC LIMIT $2"
        ))
        .bind(match_id.to_string())
        .bind(i64::from(limit))
        .fetch_all(&mut *c)
        .await
        .map_err(pg_err("recent events"))?;
        let mut rows = rows.iter().map(read_event).collect::<Result<Vec<_>>>()?;
        if rows.is_empty() && !match_exists(&mut c, match_id).await? {
            return Err(StoreError::not_found("match", match_id));
        }
        rows.reverse();
        Ok(rows)
    }

    async fn events_after(
        &self,
        match_id: MatchId,
        after: EventId,
        limit: u32,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let limit = PageRequest::first(limit).limit()?;
        let mut c = self.conn("events after").await?;
        let row: Option<(i64,)> =
            sqlx::query_as("SELECT id FROM events WHERE match_id = $1 AND event_id = $2")
                .bind(match_id.to_string())
                .bind(after.to_string())
                .fetch_optional(&mut *c)
                .await
                .map_err(pg_err("events after"))?;
        let Some((row,)) = row else {
            if !match_exists(&mut c, match_id).await? {
                return Err(StoreError::not_found("match", match_id));
            }
            return Ok(None);
        };
        let rows = q(format!(
            "SELECT {EVENT_COLS} FROM events WHERE match_id = $1 AND id > $2 ORDER BY id LIMIT $3"
        ))
        .bind(match_id.to_string())
        .bind(row)
        .bind(i64::from(limit))
        .fetch_all(&mut *c)
        .await
        .map_err(pg_err("events after"))?;
        rows.iter()
            .map(read_event)
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    async fn create_token(&self, role: TokenRole, label: Option<String>) -> Result<NewToken> {
        let secret = token::generate()?;
        let row = q(format!(
            "INSERT INTO api_tokens (token_hash, role, label, created_at) \
             VALUES ($1, $2, $3, $4) RETURNING {TOKEN_COLS}"
        ))
        .bind(token::sha256_hex(&secret))
        .bind(role.as_str())
        .bind(label)
        .bind(now())
        .fetch_one(&self.pool)
        .await
        .map_err(pg_err("create token"))?;
        Ok(NewToken {
            token: read_token(&row)?,
            secret,
        })
    }

    async fn verify_token(&self, secret: &str) -> Result<Option<ApiToken>> {
        let hash = token::sha256_hex(secret);
        let row = q(format!(
            "SELECT {TOKEN_COLS} FROM api_tokens WHERE token_hash = $1"
        ))
        .bind(hash.clone())
        .fetch_optional(&self.pool)
        .await
        .map_err(pg_err("verify token"))?;
        let Some(mut t) = row.as_ref().map(read_token).transpose()? else {
            return Ok(None);
        };
        let at = now();
        if token_stale(&t, at) {
            // recording use at most once a minute keeps verification a read
            sqlx::query("UPDATE api_tokens SET last_used_at = $2 WHERE token_hash = $1")
                .bind(hash)
                .bind(at)
                .execute(&self.pool)
                .await
                .map_err(pg_err("record token use"))?;
            t.last_used_at = Some(at);
        }
        Ok(Some(t))
    }

    async fn list_tokens(&self) -> Result<Vec<ApiToken>> {
        q(format!("SELECT {TOKEN_COLS} FROM api_tokens ORDER BY id"))
            .fetch_all(&self.pool)
            .await
            .map_err(pg_err("list tokens"))?
            .iter()
            .map(read_token)
            .collect()
    }

    async fn revoke_token(&self, id: i64) -> Result<()> {
        let done = sqlx::query("DELETE FROM api_tokens WHERE id = $1")
            .bind(id)
            .execute(&self.pool)
            .await
            .map_err(pg_err("revoke token"))?;
        if done.rows_affected() == 0 {
            return Err(StoreError::not_found("token", id));
        }
        Ok(())
    }

    async fn get_setting(&self, key: &str) -> Result<Option<serde_json::Value>> {
        sqlx::query("SELECT value FROM settings WHERE key = $1")
            .bind(key.to_owned())
            .fetch_optional(&self.pool)
            .await
            .map_err(pg_err("read setting"))?
            .map(|r| col(&r, "value"))
            .transpose()
    }

    async fn set_setting(&self, key: &str, value: serde_json::Value) -> Result<()> {
        if key.trim().is_empty() {
            return Err(StoreError::Invalid("setting key must not be empty".into()));
        }
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES ($1, $2, $3) \
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key.to_owned())
        .bind(value)
        .bind(now())
        .execute(&self.pool)
        .await
        .map_err(pg_err("set setting"))?;
        Ok(())
    }

    async fn list_settings(&self) -> Result<Vec<(String, serde_json::Value)>> {
        sqlx::query("SELECT key, value FROM settings ORDER BY key")
            .fetch_all(&self.pool)
            .await
            .map_err(pg_err("list settings"))?
            .iter()
            .map(|r| Ok((col(r, "key")?, col(r, "value")?)))
            .collect()
    }
}
