//! The event engine run again over a `sportz track` JSONL: the frames' published ball and
//! players in, the events out — so a change to the event rules is measured in seconds on saved
//! runs instead of tracking the videos again. The published inputs are what the engine saw
//! (`frame::event_inputs`: referees left out, the ball's pitch position only with a camera).
//!
//! ```text
//! cargo run --release -p sportz-vision --example events_replay -- run.jsonl > events.jsonl
//! ```
//! One JSON line an event: `kind`, `frame_number`, `video_timestamp`, `pitch`, `team`,
//! `player_track_id`, `confidence`, `details` (the fields of `event.data` that do not depend
//! on the session: no ids, no wall-clock times).

use std::io::{BufRead, BufReader, Write};

use serde_json::{Value, json};
use sportz_contract::frame::{CoordinateMode, FrameData, ObjectClass};
use sportz_vision::Point;
use sportz_vision::events::{BallObs, Event, EventConfig, EventEngine, EventFrame, PlayerObs};
use sportz_vision::frame::{camera_on_ground, published_image_from_pitch};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: events_replay RUN.jsonl (the output of `sportz track`)")?;
    let input = BufReader::new(std::fs::File::open(&path)?);
    let mut engine = EventEngine::new(EventConfig::default());
    let mut out = std::io::stdout().lock();
    for (n, line) in input.lines().enumerate() {
        let line = line?;
        let message: Value =
            serde_json::from_str(&line).map_err(|e| format!("{path}:{}: not JSON: {e}", n + 1))?;
        if message["type"] != "frame" {
            continue;
        }
        let frame: FrameData = serde_json::from_value(message["data"].clone())
            .map_err(|e| format!("{path}:{}: not a frame: {e}", n + 1))?;
        let with_camera = frame.coordinate_mode == CoordinateMode::Pitch;
        let ball = frame.ball.as_ref().map(|b| BallObs {
            pitch: b
                .pitch
                .filter(|_| with_camera)
                .map(|p| Point::new(p.x, p.y)),
            predicted: b.predicted,
            confidence: b.confidence,
            with_camera,
            height_m: b.height_m,
            camera_at: published_image_from_pitch(&frame)
                .and_then(|h| camera_on_ground(&h, frame.width, frame.height)),
        });
        let players: Vec<PlayerObs> = frame
            .players
            .iter()
            .filter(|p| p.class != ObjectClass::Referee)
            .map(|p| PlayerObs {
                track_id: p.track_id,
                team: p.team,
                pitch: p.pitch.map(|q| Point::new(q.x, q.y)),
            })
            .collect();
        for e in engine.step(&EventFrame {
            frame_number: frame.frame_number,
            video_timestamp: frame.video_timestamp,
            timestamp: frame.timestamp,
            ball,
            players: &players,
        }) {
            writeln!(out, "{}", line_of(&e))?;
        }
    }
    for e in engine.finish() {
        writeln!(out, "{}", line_of(&e))?;
    }
    Ok(())
}

fn line_of(e: &Event) -> Value {
    json!({
        "kind": e.kind.as_str(),
        "frame_number": e.frame_number,
        "video_timestamp": e.video_timestamp,
        "pitch": e.pitch.map(|p| json!({"x": p.x, "y": p.y})),
        "team": e.team,
        "player_track_id": e.player_track_id,
        "confidence": e.confidence,
        "details": e.details,
    })
}
