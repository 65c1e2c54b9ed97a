//! The embedded engine: one SQLite file in WAL mode, driven by rusqlite on dedicated threads.
//!
//! One writer thread owns the only read-write connection (SQLite allows one writer at a time
//! anyway, so a queue in front of it beats lock contention); a few reader threads own read-only
//! connections, which WAL lets run beside the writer. Async callers send a closure and await a
//! oneshot reply, so the runtime never blocks on disk.
//!
//! Group commit: the writer takes every write waiting in its queue (up to [`MAX_GROUP`]) and
//! runs them in one transaction, each inside its own savepoint — a write that fails is rolled
//! back alone, the others commit together — so concurrent writers share one fsync instead of
//! queueing behind one each. Every caller still gets its answer only after the commit.
//!
//! Durability: `synchronous=FULL` by default, so a commit is on disk before the call returns and
//! survives a power cut as well as a killed process. `NORMAL` (WAL's usual setting) also survives
//! a killed process — the WAL is in the OS cache — but may lose the last commits on power loss;
//! choose it with [`SqliteOptions`] when speed matters more.
//!
//! Here: the options, the threads and the one `impl Store` (one method per trait method:
//! `async_trait` wants one block, so the file stays long); the row readers, queries and
//! writes they share are in `sql.rs`.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rusqlite::{Connection, OpenFlags, Transaction, TransactionBehavior};
use sportz_contract::worker::PointPair;
use sportz_contract::{DesiredState, EventId, MatchId, MatchStatus, SessionId, StatusDecision};

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
use crate::rows::{COMMENTARY_COLS, EVENT_COLS, MATCH_COLS, SESSION_COLS, TOKEN_COLS, to_us};
use crate::{Engine, Store, token};

mod sql;
use sql::*;

/// How hard a commit waits for the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Synchronous {
    /// Every commit is fsynced: nothing committed is lost, even on power loss.
    #[default]
    Full,
    /// The WAL is synced at checkpoints only: survives a killed process, not a power cut.
    Normal,
}

/// How a SQLite store is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SqliteOptions {
    pub synchronous: Synchronous,
    /// Reader threads (each with its own connection), at least 1.
    pub readers: usize,
    /// How long a connection waits for a lock held by another process, in milliseconds.
    pub busy_timeout_ms: u32,
}

impl Default for SqliteOptions {
    fn default() -> Self {
        Self {
            synchronous: Synchronous::Full,
            readers: 2,
            busy_timeout_ms: 5_000,
        }
    }
}

type Job = Box<dyn FnOnce(&mut Connection) + Send>;

/// What a write's body leaves to do once its group's commit is known: answer the caller.
type Finish = Box<dyn FnOnce(Result<()>) + Send>;

/// A write's body, run inside the group's transaction (within its own savepoint); `None` when
/// the group's transaction could not be had, so the body is not run and the write fails.
type WriteJob = Box<dyn FnOnce(Option<&Transaction<'_>>) -> Finish + Send>;

/// The most writes one commit carries.
pub const MAX_GROUP: usize = 64;

/// What the writer thread is asked to do.
enum WriterJob {
    /// Anything on the read-write connection (reads of an in-memory database).
    Run(Job),
    /// A write, committed with whatever other writes are waiting.
    Write(WriteJob),
}

/// The SQLite store. Cheap to share behind an `Arc`; dropping it ends its threads.
#[derive(Debug)]
pub struct SqliteStore {
    path: PathBuf,
    writer: mpsc::Sender<WriterJob>,
    /// Write transactions committed (one per group), for [`SqliteStore::commits`].
    commits: Arc<std::sync::atomic::AtomicU64>,
    /// `None` for an in-memory database (reads go to the writer).
    readers: Option<mpsc::Sender<Job>>,
}

fn sqlite_err(context: &str) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
    move |e| classify(context, e)
}

