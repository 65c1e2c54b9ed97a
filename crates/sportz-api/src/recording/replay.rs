//! Replay: a recorded session played back through `/ws/matches/{id}?replay=<session>` at its
//! video pace (0.25×–4×), with play, pause and seek from the client. Every message sent says
//! it is a replay (`"replay": true` beside the envelope's fields), and `replay` messages report
//! the player (`{"type":"replay","data":{"state","at","speed","duration"}}`). Events come from
//! the store and go out before the first frame at or after theirs, as in the `jsonl` export.
//! Live viewers of the same match are not touched: a replay has no relay of its own.
//!
//! Client messages: `{"type":"play"}`, `{"type":"pause"}`, `{"type":"seek","t":<seconds>}`,
//! `{"type":"speed","value":<0.25..4>}`; anything else is answered with an `error` message.
//! A seek reads the recording again from its start, skipping what is before `t` unsent.
//!
//! Each replay has a player id (`data.player` of its `replay` messages): another viewer in the
//! same process can follow that very player frame by frame ([`Taps::follow`]) — the desktop
//! overlay draws the replay its own window plays, paused, sought and sped up with it.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::json;
use sportz_contract::{Envelope, EventData, MatchId, Payload, SessionId};
use tokio::sync::{mpsc, watch};
use tokio::time::Instant;

use super::file::Reader;
use crate::queue::ClientQueue;

/// The slowest and fastest replay.
pub const SPEEDS: std::ops::RangeInclusive<f64> = 0.25..=4.0;

/// What the client asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Control {
    Play,
    Pause,
    Seek(f64),
    Speed(f64),
}

/// Reads a client message.
///
/// # Errors
/// What was expected, for the `error` answer.
pub fn parse_control(text: &str) -> Result<Control, String> {
    const EXPECTED: &str = r#"expected {"type":"play"}, {"type":"pause"}, {"type":"seek","t":<seconds>} or {"type":"speed","value":<0.25 to 4>}"#;
    let v: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {EXPECTED}"))?;
    let num = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
    match v.get("type").and_then(|t| t.as_str()) {
        Some("play") => Ok(Control::Play),
        Some("pause") => Ok(Control::Pause),
        Some("seek") => match num("t") {
            Some(t) if t.is_finite() && t >= 0.0 => Ok(Control::Seek(t)),
            _ => Err(format!("seek needs t, seconds ≥ 0: {EXPECTED}")),
        },
        Some("speed") => match num("value") {
            Some(s) if SPEEDS.contains(&s) => Ok(Control::Speed(s)),
            _ => Err(format!("speed needs value from 0.25 to 4: {EXPECTED}")),
        },
        _ => Err(EXPECTED.to_owned()),
    }
}

/// The player's settings, changed by the client.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Player {
    pub playing: bool,
    pub speed: f64,
    /// The latest seek: (its number, the time), so a repeated seek to one time counts.
    pub seek: Option<(u64, f64)>,
}

impl Player {
    /// Applies a control.
    #[must_use]
    pub fn with(mut self, c: Control) -> Self {
        match c {
            Control::Play => self.playing = true,
            Control::Pause => self.playing = false,
            Control::Speed(s) => self.speed = s,
            Control::Seek(t) => self.seek = Some((self.seek.map_or(1, |(n, _)| n + 1), t)),
        }
        self
    }
}

/// The frames every running replay sends (the recorded line, without the replay marker), by
/// player id, for followers in this process.
#[derive(Debug, Clone, Default)]
pub struct Taps(Arc<Mutex<HashMap<String, FrameTx>>>);

/// A player's latest frame, for its followers.
type FrameTx = watch::Sender<Option<Arc<str>>>;

impl Taps {
    fn map(&self) -> std::sync::MutexGuard<'_, HashMap<String, FrameTx>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new player's tap under `id` (gone when the tap is dropped).
    #[must_use]
    pub fn open(&self, id: String) -> Tap {
        let (tx, _) = watch::channel(None);
        self.map().insert(id.clone(), tx.clone());
        Tap {
            id,
            tx,
            taps: self.clone(),
        }
    }

