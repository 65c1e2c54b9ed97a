//! A session in the formats analysts use: `jsonl` (every message of the session, as
//! published), `events-csv` (one row per event), `cdf` (Common Data Format tracking JSONL),
//! `gsr` (SoccerNet game-state predictions JSON) and `mot` (MOTChallenge boxes for TrackEval) —
//! the writers of `sportz track --export`. Frames, statuses and metrics come from the
//! recording; events from the store, which has every one of them once (they travel on a
//! stream, not on the lossy pub/sub the recorder hears, and with several API instances each
//! event is consumed by one of them). In `jsonl` each event goes before the first frame after
//! it. Everything but `gsr` is streamed: the file is read once (`cdf` twice: the first pass
//! finds each track's side), so a long match is not held in memory; `gsr` is one JSON document
//! and holds the frames.

use std::io::Write;
use std::path::Path;

use sportz_contract::{Envelope, EventData, FrameData, MatchId, Payload, SessionId};
use sportz_eval::ExportOptions;
use sportz_eval::export::{SideVotes, cdf_frame, gsr_predictions, mot_frame};

use super::file::Reader;

/// An export format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jsonl,
    EventsCsv,
    Cdf,
    Gsr,
    Mot,
}

impl Format {
    pub const ALL: [Self; 5] = [
        Self::Jsonl,
        Self::EventsCsv,
        Self::Cdf,
        Self::Gsr,
        Self::Mot,
    ];

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::EventsCsv => "events-csv",
            Self::Cdf => "cdf",
            Self::Gsr => "gsr",
            Self::Mot => "mot",
        }
    }

    #[must_use]
    pub const fn content_type(self) -> &'static str {
        match self {
            Self::Jsonl | Self::Cdf => "application/x-ndjson",
            Self::EventsCsv => "text/csv; charset=utf-8",
            Self::Gsr => "application/json",
            Self::Mot => "text/plain; charset=utf-8",
        }
    }

    /// The file name ending of a download.
    #[must_use]
    pub const fn extension(self) -> &'static str {
        match self {
            Self::Jsonl => "jsonl",
            Self::EventsCsv => "events.csv",
            Self::Cdf => "cdf.jsonl",
            Self::Gsr => "gsr.json",
            Self::Mot => "mot.txt",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|f| f.name() == s)
            .ok_or_else(|| {
                format!(
                    "unknown export format `{s}`: expected one of {}",
                    Self::ALL.map(Self::name).join(", ")
                )
            })
    }
}

/// What an export read and wrote.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exported {
    /// Recorded messages read.
    pub messages: u64,
    pub frames: u64,
    /// The video time of the last frame read (seconds).
    pub last_video_timestamp: f64,
    /// Stored events exported.
    pub events: u64,
    /// Lines that were not contract messages (skipped).
    pub unreadable: u64,
    /// Why reading stopped before the end of the file (a crash cut the last write short):
    /// everything before it was exported.
    pub damaged: Option<String>,
}

/// The header row of `events-csv`.
pub const EVENTS_CSV_HEADER: &str = "event_id,kind,frame_number,video_timestamp,timestamp,team,player_track_id,pitch_x,pitch_y,confidence\n";

/// A contract enum's wire name (`possession`, `home`, …).
fn tag<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn csv_row(e: &EventData) -> String {
    let opt = |v: Option<String>| v.unwrap_or_default();
    format!(
        "{},{},{},{:.3},{:.3},{},{},{},{},{:.4}\n",
        e.event_id,
        tag(&e.kind),
        e.frame_number,
        e.video_timestamp,
        e.timestamp,
        opt(e.team.as_ref().map(tag)),
        opt(e.player_track_id.map(|t| t.to_string())),
        opt(e.pitch.map(|p| format!("{:.2}", p.x))),
        opt(e.pitch.map(|p| format!("{:.2}", p.y))),
        e.confidence
    )
}

/// Reads a recording's messages, counting them into `done`.
fn messages<'a>(
    reader: &'a mut Reader,
    done: &'a mut Exported,
) -> impl Iterator<Item = (String, Option<Envelope>)> + 'a {
    reader.map(move |line| {
        done.messages += 1;
        let env = Envelope::from_json(&line).ok();
        match env.as_ref().map(|e| &e.payload) {
            None => done.unreadable += 1,
            Some(Payload::Frame(f)) => {
                done.frames += 1;
                done.last_video_timestamp = f.video_timestamp;
            }
            Some(_) => {}
        }
        (line, env)
    })
}