fn classify(context: &str, e: rusqlite::Error) -> StoreError {
    use rusqlite::ErrorCode as C;
    use rusqlite::ffi;
    if let rusqlite::Error::SqliteFailure(f, msg) = &e {
        let detail = msg.clone().unwrap_or_default();
        // "UNIQUE constraint failed: commentary.match_id, commentary.sequence"
        let constraint = detail.split_once(": ").map_or("", |(_, c)| c);
        let violation = match f.extended_code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => {
                Some(Violation::Unique)
            }
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => Some(Violation::ForeignKey),
            ffi::SQLITE_CONSTRAINT_CHECK => Some(Violation::Check),
            ffi::SQLITE_CONSTRAINT_NOTNULL => Some(Violation::NotNull),
            _ => None,
        };
        if let Some(v) = violation {
            tracing::debug!("sqlite {context}: {e}");
            return from_violation(v, constraint, context, &detail);
        }
        match f.code {
            C::DatabaseBusy | C::DatabaseLocked => {
                tracing::warn!("sqlite {context}: {e}");
                return StoreError::Unavailable(format!("{context}: the database is busy"));
            }
            C::CannotOpen
            | C::NotADatabase
            | C::DiskFull
            | C::ReadOnly
            | C::SystemIoFailure
            | C::PermissionDenied
            | C::DatabaseCorrupt => {
                tracing::error!("sqlite {context}: {e}");
                return StoreError::Unavailable(format!("{context}: {e}"));
            }
            _ => {}
        }
    }
    tracing::error!("sqlite {context}: {e}");
    StoreError::Internal(format!("{context} failed (sqlite: {e})"))
}

fn is_memory(path: &Path) -> bool {
    path.as_os_str() == ":memory:"
}

fn open_connection(path: &Path, options: SqliteOptions, write: bool) -> Result<Connection> {
    let ctx = |what: &'static str| {
        move |e| {
            let err = classify(what, e);
            StoreError::Unavailable(format!("sqlite database {}: {err}", path.display()))
        }
    };
    let flags = if write {
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE
    } else {
        OpenFlags::SQLITE_OPEN_READ_ONLY
    } | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(path, flags).map_err(ctx("open"))?;
    conn.busy_timeout(std::time::Duration::from_millis(u64::from(
        options.busy_timeout_ms,
    )))
    .map_err(ctx("set busy timeout"))?;
    if write && !is_memory(path) {
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(ctx("enable WAL"))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Unavailable(format!(
                "sqlite database {}: expected WAL journal mode, got {mode}",
                path.display()
            )));
        }
    }
    let sync = match options.synchronous {
        Synchronous::Full => "FULL",
        Synchronous::Normal => "NORMAL",
    };
    conn.execute_batch(&format!(
        "PRAGMA synchronous = {sync}; PRAGMA foreign_keys = ON;"
    ))
    .map_err(ctx("set pragmas"))?;
    conn.set_prepared_statement_cache_capacity(64);
    Ok(conn)
}

fn migrate(conn: &mut Connection) -> Result<()> {
    let e = sqlite_err("migrate");
    conn.execute_batch(migrate::HISTORY_DDL).map_err(&e)?;
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(&e)?;
    let applied: Vec<(i64, String)> = {
        let mut stmt = tx
            .prepare("SELECT version, checksum FROM schema_migrations ORDER BY version")
            .map_err(&e)?;
        stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(&e)?
            .collect::<rusqlite::Result<_>>()
            .map_err(&e)?
    };
    for m in migrate::pending(migrate::SQLITE, &applied)? {
        tracing::info!("applying sqlite migration {:04}_{}", m.version, m.name);
        tx.execute_batch(m.sql).map_err(&e)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?1, ?2, ?3, ?4)",
            rusqlite::params![m.version, m.name, m.checksum(), now().to_string()],
        )
        .map_err(&e)?;
    }
    tx.commit().map_err(&e)
}

fn spawn_thread(
    name: String,
    conn: Connection,
    jobs: Arc<Mutex<mpsc::Receiver<Job>>>,
) -> Result<()> {
    std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            let mut conn = conn;
            loop {
                // the lock is held only while waiting for the next job
                let job = match jobs.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                match job {
                    Ok(job) => job(&mut conn),
                    Err(_) => return, // the store was dropped
                }
            }
        })
        .map(|_| ())
        .map_err(|e| StoreError::Unavailable(format!("cannot start a sqlite thread: {e}")))
}