    /// The frames of the running player `id`, latest first; `None` when there is none.
    #[must_use]
    pub fn follow(&self, id: &str) -> Option<watch::Receiver<Option<Arc<str>>>> {
        self.map().get(id).map(|tx| {
            let mut rx = tx.subscribe();
            rx.mark_changed();
            rx
        })
    }
}

/// One player's side of [`Taps`].
#[derive(Debug)]
pub struct Tap {
    pub id: String,
    tx: FrameTx,
    taps: Taps,
}

impl Tap {
    /// Hands a frame's line to the followers (the player does so for every frame it sends).
    pub fn frame(&self, line: &str) {
        if self.tx.receiver_count() > 0 {
            self.tx.send_replace(Some(Arc::from(line)));
        }
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.taps.map().remove(&self.id);
    }
}

/// One session to replay.
#[derive(Debug, Clone)]
pub struct Session {
    pub match_id: MatchId,
    pub session_id: SessionId,
    pub recording: PathBuf,
    /// Its stored events, in frame order.
    pub events: Arc<Vec<EventData>>,
    /// The video time of its last recorded frame.
    pub duration: f64,
}

/// One message to send, read from the recording.
struct Item {
    line: String,
    /// Frames: (video time, frame number).
    frame: Option<(f64, u64)>,
}

/// Reads the recording on a blocking thread, from its start.
fn read(path: PathBuf) -> mpsc::Receiver<Item> {
    let (tx, rx) = mpsc::channel(64);
    tokio::task::spawn_blocking(move || {
        let Ok(reader) = Reader::open(&path) else {
            return;
        };
        for line in reader {
            let frame = match Envelope::from_json(&line).map(|e| e.payload) {
                Ok(Payload::Frame(f)) => Some((f.video_timestamp, f.frame_number)),
                Ok(Payload::Event(_)) | Err(_) => continue, // events come from the store
                Ok(_) => None,
            };
            if tx.blocking_send(Item { line, frame }).is_err() {
                return; // the replay moved on (a seek, or the client left)
            }
        }
    });
    rx
}

/// `{"replay":true,` + the envelope's own fields.
fn marked(line: &str) -> String {
    line.strip_prefix('{').map_or_else(
        || line.to_owned(),
        |rest| format!("{{\"replay\":true,{rest}"),
    )
}

fn event_line(s: &Session, e: &EventData) -> String {
    marked(
        &Envelope {
            match_id: s.match_id,
            session_id: Some(s.session_id),
            ts: e.timestamp,
            seq: 0,
            payload: Payload::Event(e.clone()),
        }
        .to_json(),
    )
}

fn state_line(s: &Session, tap: &Tap, state: &str, at: f64, speed: f64) -> String {
    json!({
        "type": "replay",
        "replay": true,
        "match_id": s.match_id,
        "session_id": s.session_id,
        "data": {"state": state, "at": at, "speed": speed, "duration": s.duration, "player": tap.id},
    })
    .to_string()
}

