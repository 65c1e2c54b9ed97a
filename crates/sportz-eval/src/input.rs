//! Reading the inputs: the synth's `truth.jsonl` and `events.json`, and the JSONL of contract
//! messages that `sportz track` writes. Nothing here opens a file: callers hand over a `BufRead`
//! or a `&str` and the name to use in error messages.

use std::io::BufRead;

use sportz_contract::{Envelope, EventData, FrameData, Payload};
use sportz_synth::{EventTruth, FrameTruth};

use crate::EvalError;

/// The ground truth of one synthetic match.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Truth {
    /// One per rendered frame, sorted by `frame_number`.
    pub frames: Vec<FrameTruth>,
    /// The true events (`events.json`), sorted by time.
    pub events: Vec<EventTruth>,
    /// The home and away shirt colours (the synth's `meta.json`), when known.
    pub kits: Option<[[u8; 3]; 2]>,
}

impl Truth {
    /// Truth from its frames and events (both are sorted here).
    #[must_use]
    pub fn new(mut frames: Vec<FrameTruth>, mut events: Vec<EventTruth>) -> Self {
        frames.sort_by_key(|f| f.frame_number);
        events.sort_by(|a, b| a.time_secs.total_cmp(&b.time_secs));
        Self {
            frames,
            events,
            kits: None,
        }
    }

    /// The same truth with the two sides' shirt colours (home, away).
    #[must_use]
    pub const fn with_kits(mut self, kits: [[u8; 3]; 2]) -> Self {
        self.kits = Some(kits);
        self
    }

    /// Truth from the frames alone, the events taken from each frame's `events` (the same events
    /// `events.json` holds; use this when that file is missing).
    #[must_use]
    pub fn from_frames(frames: Vec<FrameTruth>) -> Self {
        let events = frames
            .iter()
            .flat_map(|f| f.events.iter().cloned())
            .collect();
        Self::new(frames, events)
    }
}

/// What `sportz track` predicted: its frame messages and event messages, in file order.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Predictions {
    pub frames: Vec<FrameData>,
    pub events: Vec<EventData>,
    /// Messages of other types (status, metrics, …) that were skipped.
    pub other_messages: usize,
}

pub(crate) fn lines(
    reader: impl BufRead,
    source_name: &str,
) -> impl Iterator<Item = Result<(usize, String), EvalError>> {
    reader.lines().enumerate().filter_map(move |(i, line)| {
        let n = i + 1;
        match line {
            Ok(l) if l.trim().is_empty() => None,
            Ok(l) => Some(Ok((n, l))),
            Err(e) => Some(Err(EvalError::Read {
                source_name: source_name.to_owned(),
                line: n,
                reason: e.to_string(),
            })),
        }
    })
}

/// Reads `truth.jsonl`: one [`FrameTruth`] per line (blank lines are skipped).
///
/// # Errors
/// [`EvalError::Line`] naming the first malformed line (`truth.jsonl line 12: expected a
/// FrameTruth: missing field `camera` …`), [`EvalError::Read`] on an IO error, and
/// [`EvalError::Empty`] when there is no frame at all.
pub fn parse_truth_jsonl(
    reader: impl BufRead,
    source_name: &str,
) -> Result<Vec<FrameTruth>, EvalError> {
    let mut frames = Vec::new();
    for item in lines(reader, source_name) {
        let (n, line) = item?;
        let frame: FrameTruth = serde_json::from_str(&line).map_err(|e| EvalError::Line {
            source_name: source_name.to_owned(),
            line: n,
            expected: "a FrameTruth",
            reason: e.to_string(),
        })?;
        frames.push(frame);
    }
    if frames.is_empty() {
        return Err(EvalError::Empty {
            source_name: source_name.to_owned(),
            reason:
                "no frames (expected one FrameTruth per line, as `sportz synth` writes truth.jsonl)"
                    .to_owned(),
        });
    }
    Ok(frames)
}

/// Reads `events.json`: a JSON array of [`EventTruth`] (an empty array is fine).
///
/// # Errors
/// [`EvalError::Document`] when the text is not such an array.
pub fn parse_events_json(text: &str, source_name: &str) -> Result<Vec<EventTruth>, EvalError> {
    serde_json::from_str(text).map_err(|e| EvalError::Document {
        source_name: source_name.to_owned(),
        expected: "a JSON array of EventTruth",
        reason: e.to_string(),
    })
}

/// Reads the JSONL of contract messages that `sportz track` writes. Frame and event messages are
/// kept; other message types are counted and skipped; blank lines are skipped.
///
/// # Errors
/// [`EvalError::Line`] naming the first line that is not a valid contract message (the contract's
/// own message says which field failed), [`EvalError::Read`] on an IO error, and
/// [`EvalError::Empty`] when no line is a frame message.
pub fn parse_predictions(
    reader: impl BufRead,
    source_name: &str,
) -> Result<Predictions, EvalError> {
    let mut out = Predictions::default();
    for item in lines(reader, source_name) {
        let (n, line) = item?;
        let env = Envelope::from_json(&line).map_err(|e| EvalError::Line {
            source_name: source_name.to_owned(),
            line: n,
            expected: "a contract message",
            reason: e.to_string(),
        })?;
        match env.payload {
            Payload::Frame(f) => out.frames.push(*f),
            Payload::Event(e) => out.events.push(e),
            _ => out.other_messages += 1,
        }
    }
    if out.frames.is_empty() {
        return Err(EvalError::Empty {
            source_name: source_name.to_owned(),
            reason: format!(
                "no frame messages ({} event and {} other messages); expected the JSONL that `sportz track` writes",
                out.events.len(),
                out.other_messages
            ),
        });
    }
    Ok(out)
}

/// The home and away shirt colours of the synth's `meta.json` (`shirts.home`, `shirts.away`, each
/// `[r, g, b]`).
///
/// # Errors
/// [`EvalError::Document`] when the text is not JSON with those fields.
pub fn parse_meta_kits(text: &str, source_name: &str) -> Result<[[u8; 3]; 2], EvalError> {
    #[derive(serde::Deserialize)]
    struct Shirts {
        home: [u8; 3],
        away: [u8; 3],
    }
    #[derive(serde::Deserialize)]
    struct Meta {
        shirts: Shirts,
    }
    let meta: Meta = serde_json::from_str(text).map_err(|e| EvalError::Document {
        source_name: source_name.to_owned(),
        expected: "the synth's meta.json with shirts.home and shirts.away as [r, g, b]",
        reason: e.to_string(),
    })?;
    Ok([meta.shirts.home, meta.shirts.away])
}
