//! The worker's own record of what each session published: one file per session
//! (`<dir>/<match>.<session>.ids`), the id of each event the bus took, a line each, appended
//! right after the bus took it — by the session's publisher, or by the spool replay of a later
//! start. Its line count is the worker's count of the session's published events, kept where a
//! crash does not take it (a process killed between the bus taking an event and the append can
//! leave the store one batch ahead of the file, never behind). The worker does not read these
//! files: they are for operators and the chaos suite (`tests/tests/chaos.rs`), which compares
//! them with the events in the database.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sportz_contract::{EventId, MatchId, SessionId};

/// The ledger file of one session.
#[derive(Debug)]
pub(crate) struct Ledger {
    path: PathBuf,
    /// A write failed (logged once).
    failed: bool,
}

impl Ledger {
    /// The ledger of a session in `dir` (created when first written; appended to when there).
    pub(crate) fn new(dir: &Path, match_id: MatchId, session_id: SessionId) -> Self {
        Self {
            path: dir.join(format!("{match_id}.{session_id}.ids")),
            failed: false,
        }
    }

    /// Records events the bus took.
    pub(crate) fn published(&mut self, ids: &[EventId]) {
        if ids.is_empty() {
            return;
        }
        match self.append(ids) {
            Ok(()) => self.failed = false,
            Err(e) if !self.failed => {
                self.failed = true;
                tracing::error!(file = %self.path.display(), "cannot write the published-events ledger: {e}");
            }
            Err(_) => {}
        }
    }

    fn append(&self, ids: &[EventId]) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut text = String::new();
        for id in ids {
            text.push_str(&id.to_string());
            text.push('\n');
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?
            .write_all(text.as_bytes())
    }
}

/// One session's ledger, read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LedgerEntry {
    pub match_id: MatchId,
    pub session_id: SessionId,
    /// The ids of the events the bus took, in order (a line that does not parse, e.g. torn by a
    /// crash, is left out).
    pub published: Vec<EventId>,
}

/// Every session's ledger in `dir`, by session id.
///
/// # Errors
/// When the directory exists but cannot be read.
pub fn entries(dir: &Path) -> std::io::Result<Vec<LedgerEntry>> {
    let list = match std::fs::read_dir(dir) {
        Ok(l) => l,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for path in list.filter_map(Result::ok).map(|e| e.path()) {
        let Some((m, s)) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".ids"))
            .and_then(|n| n.split_once('.'))
        else {
            continue;
        };
        let (Ok(match_id), Ok(session_id)) = (m.parse(), s.parse()) else {
            continue;
        };
        let published = std::fs::read_to_string(&path)?
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect();
        out.push(LedgerEntry {
            match_id,
            session_id,
            published,
        });
    }
    out.sort_by_key(|e| e.session_id);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_add_up_across_reopening() {
        let dir = tempfile::tempdir().unwrap();
        let (m, s) = (MatchId::generate(), SessionId::generate());
        let ids: Vec<EventId> = (0..4).map(|_| EventId::generate()).collect();
        let mut l = Ledger::new(dir.path(), m, s);
        l.published(&[]);
        assert!(
            entries(dir.path()).unwrap().is_empty(),
            "nothing published, no file"
        );
        l.published(&ids[..3]);
        // a later start (the spool replay) appends to the same file
        Ledger::new(dir.path(), m, s).published(&ids[3..]);
        // a torn last line is left out; other files are ignored
        let path = dir.path().join(format!("{m}.{s}.ids"));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"evt_01J").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        assert_eq!(
            entries(dir.path()).unwrap(),
            vec![LedgerEntry {
                match_id: m,
                session_id: s,
                published: ids
            }]
        );
        assert!(entries(&dir.path().join("missing")).unwrap().is_empty());
    }
}
