//! An analyser that emits events on a schedule, and a reader of `events:stream` as the API
//! reads it (through outages): the outbox and spool tests share them.

use std::sync::Arc;
use std::time::Duration;

use sportz_bus::{Bus, ReadFrom};
use sportz_contract::worker::SessionConfig;
use sportz_contract::{Envelope, EventData, EventId, EventKind, MatchId, Payload};
use sportz_worker::source::VideoFrame;
use sportz_worker::{Analysis, Analyzer, AnalyzerError, AnalyzerFactory, PassThrough};

/// Every fifth frame an event, with an id made from the frame number.
#[derive(Debug)]
pub struct EventEveryFifth;

impl AnalyzerFactory for EventEveryFifth {
    fn create(&self, _: &MatchId, _: &SessionConfig) -> Result<Box<dyn Analyzer>, AnalyzerError> {
        Ok(Box::new(Fifth(PassThrough::default())))
    }
    fn device(&self) -> String {
        "cpu".to_owned()
    }
    fn models(&self) -> Vec<String> {
        Vec::new()
    }
}

struct Fifth(PassThrough);

impl Analyzer for Fifth {
    fn analyze(&mut self, f: &VideoFrame) -> Result<Analysis, AnalyzerError> {
        let mut a = self.0.analyze(f)?;
        if f.frame_number.is_multiple_of(5) {
            a.events.push(EventData {
                event_id: EventId::generate(),
                kind: EventKind::Shot,
                video_timestamp: f.video_timestamp,
                timestamp: f.read_at,
                frame_number: f.frame_number,
                pitch: None,
                team: None,
                player_track_id: None,
                confidence: 1.0,
                details: serde_json::Map::new(),
            });
        }
        Ok(a)
    }
}

/// Reads `events:stream` as the API would, through outages (the group is made again on a fresh
/// server), and returns the frame numbers of the events seen, once each.
pub async fn collect_events(
    bus: Arc<dyn Bus>,
    stop: tokio::sync::watch::Receiver<bool>,
) -> Vec<u64> {
    let stream = sportz_contract::keys::EVENTS_STREAM;
    let mut frames = Vec::new();
    loop {
        if *stop.borrow() {
            return frames;
        }
        if bus.ensure_group(stream, "test").await.is_err() {
            tokio::time::sleep(Duration::from_millis(100)).await;
            continue;
        }
        let read = bus
            .read_group(
                stream,
                "test",
                "reader",
                100,
                ReadFrom::New {
                    block: Duration::from_millis(200),
                },
            )
            .await;
        match read {
            Ok(entries) => {
                for e in entries {
                    let env = Envelope::from_json(&e.data).expect("an envelope");
                    if let Payload::Event(ev) = env.payload {
                        frames.push(ev.frame_number);
                    }
                }
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}
