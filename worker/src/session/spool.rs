//! The events spool: a session's unpublished events on disk, so that what the bus refused
//! survives the worker stopping or crashing. One JSONL file per session
//! (`<dir>/<match>.<session>.jsonl`, a contract envelope a line) that always holds exactly the
//! publisher's outbox: appended to while the bus is down, rewritten (temp file + rename) when part
//! of it went out, removed once it is empty. [`replay`] publishes the files a previous run left
//! behind, in order, when the worker starts (the API stores each event once, by its id, so a
//! line published twice is harmless). One worker per spool directory.

use std::collections::VecDeque;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sportz_bus::ContractBus;
use sportz_contract::{Envelope, MatchId, Payload, SessionId};
use tokio_util::sync::CancellationToken;

use super::ledger::Ledger;

/// The spool file of one session.
#[derive(Debug)]
pub(crate) struct Spool {
    path: PathBuf,
    /// Whether the file exists (holds the outbox).
    written: bool,
}

impl Spool {
    /// The spool of a session in `dir` (created when first needed).
    pub(crate) fn new(dir: &Path, m: MatchId, s: SessionId) -> Self {
        Self {
            path: dir.join(format!("{m}.{s}.jsonl")),
            written: false,
        }
    }

    /// Adds envelopes at the end (the bus refused them), on disk before it returns.
    pub(crate) fn append<'a>(
        &mut self,
        envs: impl IntoIterator<Item = &'a Envelope>,
    ) -> std::io::Result<()> {
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?;
        let mut text = String::new();
        for env in envs {
            text.push_str(&env.to_json());
            text.push('\n');
        }
        f.write_all(text.as_bytes())?;
        f.sync_data()?;
        self.written = true;
        Ok(())
    }

    /// Makes the file hold exactly `outbox` (removed when it is empty).
    pub(crate) fn rewrite(&mut self, outbox: &VecDeque<Envelope>) -> std::io::Result<()> {
        if outbox.is_empty() {
            return self.clear();
        }
        let tmp = self.path.with_extension("jsonl.tmp");
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        {
            let mut f = std::fs::File::create(&tmp)?;
            let mut text = String::new();
            for env in outbox {
                text.push_str(&env.to_json());
                text.push('\n');
            }
            f.write_all(text.as_bytes())?;
            f.sync_data()?;
        }
        std::fs::rename(&tmp, &self.path)?;
        self.written = true;
        Ok(())
    }

    /// Removes the file (everything in it was published).
    pub(crate) fn clear(&mut self) -> std::io::Result<()> {
        if self.written {
            match std::fs::remove_file(&self.path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            self.written = false;
        }
        Ok(())
    }
}

/// A spool file left by an earlier run: its envelopes in order, and the lines that could not be
/// read (reported, not published).
#[derive(Debug)]
pub(crate) struct Leftover {
    pub path: PathBuf,
    pub envelopes: Vec<Envelope>,
    pub unreadable: usize,
}

/// The spool files in `dir`, oldest first by name order of their sessions (ULIDs sort by time).
pub(crate) fn leftovers(dir: &Path) -> std::io::Result<Vec<Leftover>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    paths.sort();
    let mut out = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path)?;
        let mut envelopes = Vec::new();
        let mut unreadable = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            // a crash mid-append can leave a torn last line
            match Envelope::from_json(line) {
                Ok(env) => envelopes.push(env),
                Err(_) => unreadable += 1,
            }
        }
        out.push(Leftover {
            path,
            envelopes,
            unreadable,
        });
    }
    Ok(out)
}

