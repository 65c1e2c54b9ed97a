//! Recordings: every session's status, frame, metrics and error messages, kept as they are
//! published, so a session can be exported (and watched again) after the fact; its events are
//! in the store, and an export joins the two.
//!
//! The API records what it receives on the match channels (`match:{id}:status`,
//! `:detections`, `:metrics`), so a session is recorded wherever its worker runs (and by every
//! API instance: each keeps its own copy). These are live channels: what is published while
//! the API's bus connection is down is not recorded (frames of an outage are gone anyway).
//! One file per session in the recordings directory (`<data dir>/recordings`, see [`file`]),
//! flushed once a second: a crash loses at most the last second. Retention: files older than
//! [`RecordingSettings::keep_days`] go, then the oldest until the directory is under
//! [`RecordingSettings::max_bytes`]; a file still being written is never removed. A write that
//! fails (a full disk) stops that session's recording with an error in the log and the
//! `recording_errors` figure in `/health` and `/metrics`; the session itself goes on.
//!
//! - `file`: the on-disk format, its writer and reader.
//! - `recorder`: the task that subscribes and writes.
//! - `export`: a recording as JSONL, events CSV, CDF, SoccerNet GSR or MOTChallenge.
//! - `replay`: a recording played back through `/ws/matches/{id}?replay=<session>`.

pub mod export;
pub mod file;
pub mod recorder;
pub mod replay;

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use sportz_contract::{MatchId, SessionId};

/// Where and for how long sessions are recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordingSettings {
    pub dir: PathBuf,
    /// Recordings older than this many days are removed (0: kept until `max_bytes` needs room).
    pub keep_days: u32,
    /// The most the recordings may take on disk; the oldest go first beyond it.
    pub max_bytes: u64,
}

impl RecordingSettings {
    /// 30 days, 20 GiB at most.
    #[must_use]
    pub const fn new(dir: PathBuf) -> Self {
        Self {
            dir,
            keep_days: 30,
            max_bytes: 20 << 30,
        }
    }

    /// The file of a session's recording.
    #[must_use]
    pub fn path(&self, m: MatchId, s: SessionId) -> PathBuf {
        self.dir.join(file::file_name(m, s))
    }
}

/// What the recordings take, for `/health` and `/metrics`.
#[derive(Debug, Default)]
pub struct RecordingUsage {
    pub files: AtomicU64,
    pub bytes: AtomicU64,
    /// Sessions whose recording stopped on a write error.
    pub errors: AtomicU64,
    /// The last write error, said in `/health`.
    pub last_error: Mutex<Option<String>>,
}

impl RecordingUsage {
    fn set(&self, files: u64, bytes: u64) {
        self.files.store(files, Ordering::Relaxed);
        self.bytes.store(bytes, Ordering::Relaxed);
    }
}

/// One recording on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub match_id: MatchId,
    pub session_id: SessionId,
    pub path: PathBuf,
    pub bytes: u64,
    pub modified: SystemTime,
}

/// The recordings in `dir`, oldest session first.
///
/// # Errors
/// The directory exists but cannot be read.
pub fn list(dir: &Path) -> std::io::Result<Vec<Recorded>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        let Some((match_id, session_id)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(file::parse_name)
        else {
            continue;
        };
        let Ok(meta) = e.metadata() else { continue };
        out.push(Recorded {
            match_id,
            session_id,
            path,
            bytes: meta.len(),
            modified: meta.modified().unwrap_or(SystemTime::UNIX_EPOCH),
        });
    }
    out.sort_by_key(|r| r.session_id);
    Ok(out)
}

/// Applies the retention rules to `dir` at `now`, never touching the sessions in `busy`;
/// returns what was removed and updates `usage` with what is left.
///
/// # Errors
/// The directory cannot be read.
pub fn prune(
    settings: &RecordingSettings,
    busy: &std::collections::HashSet<SessionId>,
    now: SystemTime,
    usage: &RecordingUsage,
) -> std::io::Result<Vec<Recorded>> {
    let mut all = list(&settings.dir)?;
    // oldest first by last write
    all.sort_by_key(|r| r.modified);
    let max_age = Duration::from_secs(u64::from(settings.keep_days) * 86_400);
    let mut total: u64 = all.iter().map(|r| r.bytes).sum();
    let mut removed = Vec::new();
    let mut kept = Vec::new();
    for r in all {
        let old =
            settings.keep_days > 0 && now.duration_since(r.modified).unwrap_or_default() > max_age;
        let over = total > settings.max_bytes;
        if !busy.contains(&r.session_id) && (old || over) {
            match std::fs::remove_file(&r.path) {
                Ok(()) => {
                    total -= r.bytes;
                    removed.push(r);
                }
                Err(e) => {
                    tracing::warn!(file = %r.path.display(), "cannot remove an expired recording: {e}");
                    kept.push(r);
                }
            }
        } else {
            kept.push(r);
        }
    }
    usage.set(kept.len() as u64, kept.iter().map(|r| r.bytes).sum());
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, m: MatchId, s: SessionId, bytes: usize, age_days: u64) -> PathBuf {
        let p = dir.join(file::file_name(m, s));
        std::fs::write(&p, vec![0u8; bytes]).unwrap();
        let t = SystemTime::now() - Duration::from_secs(age_days * 86_400);
        std::fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
        p
    }

    #[test]
    fn old_files_go_then_the_oldest_until_under_the_cap_but_never_a_busy_one() {
        let dir = tempfile::tempdir().unwrap();
        let m = MatchId::generate();
        let ids: Vec<SessionId> = (0..5).map(|_| SessionId::generate()).collect();
        let ancient = write(dir.path(), m, ids[0], 100, 40); // older than 30 days
        let busy_old = write(dir.path(), m, ids[1], 100, 40); // old, but still being written
        let older = write(dir.path(), m, ids[2], 600, 3);
        let newer = write(dir.path(), m, ids[3], 600, 1);
        let newest = write(dir.path(), m, ids[4], 100, 0);
        std::fs::write(dir.path().join("unrelated.txt"), "x").unwrap();
        let settings = RecordingSettings {
            dir: dir.path().to_path_buf(),
            keep_days: 30,
            max_bytes: 1_000,
        };
        let usage = RecordingUsage::default();
        let busy = std::collections::HashSet::from([ids[1]]);
        let removed = prune(&settings, &busy, SystemTime::now(), &usage).unwrap();
        let gone: Vec<&PathBuf> = removed.iter().map(|r| &r.path).collect();
        // the 40-day-old one for its age, then the oldest of the rest for room (1,400 → 800)
        assert_eq!(gone, [&ancient, &older]);
        for p in [&busy_old, &newer, &newest] {
            assert!(p.exists(), "{} kept", p.display());
        }
        assert_eq!(usage.files.load(Ordering::Relaxed), 3);
        assert_eq!(usage.bytes.load(Ordering::Relaxed), 800);
        assert_eq!(list(dir.path()).unwrap().len(), 3);
        assert!(list(&dir.path().join("missing")).unwrap().is_empty());
    }
}
