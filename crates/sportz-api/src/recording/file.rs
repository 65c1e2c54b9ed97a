//! One session's recording on disk: `<dir>/<match>.<session>.jsonl.gz`, the contract envelopes
//! of the session a line each, as a sequence of gzip members. Each [`Writer::flush`] (once a
//! second while the session runs) appends one whole member, so a crash loses at most what
//! arrived since the last flush, and a member torn by a crash is where [`Reader`] stops.

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use sportz_contract::{MatchId, SessionId};

/// The file name of a session's recording.
#[must_use]
pub fn file_name(m: MatchId, s: SessionId) -> String {
    format!("{m}.{s}.jsonl.gz")
}

/// The (match, session) a recording's file name is for.
#[must_use]
pub fn parse_name(name: &str) -> Option<(MatchId, SessionId)> {
    let (m, s) = name.strip_suffix(".jsonl.gz")?.split_once('.')?;
    Some((m.parse().ok()?, s.parse().ok()?))
}

/// Appends lines to a recording, a gzip member per flush.
#[derive(Debug)]
pub struct Writer {
    path: PathBuf,
    pending: String,
    /// The file exists (an earlier flush, or an earlier run, wrote it).
    on_disk: bool,
}

impl Writer {
    #[must_use]
    pub fn new(path: PathBuf) -> Self {
        Self {
            on_disk: path.exists(),
            path,
            pending: String::new(),
        }
    }

    /// Whether the file exists yet.
    #[must_use]
    pub const fn on_disk(&self) -> bool {
        self.on_disk
    }

    /// Adds a line (written at the next flush).
    pub fn push(&mut self, line: &str) {
        self.pending.push_str(line.trim_end_matches('\n'));
        self.pending.push('\n');
    }

    /// Appends what was pushed since the last flush as one gzip member; returns the bytes
    /// written (0 when nothing waited).
    ///
    /// # Errors
    /// The file cannot be written (a full disk, …); what waited is dropped, not retried.
    pub fn flush(&mut self) -> std::io::Result<u64> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let text = std::mem::take(&mut self.pending);
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(text.as_bytes())?;
        let member = gz.finish()?;
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.path)?
            .write_all(&member)?;
        self.on_disk = true;
        Ok(member.len() as u64)
    }
}

/// The lines of a recording in order, up to the end or the first damage (a member torn by a
/// crash, a corrupt byte): then [`Reader::damaged`] says so and says why.
pub struct Reader {
    lines: std::io::Lines<BufReader<MultiGzDecoder<std::fs::File>>>,
    damaged: Option<String>,
    read: u64,
}

impl std::fmt::Debug for Reader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reader")
            .field("damaged", &self.damaged)
            .field("read", &self.read)
            .finish_non_exhaustive()
    }
}

impl Reader {
    /// Opens a recording.
    ///
    /// # Errors
    /// It cannot be opened (missing, unreadable).
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let f = std::fs::File::open(path)?;
        Ok(Self {
            lines: BufReader::new(MultiGzDecoder::new(f)).lines(),
            damaged: None,
            read: 0,
        })
    }

    /// Why reading stopped before the end, if it did.
    #[must_use]
    pub fn damaged(&self) -> Option<&str> {
        self.damaged.as_deref()
    }

    /// The lines read so far.
    #[must_use]
    pub const fn lines_read(&self) -> u64 {
        self.read
    }
}

impl Iterator for Reader {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        if self.damaged.is_some() {
            return None;
        }
        match self.lines.next()? {
            Ok(l) => {
                self.read += 1;
                Some(l)
            }
            Err(e) => {
                self.damaged = Some(format!(
                    "the recording is damaged after line {} (a write cut short by a crash?): {e}",
                    self.read
                ));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_append_and_read_back_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let (m, s) = (MatchId::generate(), SessionId::generate());
        let path = dir.path().join("rec").join(file_name(m, s));
        assert_eq!(parse_name(&file_name(m, s)), Some((m, s)));
        assert_eq!(parse_name("notes.txt"), None);
        let mut w = Writer::new(path.clone());
        assert_eq!(w.flush().unwrap(), 0, "nothing waited");
        w.push("{\"a\":1}");
        w.push("{\"a\":2}\n");
        assert!(w.flush().unwrap() > 0);
        w.push("{\"a\":3}");
        w.flush().unwrap();
        let mut r = Reader::open(&path).unwrap();
        let lines: Vec<String> = r.by_ref().collect();
        assert_eq!(lines, ["{\"a\":1}", "{\"a\":2}", "{\"a\":3}"]);
        assert_eq!(r.damaged(), None);
        assert_eq!(r.lines_read(), 3);
    }

    #[test]
    fn a_torn_last_member_stops_the_reader_with_the_good_lines() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.jsonl.gz");
        let mut w = Writer::new(path.clone());
        w.push("one");
        w.flush().unwrap();
        let good = std::fs::metadata(&path).unwrap().len();
        w.push(&"two ".repeat(1000));
        w.flush().unwrap();
        // a crash in the middle of the second member's write
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..good as usize + 20]).unwrap();
        let mut r = Reader::open(&path).unwrap();
        let lines: Vec<String> = r.by_ref().collect();
        assert_eq!(lines, ["one"]);
        assert!(r.damaged().unwrap().contains("after line 1"), "{r:?}");
    }
}