/// Publishes what earlier runs left in `dir`, file by file and in order, retrying while the bus
/// is down, until done or shutdown. A file is removed once all of it went out; a file that
/// cannot be read is renamed `.bad` so it is not retried forever. The events that went out are
/// counted in their session's ledger in `ledger_dir`.
pub(crate) async fn replay(
    bus: ContractBus,
    (dir, ledger_dir): (PathBuf, Option<PathBuf>),
    shutdown: CancellationToken,
) {
    let files = match leftovers(&dir) {
        Ok(f) => f,
        Err(e) => {
            tracing::error!(dir = %dir.display(), "cannot read the events spool: {e}");
            return;
        }
    };
    for file in files {
        if file.unreadable > 0 {
            tracing::warn!(file = %file.path.display(), lines = file.unreadable, "unreadable lines in a spool file (a torn write): skipped");
        }
        let mut sent = 0;
        while sent < file.envelopes.len() {
            let env = &file.envelopes[sent];
            match bus.publish(env).await {
                Ok(()) => {
                    sent += 1;
                    if let (Payload::Event(e), Some(s), Some(d)) =
                        (&env.payload, env.session_id, &ledger_dir)
                    {
                        Ledger::new(d, env.match_id, s).published(&[e.event_id]);
                    }
                }
                Err(e) => {
                    tracing::warn!(file = %file.path.display(), left = file.envelopes.len() - sent, "spooled events wait for the bus: {e}");
                    tokio::select! {
                        () = shutdown.cancelled() => return,
                        () = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
            }
        }
        tracing::info!(file = %file.path.display(), events = sent, "spooled events of an earlier run published");
        if let Err(e) = std::fs::remove_file(&file.path) {
            tracing::warn!(file = %file.path.display(), "cannot remove a replayed spool file: {e}");
            let _ = std::fs::rename(&file.path, file.path.with_extension("jsonl.bad"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sportz_contract::{EventData, EventId, EventKind};

    fn event(m: MatchId, s: SessionId, seq: u64) -> Envelope {
        Envelope {
            match_id: m,
            session_id: Some(s),
            ts: 1.0,
            seq,
            payload: Payload::Event(EventData {
                event_id: EventId::generate(),
                kind: EventKind::Pass,
                video_timestamp: 0.0,
                timestamp: 1.0,
                frame_number: seq,
                pitch: None,
                team: None,
                player_track_id: None,
                confidence: 1.0,
                details: serde_json::Map::new(),
            }),
        }
    }

    #[test]
    fn the_file_follows_the_outbox() {
        let dir = tempfile::tempdir().unwrap();
        let spool_dir = dir.path().join("spool");
        let (m, s) = (MatchId::generate(), SessionId::generate());
        let mut spool = Spool::new(&spool_dir, m, s);
        spool.clear().unwrap(); // nothing written: nothing to do
        let outbox: VecDeque<Envelope> = (1..=3).map(|k| event(m, s, k)).collect();
        spool.append(outbox.iter()).unwrap();
        let left = leftovers(&spool_dir).unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].envelopes, Vec::from(outbox.clone()));
        // two went out: the file holds the third
        let rest: VecDeque<Envelope> = outbox.iter().skip(2).cloned().collect();
        spool.rewrite(&rest).unwrap();
        let left = leftovers(&spool_dir).unwrap();
        assert_eq!(left[0].envelopes, Vec::from(rest));
        // all out: no file
        spool.rewrite(&VecDeque::new()).unwrap();
        assert!(leftovers(&spool_dir).unwrap().is_empty());
    }

    #[test]
    fn a_torn_last_line_is_counted_not_published() {
        let dir = tempfile::tempdir().unwrap();
        let (m, s) = (MatchId::generate(), SessionId::generate());
        let mut spool = Spool::new(dir.path(), m, s);
        let e = event(m, s, 1);
        spool.append([&e]).unwrap();
        let path = dir.path().join(format!("{m}.{s}.jsonl"));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"{\"type\":\"event\",\"match_").unwrap();
        let left = leftovers(dir.path()).unwrap();
        assert_eq!(left[0].envelopes, vec![e]);
        assert_eq!(left[0].unreadable, 1);
        assert!(leftovers(&dir.path().join("missing")).unwrap().is_empty());
    }
}
