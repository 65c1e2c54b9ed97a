//! Real services and media for tests, on free loopback ports, stopped when dropped.
//!
//! - [`RedisServer`]: a private `redis-server` (tests that stop and restart Redis need their own).
//! - [`redis_url`]: `REDIS_URL` when set (the README test command sets it), else a private server.
//! - [`PgDatabase`]: a fresh, empty Postgres database on `DATABASE_URL`'s server (or on a private
//!   server started with `initdb`), dropped afterwards.
//! - [`assets`]: the shared test material (`SPORTZ_ASSETS`), or `None` with the skip reason printed.
//! - [`media`]: test videos made and checked with ffmpeg/ffprobe ([`TestClip`], [`video_facts`]).

pub mod media;

pub use media::{TestClip, VideoFacts, cut_clip, frame_rgb, video_facts};

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A free TCP port on 127.0.0.1 (bound and released; good enough for a test server).
///
/// # Panics
/// When no port can be bound.
#[must_use]
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("bind a free port")
        .port()
}

/// Whether something accepts TCP connections on `127.0.0.1:port` within `within`.
#[must_use]
pub fn listening(port: u16, within: Duration) -> bool {
    let deadline = Instant::now() + within;
    loop {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn wait_for_port(port: u16, what: &str, log: &Path) {
    if !listening(port, Duration::from_secs(20)) {
        let log = std::fs::read_to_string(log).unwrap_or_default();
        panic!("{what} did not listen on port {port} within 20 s; log:\n{log}");
    }
}

/// xorshift64*: a small deterministic generator for seeded tests (fuzzing, fault moments), so
/// a failing run can be repeated from its printed seed.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed` (any value; distinct seeds give distinct sequences).
    #[must_use]
    pub const fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(2) | 1)
    }

    pub const fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `v` (not empty).
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A small tmpfs mounted for a full-disk test, unmounted when dropped (needs root: the error
/// says why it could not be mounted, for [`skipped`]).
#[derive(Debug)]
pub struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts one of `size` (e.g. `512k`) at `at` (created).
    ///
    /// # Errors
    /// `mount`'s message when it cannot (not root, no tmpfs).
    pub fn mount(at: &Path, size: &str) -> Result<Self, String> {
        std::fs::create_dir_all(at).map_err(|e| e.to_string())?;
        let out = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .output()
            .map_err(|e| e.to_string())?;
        if out.status.success() {
            Ok(Self(at.to_path_buf()))
        } else {
            Err(String::from_utf8_lossy(&out.stderr).trim().to_owned())
        }
    }

    #[must_use]
    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Gives it another size (more room, for the recovery half of a test).
    ///
    /// # Panics
    /// When the remount fails.
    pub fn resize(&self, size: &str) {
        let out = Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .output()
            .expect("run mount");
        assert!(out.status.success(), "remount: {out:?}");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).output();
    }
}

/// A private `redis-server` on a free port, killed when dropped.
#[derive(Debug)]
pub struct RedisServer {
    port: u16,
    dir: tempfile::TempDir,
    child: Option<Child>,
    /// With an append-only file: a restart keeps what was written (see [`Self::start_persistent`]).
    persistent: bool,
}