/// Plays `s` into `q` until the client leaves (`ctl` closed) or the end; starts at `at`. Each
/// frame sent also goes to `tap`.
pub async fn run(
    s: Session,
    q: Arc<ClientQueue>,
    mut ctl: watch::Receiver<Player>,
    at: f64,
    tap: Tap,
) {
    let mut player = *ctl.borrow();
    let mut skip_to = at;
    let mut seek_seen = player.seek.map(|(n, _)| n);
    'restart: loop {
        let mut rx = read(s.recording.clone());
        let mut events = s.events.iter().peekable();
        // the pace: video time `anchor.1` was due at `anchor.0`
        let mut anchor: Option<(Instant, f64)> = None;
        let mut now_at = skip_to;
        // until the first frame at or after `skip_to`, nothing is sent
        let mut seeking = skip_to > 0.0;
        let state = if player.playing { "playing" } else { "paused" };
        q.push(state_line(&s, &tap, state, now_at, player.speed).into());
        while let Some(item) = rx.recv().await {
            let Some((t, n)) = item.frame else {
                if !seeking {
                    q.push(marked(&item.line).into());
                }
                continue;
            };
            if t + 1e-9 < skip_to {
                // events before this point are not sent either
                while events.next_if(|e| e.frame_number < n).is_some() {}
                continue;
            }
            seeking = false;
            // wait for the frame's time, following the client's controls meanwhile
            loop {
                if !player.playing {
                    anchor = None;
                    if ctl.changed().await.is_err() {
                        return;
                    }
                } else {
                    let (t0, v0) = *anchor.get_or_insert((Instant::now(), t));
                    let due = t0 + Duration::from_secs_f64(((t - v0) / player.speed).max(0.0));
                    tokio::select! {
                        () = tokio::time::sleep_until(due) => break,
                        changed = ctl.changed() => if changed.is_err() { return },
                    }
                }
                let next = *ctl.borrow_and_update();
                if let Some((k, to)) = next.seek
                    && Some(k) != seek_seen
                {
                    seek_seen = Some(k);
                    player = next;
                    skip_to = to;
                    continue 'restart;
                }
                if next.speed != player.speed || next.playing != player.playing {
                    anchor = None; // the pace starts again from here
                    let state = if next.playing { "playing" } else { "paused" };
                    q.push(state_line(&s, &tap, state, t, next.speed).into());
                }
                player = next;
            }
            while let Some(e) = events.next_if(|e| e.frame_number <= n) {
                q.push(event_line(&s, e).into());
            }
            now_at = t;
            // in order with the rest (not latest-wins as live): a replay is paced already,
            // and a viewer who seeks wants every frame after the point
            q.push(marked(&item.line).into());
            tap.frame(&item.line);
        }
        for e in events {
            q.push(event_line(&s, e).into());
        }
        q.push(state_line(&s, &tap, "ended", now_at, player.speed).into());
        // ended: wait for a seek (to watch again) or the client leaving
        loop {
            if ctl.changed().await.is_err() {
                return;
            }
            let next = *ctl.borrow_and_update();
            player = next;
            if let Some((k, to)) = next.seek
                && Some(k) != seek_seen
            {
                seek_seen = Some(k);
                skip_to = to;
                continue 'restart;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_read_or_refused_with_what_was_expected() {
        assert_eq!(parse_control(r#"{"type":"play"}"#), Ok(Control::Play));
        assert_eq!(parse_control(r#"{"type":"pause"}"#), Ok(Control::Pause));
        assert_eq!(
            parse_control(r#"{"type":"seek","t":12.5}"#),
            Ok(Control::Seek(12.5))
        );
        assert_eq!(
            parse_control(r#"{"type":"speed","value":0.25}"#),
            Ok(Control::Speed(0.25))
        );
        for bad in [
            r#"{"type":"seek","t":-1}"#,
            r#"{"type":"seek"}"#,
            r#"{"type":"speed","value":8}"#,
            r#"{"type":"rewind"}"#,
            "ping",
        ] {
            let e = parse_control(bad).unwrap_err();
            assert!(e.contains("expected"), "{bad}: {e}");
        }
    }

    #[test]
    fn a_seek_counts_even_to_the_same_time() {
        let p = Player {
            playing: true,
            speed: 1.0,
            seek: None,
        };
        let a = p.with(Control::Seek(3.0));
        let b = a.with(Control::Seek(3.0));
        assert_eq!(a.seek, Some((1, 3.0)));
        assert_eq!(b.seek, Some((2, 3.0)));
        assert!(!b.with(Control::Pause).playing);
        assert_eq!(b.with(Control::Speed(2.0)).speed, 2.0);
    }

    #[test]
    fn replayed_messages_say_so() {
        assert_eq!(
            marked(r#"{"type":"frame"}"#),
            r#"{"replay":true,"type":"frame"}"#
        );
    }
}