/// The writer thread: runs jobs in order, committing consecutive writes in groups.
fn spawn_writer(
    conn: Connection,
    jobs: mpsc::Receiver<WriterJob>,
    commits: Arc<std::sync::atomic::AtomicU64>,
) -> Result<()> {
    std::thread::Builder::new()
        .name("sportz-sqlite-writer".into())
        .spawn(move || {
            let mut conn = conn;
            let mut next = None;
            loop {
                let job = match next.take() {
                    Some(j) => j,
                    None => match jobs.recv() {
                        Ok(j) => j,
                        Err(_) => return, // the store was dropped
                    },
                };
                match job {
                    WriterJob::Run(job) => job(&mut conn),
                    WriterJob::Write(first) => {
                        let mut group = vec![first];
                        while group.len() < MAX_GROUP {
                            match jobs.try_recv() {
                                Ok(WriterJob::Write(w)) => group.push(w),
                                Ok(other) => {
                                    next = Some(other); // runs after this group, in order
                                    break;
                                }
                                Err(_) => break,
                            }
                        }
                        commit_group(&mut conn, group);
                        commits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            }
        })
        .map(|_| ())
        .map_err(|e| StoreError::Unavailable(format!("cannot start a sqlite thread: {e}")))
}

/// One transaction for the group, a savepoint per write, one commit; every write learns the
/// commit's outcome. A write whose failure took the whole transaction with it (SQLite rolls back
/// by itself on a full disk or an I/O error) fails the rest of the group too.
fn commit_group(conn: &mut Connection, group: Vec<WriteJob>) {
    let tx = match conn.transaction_with_behavior(TransactionBehavior::Immediate) {
        Ok(tx) => tx,
        Err(e) => {
            let err = classify("begin a write", e);
            for job in group {
                job(None)(Err(err.clone()));
            }
            return;
        }
    };
    let mut finishers = Vec::with_capacity(group.len());
    let lost = || {
        StoreError::Unavailable(
            "sqlite rolled the write back (disk full or I/O error); nothing of it was kept"
                .to_owned(),
        )
    };
    for job in group {
        if tx.is_autocommit() {
            // an earlier write's failure took the transaction with it
            job(None)(Err(lost()));
        } else {
            finishers.push(job(Some(&tx)));
        }
    }
    let outcome = if tx.is_autocommit() {
        Err(lost())
    } else {
        tx.commit().map_err(sqlite_err("commit"))
    };
    for f in finishers {
        f(outcome.clone());
    }
}

/// Runs one write's body in a savepoint of the group's transaction: released when it succeeds,
/// rolled back (alone) when it fails or panics.
fn in_savepoint<R>(
    tx: &Transaction<'_>,
    context: &'static str,
    f: impl FnOnce(&Transaction<'_>) -> Result<R>,
) -> Result<R> {
    tx.execute_batch("SAVEPOINT sportz_write")
        .map_err(sqlite_err(context))?;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(tx)))
        .unwrap_or_else(|_| {
            Err(StoreError::Internal(format!(
                "{context}: a sqlite write panicked"
            )))
        })
        .and_then(|v| {
            tx.execute_batch("RELEASE sportz_write")
                .map_err(sqlite_err(context))
                .map(|()| v)
        });
    if r.is_err() && !tx.is_autocommit() {
        let _ = tx.execute_batch("ROLLBACK TO sportz_write; RELEASE sportz_write");
    }
    r
}

impl SqliteStore {
    /// Opens (creating if needed) the database file at `path` with the default options, and
    /// applies pending migrations. `:memory:` gives a private in-memory database (for tests;
    /// one connection, so no concurrent reads).
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the file cannot be opened or migrated.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self> {
        Self::open_with(path, SqliteOptions::default()).await
    }

    /// Opens with explicit options.
    ///
    /// # Errors
    /// [`StoreError::Unavailable`] when the file cannot be opened or migrated.
    pub async fn open_with(path: impl AsRef<Path>, options: SqliteOptions) -> Result<Self> {
        let path = path.as_ref().to_path_buf();
        let p = path.clone();
        let (writer_conn, reader_conns) = tokio::task::spawn_blocking(move || {
            let mut w = open_connection(&p, options, true)?;
            migrate(&mut w)?;
            // an in-memory database exists once per connection: everything goes to the writer
            let n = if is_memory(&p) {
                0
            } else {
                options.readers.max(1)
            };
            let readers = (0..n)
                .map(|_| open_connection(&p, options, false))
                .collect::<Result<Vec<_>>>()?;
            Ok::<_, StoreError>((w, readers))
        })
        .await
        .map_err(|e| {
            StoreError::Internal(format!("opening the sqlite database panicked: {e}"))
        })??;

        let (writer, wrx) = mpsc::channel::<WriterJob>();
        let commits = Arc::default();
        spawn_writer(writer_conn, wrx, Arc::clone(&commits))?;
        let readers = if reader_conns.is_empty() {
            None
        } else {
            let (readers, rrx) = mpsc::channel::<Job>();
            let rrx = Arc::new(Mutex::new(rrx));
            for (i, conn) in reader_conns.into_iter().enumerate() {
                spawn_thread(format!("sportz-sqlite-reader-{i}"), conn, Arc::clone(&rrx))?;
            }
            Some(readers)
        };
        Ok(Self {
            path,
            writer,
            commits,
            readers,
        })
    }

    /// Write groups committed (or attempted) so far: fewer than the writes when concurrent
    /// writes shared a commit.
    #[must_use]
    pub fn commits(&self) -> u64 {
        self.commits.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The database file.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }

    async fn run<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(conn)))
                .unwrap_or_else(|_| Err(StoreError::Internal("a sqlite call panicked".into())));
            let _ = tx.send(r);
        });
        let sent = match &self.readers {
            Some(readers) => readers.send(job).map_err(drop),
            None => self.writer.send(WriterJob::Run(job)).map_err(drop),
        };
        sent.map_err(|()| StoreError::Unavailable("the sqlite threads have stopped".into()))?;
        rx.await
            .map_err(|_| StoreError::Unavailable("the sqlite threads have stopped".into()))?
    }

    async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        self.run(move |c| f(c)).await
    }

    /// Runs `f` in the writer's next group transaction (its own savepoint) and answers once
    /// that group has committed.
    async fn write<R: Send + 'static>(
        &self,
        context: &'static str,
        f: impl FnOnce(&Transaction<'_>) -> Result<R> + Send + 'static,
    ) -> Result<R> {
        let (reply, rx) = tokio::sync::oneshot::channel();
        let job: WriteJob = Box::new(move |tx| {
            let body = tx.map(|tx| in_savepoint(tx, context, f));
            Box::new(move |commit: Result<()>| {
                let answer = match (body, commit) {
                    (Some(Err(e)), _) => Err(e), // its own failure, rolled back alone
                    (Some(Ok(v)), Ok(())) => Ok(v),
                    (_, Err(e)) => Err(e),
                    (None, Ok(())) => Err(StoreError::Internal(format!("{context}: not run"))),
                };
                let _ = reply.send(answer);
            })
        });
        self.writer
            .send(WriterJob::Write(job))
            .map_err(|_| StoreError::Unavailable("the sqlite threads have stopped".into()))?;
        rx.await
            .map_err(|_| StoreError::Unavailable("the sqlite threads have stopped".into()))?
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn engine(&self) -> Engine {
        Engine::Sqlite
    }

    async fn ping(&self) -> Result<()> {
        self.read(|c| {
            c.query_row("SELECT 1", [], |_| Ok(()))
                .map_err(sqlite_err("ping"))
        })
        .await
    }

    async fn create_match(&self, new: NewMatch) -> Result<Match> {
        let m = new_match_row(new)?;
        self.write("create match", move |tx| {
            insert_match(tx, &m)?;
            Ok(m)
        })
        .await
    }

    async fn get_match(&self, id: MatchId) -> Result<Match> {
        self.read(move |c| load_match(c, id)).await
    }

    async fn list_matches(&self, filter: MatchFilter) -> Result<Page<Match>> {
        let start = PageStart::of(Listing::Matches, &filter.page)?;
        self.read(move |c| {
            let sql = format!(
                "SELECT {MATCH_COLS} FROM matches \
                 WHERE (?1 IS NULL OR status = ?1) \
                 AND (?2 IS NULL OR ({}) = ?2) \
                 AND {} \
                 ORDER BY created_at DESC, id DESC LIMIT ?6",
                phase_sql("?3"),
                start.after_clause("created_at, id", "<", "?4", "?5")
            );
            let rows = query(
                c,
                "list matches",
                &sql,
                rusqlite::params![
                    filter.status.map(MatchStatus::as_str),
                    filter.phase.map(|(p, _)| phase_name(p)),
                    filter.phase.map(|(_, at)| to_us(at)),
                    start.key(),
                    start.id(),
                    start.fetch(),
                ],
                read_match,
            )?;
            Ok(match_page(rows, start.limit))
        })
        .await
    }

    async fn update_match(&self, id: MatchId, update: MatchUpdate) -> Result<Match> {
        self.write("update match", move |tx| {
            modify_match(tx, id, |m, at| update.apply(m, at))
        })
        .await
    }

    async fn delete_match(&self, id: MatchId) -> Result<()> {
        self.write("delete match", move |tx| {
            check_deletable(&load_match(tx, id)?)?;
            tx.execute("DELETE FROM matches WHERE id = ?1", [id.to_string()])
                .map_err(sqlite_err("delete match"))?;
            Ok(())
        })
        .await
    }

    async fn update_score(&self, id: MatchId, home_score: u32, away_score: u32) -> Result<Match> {
        self.write("update score", move |tx| {
            modify_match(tx, id, |m, at| {
                m.home_score = home_score;
                m.away_score = away_score;
                m.updated_at = at;
                Ok(())
            })
        })
        .await
    }

    async fn get_calibration(&self, id: MatchId) -> Result<Vec<PointPair>> {
        Ok(self.get_match(id).await?.calibration)
    }

    async fn set_calibration(&self, id: MatchId, pairs: Vec<PointPair>) -> Result<Match> {
        self.write("set calibration", move |tx| {
            modify_match(tx, id, |m, at| {
                m.calibration = pairs;
                m.updated_at = at;
                Ok(())
            })
        })
        .await
    }

    async fn add_commentary(&self, new: NewCommentary) -> Result<Commentary> {
        new.validate()?;
        self.write("add commentary", move |tx| {
            if !match_exists(tx, new.match_id)? {
                return Err(StoreError::not_found("match", new.match_id));
            }
            let exists = tx
                .prepare_cached("SELECT 1 FROM commentary WHERE match_id = ?1 AND sequence = ?2")
                .and_then(|mut s| s.exists(rusqlite::params![new.match_id.to_string(), new.sequence]))
                .map_err(sqlite_err("add commentary"))?;
            if exists {
                return Err(StoreError::conflict(
                    "commentary",
                    format!(
                        "match `{}` already has commentary with sequence {}",
                        new.match_id, new.sequence
                    ),
                ));
            }
            let metadata = new.metadata.as_ref().map(json_text).transpose()?;
            query_one(
                tx,
                "add commentary",
                &format!(
                    "INSERT INTO commentary (match_id, minute, sequence, period, event_type, actor, \
                     team, message, metadata, tags, created_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) RETURNING {COMMENTARY_COLS}"
                ),
                rusqlite::params![
                    new.match_id.to_string(),
                    new.minute,
                    new.sequence,
                    new.period,
                    new.event_type,
                    new.actor,
                    new.team,
                    new.message,
                    metadata,
                    json_text(&new.tags)?,
                    to_us(now()),
                ],
                read_commentary,
            )?
            .ok_or_else(|| StoreError::Internal("insert returned no commentary row".into()))
        })
        .await
    }

    async fn list_commentary(
        &self,
        match_id: MatchId,
        page: PageRequest,
    ) -> Result<Page<Commentary>> {
        let start = PageStart::of(Listing::Commentary, &page)?;
        let after_id = start.row_id()?;
        self.read(move |c| {
            let rows = query(
                c,
                "list commentary",
                &format!(
                    "SELECT {COMMENTARY_COLS} FROM commentary WHERE match_id = ?1 \
                     AND {} ORDER BY created_at DESC, id DESC LIMIT ?4",
                    start.after_clause("created_at, id", "<", "?2", "?3")
                ),
                rusqlite::params![match_id.to_string(), start.key(), after_id, start.fetch()],
                read_commentary,
            )?;
            if rows.is_empty() && !match_exists(c, match_id)? {
                return Err(StoreError::not_found("match", match_id));
            }
            Ok(commentary_page(rows, start.limit))
        })
        .await
    }

    async fn create_session(
        &self,
        match_id: MatchId,
        session_id: SessionId,
        status_message: Option<String>,
    ) -> Result<Session> {
        self.write("create session", move |tx| {
            let mut m = load_match(tx, match_id)?;
            let at = now();
            let session = new_session_row(&m, session_id, at)?;
            let config = json_text(&session.config)?;
            if let Some(old) = m.current_session_id {
                let mut old = load_session(tx, old)?;
                if supersede(&mut old, session_id, at) {
                    save_session(tx, &old)?;
                }
            }
            tx.prepare_cached(&format!(
                "INSERT INTO processing_sessions ({SESSION_COLS}) \
                 VALUES (?1, ?2, NULL, ?3, NULL, ?4, 0, NULL, NULL, NULL, ?5, NULL, ?5, 0)"
            ))
            .and_then(|mut s| {
                s.execute(rusqlite::params![
                    session.id.to_string(),
                    match_id.to_string(),
                    session.status.as_str(),
                    config,
                    to_us(at),
                ])
            })
            .map_err(sqlite_err("create session"))?;
            m.current_session_id = Some(session_id);
            m.status = MatchStatus::Starting;
            m.status_message = status_message;
            m.updated_at = at;
            save_match(tx, &m)?;
            Ok(session)
        })
        .await
    }

    async fn apply_session_status(
        &self,
        update: SessionStatusUpdate,
        desired: Option<DesiredState>,
    ) -> Result<StatusOutcome> {
        self.write("apply session status", move |tx| {
            let mut session = load_session(tx, update.session_id)?;
            let mut m = load_match(tx, session.match_id)?;
            let decision = decide(&mut session, &mut m, update, desired, now());
            save_session(tx, &session)?;
            if matches!(decision, StatusDecision::Apply(_)) {
                save_match(tx, &m)?;
            }
            Ok(StatusOutcome {
                decision,
                match_row: m,
            })
        })
        .await
    }

    async fn update_session_stats(
        &self,
        session_id: SessionId,
        stats: SessionStats,
    ) -> Result<Session> {
        self.write("update session stats", move |tx| {
            let mut s = load_session(tx, session_id)?;
            s.frames_processed = stats.frames_processed;
            s.avg_fps = stats.avg_fps;
            s.avg_latency_ms = stats.avg_latency_ms;
            s.updated_at = now();
            save_session(tx, &s)?;
            Ok(s)
        })
        .await
    }

    async fn get_session(&self, id: SessionId) -> Result<Session> {
        self.read(move |c| load_session(c, id)).await
    }

    async fn list_sessions(&self, match_id: MatchId) -> Result<Vec<Session>> {
        self.read(move |c| {
            let rows = query(
                c,
                "list sessions",
                &format!(
                    "SELECT {SESSION_COLS} FROM processing_sessions WHERE match_id = ?1 \
                     ORDER BY started_at DESC, id DESC"
                ),
                [match_id.to_string()],
                read_session,
            )?;
            if rows.is_empty() && !match_exists(c, match_id)? {
                return Err(StoreError::not_found("match", match_id));
            }
            Ok(rows)
        })
        .await
    }

    async fn insert_event(&self, event: NewEvent) -> Result<bool> {
        self.write("insert event", move |tx| {
            Ok(insert_events_tx(tx, std::slice::from_ref(&event))? == 1)
        })
        .await
    }

    async fn insert_events(&self, events: Vec<NewEvent>) -> Result<usize> {
        self.write("insert events", move |tx| insert_events_tx(tx, &events))
            .await
    }

    async fn list_events(&self, filter: EventFilter) -> Result<Page<StoredEvent>> {
        let start = PageStart::of(Listing::Events, &filter.page)?;
        let after_id = start.row_id()?;
        self.read(move |c| {
            let rows = query(
                c,
                "list events",
                &format!(
                    "SELECT {EVENT_COLS} FROM events WHERE match_id = ?1 \
                     AND (?2 IS NULL OR kind = ?2) AND (?3 IS NULL OR session_id = ?3) \
                     AND {} ORDER BY frame_number, id LIMIT ?6",
                    start.after_clause("frame_number, id", ">", "?4", "?5")
                ),
                rusqlite::params![
                    filter.match_id.to_string(),
                    filter.kind.map(|k| k.as_str()),
                    filter.session_id.map(|s| s.to_string()),
                    start.key(),
                    after_id,
                    start.fetch(),
                ],
                read_event,
            )?;
            if rows.is_empty() && !match_exists(c, filter.match_id)? {
                return Err(StoreError::not_found("match", filter.match_id));
            }
            Ok(event_page(rows, start.limit))
        })
        .await
    }

    async fn recent_events(&self, match_id: MatchId, limit: u32) -> Result<Vec<StoredEvent>> {
        let limit = PageRequest::first(limit).limit()?;
        self.read(move |c| {
            let mut rows = query(
                c,
                "recent events",
                &format!(
                    "SELECT {EVENT_COLS} FROM events WHERE match_id = ?1 \
                     AND (session_id IS NULL OR session_id = \
                          (SELECT current_session_id FROM matches WHERE id = ?1)) \
                     ORDER BY frame_number DESC, id DESC LIMIT ?2"
                ),
                rusqlite::params![match_id.to_string(), i64::from(limit)],
                read_event,
            )?;
            if rows.is_empty() && !match_exists(c, match_id)? {
                return Err(StoreError::not_found("match", match_id));
            }
            rows.reverse();
            Ok(rows)
        })
        .await
    }

    async fn events_after(
        &self,
        match_id: MatchId,
        after: EventId,
        limit: u32,
    ) -> Result<Option<Vec<StoredEvent>>> {
        let limit = PageRequest::first(limit).limit()?;
        self.read(move |c| {
            let (m, e) = (match_id.to_string(), after.to_string());
            let row: Option<i64> = c
                .prepare_cached("SELECT id FROM events WHERE match_id = ?1 AND event_id = ?2")
                .and_then(|mut st| {
                    st.query_row(rusqlite::params![m, e], |r| r.get(0))
                        .map(Some)
                        .or_else(|err| match err {
                            rusqlite::Error::QueryReturnedNoRows => Ok(None),
                            other => Err(other),
                        })
                })
                .map_err(sqlite_err("events after"))?;
            let Some(row) = row else {
                if !match_exists(c, match_id)? {
                    return Err(StoreError::not_found("match", match_id));
                }
                return Ok(None);
            };
            query(
                c,
                "events after",
                &format!(
                    "SELECT {EVENT_COLS} FROM events WHERE match_id = ?1 AND id > ?2 \
                     ORDER BY id LIMIT ?3"
                ),
                rusqlite::params![m, row, i64::from(limit)],
                read_event,
            )
            .map(Some)
        })
        .await
    }

    async fn create_token(&self, role: TokenRole, label: Option<String>) -> Result<NewToken> {
        let secret = token::generate()?;
        let hash = token::sha256_hex(&secret);
        self.write("create token", move |tx| {
            let token = query_one(
                tx,
                "create token",
                &format!(
                    "INSERT INTO api_tokens (token_hash, role, label, created_at) \
                     VALUES (?1, ?2, ?3, ?4) RETURNING {TOKEN_COLS}"
                ),
                rusqlite::params![hash, role.as_str(), label, to_us(now())],
                read_token,
            )?
            .ok_or_else(|| StoreError::Internal("insert returned no token row".into()))?;
            Ok(NewToken { token, secret })
        })
        .await
    }

    async fn verify_token(&self, secret: &str) -> Result<Option<ApiToken>> {
        let hash = token::sha256_hex(secret);
        let h = hash.clone();
        let found = self
            .read(move |c| {
                query_one(
                    c,
                    "verify token",
                    &format!("SELECT {TOKEN_COLS} FROM api_tokens WHERE token_hash = ?1"),
                    [h],
                    read_token,
                )
            })
            .await?;
        let Some(mut t) = found else { return Ok(None) };
        let at = now();
        if token_stale(&t, at) {
            // recording use at most once a minute keeps verification a read
            self.write("record token use", move |tx| {
                tx.execute(
                    "UPDATE api_tokens SET last_used_at = ?2 WHERE token_hash = ?1",
                    rusqlite::params![hash, to_us(at)],
                )
                .map_err(sqlite_err("record token use"))
            })
            .await?;
            t.last_used_at = Some(at);
        }
        Ok(Some(t))
    }

    async fn list_tokens(&self) -> Result<Vec<ApiToken>> {
        self.read(|c| {
            query(
                c,
                "list tokens",
                &format!("SELECT {TOKEN_COLS} FROM api_tokens ORDER BY id"),
                [],
                read_token,
            )
        })
        .await
    }

    async fn revoke_token(&self, id: i64) -> Result<()> {
        self.write("revoke token", move |tx| {
            let n = tx
                .execute("DELETE FROM api_tokens WHERE id = ?1", [id])
                .map_err(sqlite_err("revoke token"))?;
            if n == 0 {
                return Err(StoreError::not_found("token", id));
            }
            Ok(())
        })
        .await
    }

    async fn get_setting(&self, key: &str) -> Result<Option<serde_json::Value>> {
        let key = key.to_owned();
        self.read(move |c| {
            query_one(
                c,
                "read setting",
                "SELECT value FROM settings WHERE key = ?1",
                [key],
                |r| json_col(r, 0),
            )
        })
        .await
    }

    async fn set_setting(&self, key: &str, value: serde_json::Value) -> Result<()> {
        if key.trim().is_empty() {
            return Err(StoreError::Invalid("setting key must not be empty".into()));
        }
        let key = key.to_owned();
        self.write("set setting", move |tx| {
            tx.execute(
                "INSERT INTO settings (key, value, updated_at) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                rusqlite::params![key, value.to_string(), to_us(now())],
            )
            .map_err(sqlite_err("set setting"))?;
            Ok(())
        })
        .await
    }

    async fn list_settings(&self) -> Result<Vec<(String, serde_json::Value)>> {
        self.read(|c| {
            query(
                c,
                "list settings",
                "SELECT key, value FROM settings ORDER BY key",
                [],
                |r| Ok((col(r, 0)?, json_col(r, 1)?)),
            )
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_in_memory_database_serves_reads_from_its_one_connection() {
        let store = SqliteStore::open(":memory:").await.unwrap();
        let m = store
            .create_match(NewMatch::new("m", "h", "a"))
            .await
            .unwrap();
        assert_eq!(store.get_match(m.id).await.unwrap(), m);
        assert_eq!(store.engine(), Engine::Sqlite);
    }

    #[tokio::test]
    async fn an_edited_migration_is_refused_at_open() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.db");
        drop(SqliteStore::open(&path).await.unwrap());
        Connection::open(&path)
            .unwrap()
            .execute("UPDATE schema_migrations SET checksum = 'edited'", [])
            .unwrap();
        let err = SqliteStore::open(&path).await.unwrap_err();
        assert!(err.to_string().contains("must not be edited"), "{err}");
    }

    fn check_err(code: std::ffi::c_int, msg: &str, want: &str) {
        let e = rusqlite::Error::SqliteFailure(rusqlite::ffi::Error::new(code), Some(msg.into()));
        assert_eq!(classify("insert x", e).to_string(), want, "{code} {msg}");
    }

    #[test]
    fn sqlite_errors_are_classified() {
        use rusqlite::ffi;
        check_err(
            ffi::SQLITE_CONSTRAINT_UNIQUE,
            "UNIQUE constraint failed: commentary.match_id, commentary.sequence",
            "commentary conflict: insert x: commentary already exists",
        );
        check_err(
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY,
            "FOREIGN KEY constraint failed",
            "row `referenced by insert x` not found",
        );
        check_err(
            ffi::SQLITE_CONSTRAINT_CHECK,
            "CHECK constraint failed: home_score >= 0",
            "invalid input: insert x: value out of range (CHECK constraint failed: home_score >= 0)",
        );
        check_err(
            ffi::SQLITE_BUSY,
            "database is locked",
            "store unavailable: insert x: the database is busy",
        );
    }
}