impl RedisServer {
    /// Starts one and waits until it accepts connections.
    ///
    /// # Panics
    /// When `redis-server` is not installed (run `scripts/setup`) or does not start.
    #[must_use]
    pub fn start() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let mut server = Self {
            port: free_port(),
            dir,
            child: None,
            persistent: false,
        };
        server.spawn();
        server
    }

    /// One with an append-only file (`appendfsync everysec`), as a production Redis is run:
    /// Redis writes each command to the file before it answers, so a killed server restarted
    /// on the same directory has every write it acknowledged.
    ///
    /// # Panics
    /// As [`Self::start`].
    #[must_use]
    pub fn start_persistent() -> Self {
        let mut server = Self {
            port: free_port(),
            dir: tempfile::tempdir().expect("temp dir"),
            child: None,
            persistent: true,
        };
        server.spawn();
        server
    }

    fn spawn(&mut self) {
        let log = self.dir.path().join("redis.log");
        let child = Command::new("redis-server")
            .args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", ""])
            .args(if self.persistent {
                ["--appendonly", "yes", "--appendfsync", "everysec"]
            } else {
                ["--appendonly", "no", "--appendfsync", "no"]
            })
            .arg("--dir")
            .arg(self.dir.path())
            .arg("--logfile")
            .arg(&log)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server is installed (scripts/setup installs it)");
        self.child = Some(child);
        wait_for_port(self.port, "redis-server", &log);
    }

    /// `redis://127.0.0.1:<port>`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    #[must_use]
    pub const fn port(&self) -> u16 {
        self.port
    }

    /// Kills the server (SIGKILL: as abrupt as a crash).
    pub fn kill(&mut self) {
        if let Some(mut c) = self.child.take() {
            let _ = c.kill();
            let _ = c.wait();
        }
    }

    /// Starts it again on the same port (empty unless it is persistent).
    pub fn restart(&mut self) {
        self.kill();
        self.spawn();
    }

    #[must_use]
    pub const fn is_running(&self) -> bool {
        self.child.is_some()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A Redis URL for a test: `REDIS_URL` when set, else a private server (kept alive by the guard).
#[must_use]
pub fn redis_url() -> (String, Option<RedisServer>) {
    match std::env::var("REDIS_URL") {
        Ok(url) if !url.is_empty() => (url, None),
        _ => {
            let s = RedisServer::start();
            (s.url(), Some(s))
        }
    }
}

fn pg_bin_dir() -> Option<PathBuf> {
    if let Ok(d) = std::env::var("SPORTZ_PG_BIN") {
        return Some(PathBuf::from(d));
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|p| p.join("pg_ctl").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// Runs a command as the `postgres` user when we are root (initdb refuses root).
fn pg_command(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

/// A private PostgreSQL server (initdb in a temp dir), stopped when dropped.
#[derive(Debug)]
pub struct PgServer {
    port: u16,
    data: PathBuf,
    bin: PathBuf,
    _dir: tempfile::TempDir,
}

impl PgServer {
    /// Starts one with trust auth for `postgres` on 127.0.0.1.
    ///
    /// # Panics
    /// When the PostgreSQL server binaries are missing or it does not start.
    #[must_use]
    pub fn start() -> Self {
        let bin = pg_bin_dir().expect("PostgreSQL server binaries (scripts/setup installs them)");
        let dir = tempfile::Builder::new()
            .prefix("sportz-pg")
            .tempdir()
            .expect("temp dir");
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("data dir");
        if is_root() {
            let _ = Command::new("chmod").arg("755").arg(dir.path()).status();
            let _ = Command::new("chown")
                .arg("postgres:postgres")
                .arg(&data)
                .status();
        }
        let out = pg_command(&bin.join("initdb"))
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
            ])
            .output()
            .expect("run initdb");
        assert!(out.status.success(), "initdb failed: {out:?}");
        let server = Self {
            port: free_port(),
            data,
            bin,
            _dir: dir,
        };
        server.run_pg_ctl_start();
        server
    }

    fn run_pg_ctl_start(&self) {
        let opts = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
            self.port,
            self.data.display()
        );
        let out = pg_command(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-o", &opts, "-l"])
            .arg(self.data.join("log"))
            .args(["-w", "start"])
            .output()
            .expect("run pg_ctl");
        assert!(out.status.success(), "pg_ctl start failed: {out:?}");
    }

    /// Stops the server at once (`pg_ctl -m immediate`: like a crash), keeping its data.
    pub fn stop(&self) {
        let _ = pg_command(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }

    /// Starts it again on the same port and data.
    ///
    /// # Panics
    /// When it does not start.
    pub fn restart(&self) {
        self.run_pg_ctl_start();
    }

    /// `postgres://postgres@127.0.0.1:<port>/postgres`.
    #[must_use]
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = pg_command(&self.bin.join("pg_ctl"))
            .arg("-D")
            .arg(&self.data)
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// A fresh empty database for one test, dropped with the guard.
#[derive(Debug)]
pub struct PgDatabase {
    url: String,
    admin_url: String,
    name: String,
    _server: Option<PgServer>,
}

impl PgDatabase {
    /// A new database on `DATABASE_URL`'s server, or on a private server when it is unset.
    ///
    /// # Panics
    /// When the server cannot be reached or `psql` is missing.
    #[must_use]
    pub fn create() -> Self {
        let (admin_url, server) = match std::env::var("DATABASE_URL") {
            Ok(url) if !url.is_empty() => (url, None),
            _ => {
                let s = PgServer::start();
                (s.url(), Some(s))
            }
        };
        let name = format!(
            "sportz_test_{}_{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or_default()
        );
        psql(&admin_url, &format!("CREATE DATABASE {name}"));
        let url = replace_db(&admin_url, &name);
        Self {
            url,
            admin_url,
            name,
            _server: server,
        }
    }

    /// The URL of the fresh database.
    #[must_use]
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Drop for PgDatabase {
    fn drop(&mut self) {
        let _ = Command::new("psql")
            .arg(&self.admin_url)
            .args(["-q", "-c"])
            .arg(format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            ))
            .output();
    }
}

fn psql(url: &str, sql: &str) {
    let out = Command::new("psql")
        .arg(url)
        .args(["-q", "-v", "ON_ERROR_STOP=1", "-c", sql])
        .output()
        .expect("psql is installed (scripts/setup installs postgresql)");
    assert!(
        out.status.success(),
        "psql `{sql}` on {url} failed: {out:?}"
    );
}

fn replace_db(url: &str, db: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let cut = base.rfind('/').filter(|&i| i > "postgres://".len());
    let mut out = match cut {
        Some(i) => format!("{}/{db}", &base[..i]),
        None => format!("{base}/{db}"),
    };
    if let Some(q) = query {
        out.push('?');
        out.push_str(q);
    }
    out
}

/// Says that `test` cannot run here and why: on stderr (which the test harness shows only with
/// `--nocapture`) and as a line appended to the file `SPORTZ_SKIP_LOG` names, which
/// `scripts/test` prints and counts at the end, so a skip is never silent.
pub fn skipped(test: &str, reason: &str) {
    let line = format!("SKIPPED {test}: {reason}");
    eprintln!("{line}");
    if let Some(log) = std::env::var_os("SPORTZ_SKIP_LOG") {
        use std::io::Write as _;
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{line}");
        }
    }
}

/// The shared test material when `SPORTZ_ASSETS` points at it. Otherwise says the calling test
/// is skipped ([`skipped`]) and returns `None`.
#[must_use]
pub fn assets(test: &str) -> Option<PathBuf> {
    match std::env::var_os("SPORTZ_ASSETS").map(PathBuf::from) {
        Some(p) if p.is_dir() => Some(p),
        Some(p) => {
            skipped(
                test,
                &format!("SPORTZ_ASSETS={} is not a directory", p.display()),
            );
            None
        }
        None => {
            skipped(test, "SPORTZ_ASSETS is not set (point it at shared/assets)");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_names_replace_the_path() {
        let cases = [
            ("postgres://u@h:5/postgres", "postgres://u@h:5/x"),
            (
                "postgres://u@h:5/postgres?sslmode=disable",
                "postgres://u@h:5/x?sslmode=disable",
            ),
            ("postgres://u@h:5", "postgres://u@h:5/x"),
        ];
        for (input, want) in cases {
            assert_eq!(replace_db(input, "x"), want, "{input}");
        }
    }

    #[test]
    fn private_redis_starts_stops_and_restarts() {
        let mut r = RedisServer::start();
        assert!(std::net::TcpStream::connect(("127.0.0.1", r.port())).is_ok());
        r.kill();
        assert!(std::net::TcpStream::connect(("127.0.0.1", r.port())).is_err());
        r.restart();
        assert!(std::net::TcpStream::connect(("127.0.0.1", r.port())).is_ok());
    }

    #[test]
    fn fresh_postgres_database_accepts_queries() {
        let db = PgDatabase::create();
        psql(db.url(), "CREATE TABLE t (x int); INSERT INTO t VALUES (1)");
    }
}