/// A session to export: its recording (`None`: nothing recorded, e.g. recording is off) and
/// its stored events in frame order.
#[derive(Debug)]
pub struct Source<'a> {
    pub match_id: MatchId,
    pub session_id: SessionId,
    pub recording: Option<&'a Path>,
    pub events: &'a [EventData],
}

/// Writes a session as `format` to `out`.
///
/// # Errors
/// The recording cannot be opened, or `out` cannot be written (the client went away).
pub fn export(
    src: &Source<'_>,
    format: Format,
    opts: &ExportOptions,
    out: &mut dyn Write,
) -> std::io::Result<Exported> {
    let mut done = Exported::default();
    if format == Format::EventsCsv {
        out.write_all(EVENTS_CSV_HEADER.as_bytes())?;
        for e in src.events {
            out.write_all(csv_row(e).as_bytes())?;
        }
        out.flush()?;
        done.events = src.events.len() as u64;
        return Ok(done);
    }
    let Some(path) = src.recording else {
        // nothing recorded: the events are all there is
        if format == Format::Jsonl {
            for e in src.events {
                write_event(src, e, out)?;
            }
        }
        out.flush()?;
        done.events = src.events.len() as u64;
        return Ok(done);
    };
    let mut reader = Reader::open(path)?;
    match format {
        Format::Jsonl => {
            let mut events = src.events.iter().peekable();
            for (line, env) in messages(&mut reader, &mut done) {
                if let Some(Envelope {
                    payload: Payload::Frame(f),
                    ..
                }) = &env
                {
                    while let Some(e) = events.next_if(|e| e.frame_number <= f.frame_number) {
                        write_event(src, e, out)?;
                    }
                }
                out.write_all(line.as_bytes())?;
                out.write_all(b"\n")?;
            }
            for e in events {
                write_event(src, e, out)?;
            }
        }
        Format::EventsCsv => unreachable!("answered above"),
        Format::Mot => {
            let mut text = String::new();
            for (_, env) in messages(&mut reader, &mut done) {
                if let Some(f) = frame(env) {
                    text.clear();
                    mot_frame(&f, &mut text);
                    out.write_all(text.as_bytes())?;
                }
            }
        }
        Format::Cdf => {
            // first pass: each track's side, and the kick-off time
            let mut votes = SideVotes::default();
            let mut kickoff = opts.kickoff_unix;
            let mut first = Reader::open(path)?;
            let mut scan = Exported::default();
            for (_, env) in messages(&mut first, &mut scan) {
                if let Some(f) = frame(env) {
                    votes.add(&f);
                    kickoff.get_or_insert(f.timestamp - f.video_timestamp);
                }
            }
            let sides = votes.sides();
            let k0 = kickoff.unwrap_or(0.0);
            for (_, env) in messages(&mut reader, &mut done) {
                if let Some(f) = frame(env) {
                    let mut line = cdf_frame(&f, &sides, k0, opts).to_string();
                    line.push('\n');
                    out.write_all(line.as_bytes())?;
                }
            }
        }
        Format::Gsr => {
            let frames: Vec<FrameData> = messages(&mut reader, &mut done)
                .filter_map(|(_, env)| frame(env))
                .collect();
            serde_json::to_writer(&mut *out, &gsr_predictions(&frames, opts))?;
        }
    }
    out.flush()?;
    done.damaged = reader.damaged().map(str::to_owned);
    done.events = src.events.len() as u64;
    Ok(done)
}

/// A stored event as the contract message the worker published (its `seq` is not stored: 0).
fn write_event(src: &Source<'_>, e: &EventData, out: &mut dyn Write) -> std::io::Result<()> {
    let env = Envelope {
        match_id: src.match_id,
        session_id: Some(src.session_id),
        ts: e.timestamp,
        seq: 0,
        payload: Payload::Event(e.clone()),
    };
    out.write_all(env.to_json().as_bytes())?;
    out.write_all(b"\n")
}

fn frame(env: Option<Envelope>) -> Option<FrameData> {
    match env?.payload {
        Payload::Frame(f) => Some(*f),
        _ => None,
    }
}

/// Counts the messages and frames of a recording without writing anything (the check for
/// damage before a download starts).
///
/// # Errors
/// The recording cannot be opened.
pub fn scan(path: &Path) -> std::io::Result<Exported> {
    let mut done = Exported::default();
    let mut reader = Reader::open(path)?;
    messages(&mut reader, &mut done).for_each(drop);
    done.damaged = reader.damaged().map(str::to_owned);
    Ok(done)
}
