//! The envelope every contract message travels in:
//! `{ "type": …, "match_id": "match_…", "session_id": "ses_…", "ts": 1760012145.32, "seq": 42, "data": { } }`.
//!
//! `data`'s shape depends on `type`; [`Envelope`]'s serde impls check both, and errors name the
//! field that failed (`invalid frame data at `ball`: missing field `pixel``).

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::frame::{BallData, FrameData, PitchPoint, PlayersData, TeamSide};
use crate::status::{MatchStatus, SessionStatus};
use crate::wire::required_nullable;
use crate::{ContractError, EventId, MatchId, SessionId};

/// The seven message types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MessageType {
    Status,
    Frame,
    Ball,
    Players,
    Event,
    Metrics,
    Error,
}

impl MessageType {
    pub const ALL: [Self; 7] = [
        Self::Status,
        Self::Frame,
        Self::Ball,
        Self::Players,
        Self::Event,
        Self::Metrics,
        Self::Error,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Status => "status",
            Self::Frame => "frame",
            Self::Ball => "ball",
            Self::Players => "players",
            Self::Event => "event",
            Self::Metrics => "metrics",
            Self::Error => "error",
        }
    }

    fn parse(s: &str) -> Result<Self, ContractError> {
        Self::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| ContractError::UnknownType {
                found: s.to_owned(),
                expected: "status, frame, ball, players, event, metrics, error".to_owned(),
            })
    }
}

/// `status.data`: a session status change (worker) or the match's status (API snapshots).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusData {
    /// The session's status. `null` only in an API snapshot of a match that never had a session.
    #[serde(deserialize_with = "required_nullable")]
    pub status: Option<SessionStatus>,
    /// The match status after the API's mapping; present in messages the API publishes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_status: Option<MatchStatus>,
    /// Human-readable detail: why it failed, what it is reconnecting to, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The worker that runs the session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worker_id: Option<String>,
}

/// The kinds of event the event engine emits.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    BallLost,
    Possession,
    PossessionChange,
    Pass,
    Shot,
    BallOut,
    Goal,
}

impl EventKind {
    pub const ALL: [Self; 7] = [
        Self::BallLost,
        Self::Possession,
        Self::PossessionChange,
        Self::Pass,
        Self::Shot,
        Self::BallOut,
        Self::Goal,
    ];

    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::BallLost => "ball_lost",
            Self::Possession => "possession",
            Self::PossessionChange => "possession_change",
            Self::Pass => "pass",
            Self::Shot => "shot",
            Self::BallOut => "ball_out",
            Self::Goal => "goal",
        }
    }
}

impl std::str::FromStr for EventKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        Self::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            format!("unknown event kind `{s}`, expected one of ball_lost, possession, possession_change, pass, shot, ball_out, goal")
        })
    }
}

/// `event.data`: one detected match event.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventData {
    /// Unique per match; persistence is idempotent on it.
    pub event_id: EventId,
    pub kind: EventKind,
    /// Seconds from the start of the video.
    pub video_timestamp: f64,
    /// Unix time (seconds) of the frame the event was detected on.
    pub timestamp: f64,
    pub frame_number: u64,
    /// Where it happened, in metres; `null` while uncalibrated.
    #[serde(deserialize_with = "required_nullable")]
    pub pitch: Option<PitchPoint>,
    /// The team involved, when known.
    #[serde(default)]
    pub team: Option<TeamSide>,
    /// The player (track id) involved, when known.
    #[serde(default)]
    pub player_track_id: Option<u64>,
    /// 0..1.
    pub confidence: f64,
    /// Kind-specific detail (a pass's receiver and distance, a shot's speed, …): a JSON object.
    #[serde(default)]
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// GPU figures (NVML) when the worker runs on an NVIDIA GPU.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GpuMetrics {
    pub name: String,
    #[serde(default)]
    pub utilization_pct: Option<f64>,
    #[serde(default)]
    pub memory_used_mb: Option<f64>,
    #[serde(default)]
    pub memory_total_mb: Option<f64>,
    #[serde(default)]
    pub temperature_c: Option<f64>,
}

/// `metrics.data`: the session's figures, published once per second.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricsData {
    /// Frames per second read from the source (after sampling).
    pub source_fps: f64,
    /// Frames per second through the detector.
    pub inference_fps: f64,
    /// Detector time per frame, median over the last second, in ms.
    pub detect_ms: f64,
    /// Extra field: the 95th percentile of the same.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detect_ms_p95: Option<f64>,
    /// Publish time minus read time of the last frame, in ms.
    pub latency_ms: f64,
    pub frames_processed: u64,
    /// Frames dropped before inference because it could not keep up.
    pub dropped_frames: u64,
    pub events_emitted: u64,
    /// The execution device, e.g. `cpu`, `cuda:0`.
    pub device: String,
    /// `null` without an NVIDIA GPU.
    #[serde(deserialize_with = "required_nullable")]
    pub gpu: Option<GpuMetrics>,
    /// Extra field: why the last frame had no camera (it was published in `pixel` mode), e.g.
    /// a shot cut, a close-up, no pitch lines in view; absent while frames have one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera_missing: Option<String>,
    /// Extra field: events the worker had to drop because the bus was down longer than its
    /// outbox holds (absent while none was).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub events_dropped: u64,
}

#[allow(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
const fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// `error.data`: something went wrong; `code` is stable, `message` is for people.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorData {
    pub code: String,
    pub message: String,
}

impl ErrorData {
    /// The bus (Redis) cannot be reached; the API sends this before closing a socket with 1011.
    pub const BUS_UNAVAILABLE: &'static str = "bus_unavailable";
    /// The video source failed (unreachable, refused by the source guard, undecodable).
    pub const SOURCE_FAILED: &'static str = "source_failed";
    /// The model could not be loaded or produced unexpected output.
    pub const MODEL_FAILED: &'static str = "model_failed";
    /// Anything else that ended a session.
    pub const INTERNAL: &'static str = "internal";
    /// The bus was down longer than the worker's outbox holds: the oldest events were dropped.
    pub const EVENTS_DROPPED: &'static str = "events_dropped";
}

/// The typed `data` of an envelope.
#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    Status(StatusData),
    Frame(Box<FrameData>),
    Ball(BallData),
    Players(PlayersData),
    Event(EventData),
    Metrics(MetricsData),
    Error(ErrorData),
}

impl Payload {
    #[must_use]
    pub const fn message_type(&self) -> MessageType {
        match self {
            Self::Status(_) => MessageType::Status,
            Self::Frame(_) => MessageType::Frame,
            Self::Ball(_) => MessageType::Ball,
            Self::Players(_) => MessageType::Players,
            Self::Event(_) => MessageType::Event,
            Self::Metrics(_) => MessageType::Metrics,
            Self::Error(_) => MessageType::Error,
        }
    }

    fn to_value(&self) -> Result<serde_json::Value, serde_json::Error> {
        match self {
            Self::Status(d) => serde_json::to_value(d),
            Self::Frame(d) => serde_json::to_value(d),
            Self::Ball(d) => serde_json::to_value(d),
            Self::Players(d) => serde_json::to_value(d),
            Self::Event(d) => serde_json::to_value(d),
            Self::Metrics(d) => serde_json::to_value(d),
            Self::Error(d) => serde_json::to_value(d),
        }
    }

    fn from_value(t: MessageType, data: serde_json::Value) -> Result<Self, ContractError> {
        fn parse<T: serde::de::DeserializeOwned>(
            t: MessageType,
            data: serde_json::Value,
        ) -> Result<T, ContractError> {
            serde_path_to_error::deserialize(data).map_err(|e| {
                let path = e.path().to_string();
                ContractError::InvalidData {
                    message_type: t.as_str(),
                    path: if path == "." { "data".to_owned() } else { path },
                    reason: e.into_inner().to_string(),
                }
            })
        }
        Ok(match t {
            MessageType::Status => Self::Status(parse(t, data)?),
            MessageType::Frame => Self::Frame(Box::new(parse(t, data)?)),
            MessageType::Ball => Self::Ball(parse(t, data)?),
            MessageType::Players => Self::Players(parse(t, data)?),
            MessageType::Event => Self::Event(parse(t, data)?),
            MessageType::Metrics => Self::Metrics(parse(t, data)?),
            MessageType::Error => Self::Error(parse(t, data)?),
        })
    }
}

/// One contract message.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    pub match_id: MatchId,
    /// `null` only for API messages about a match that has no session.
    pub session_id: Option<SessionId>,
    /// Unix time in seconds when the message was made.
    pub ts: f64,
    /// Increases by one per message within a session (see [`Sequencer`]).
    pub seq: u64,
    pub payload: Payload,
}

impl Envelope {
    #[must_use]
    pub const fn message_type(&self) -> MessageType {
        self.payload.message_type()
    }

    /// Parses one message from JSON text.
    ///
    /// # Errors
    /// [`ContractError`] naming what was malformed: not JSON, a missing or mistyped envelope
    /// field, an unknown `type`, or the path inside `data` that failed.
    pub fn from_json(text: &str) -> Result<Self, ContractError> {
        let raw: RawEnvelope =
            serde_json::from_str(text).map_err(|e| ContractError::Malformed(e.to_string()))?;
        raw.into_envelope()
    }

    /// Parses one message from a JSON value.
    ///
    /// # Errors
    /// As [`Envelope::from_json`].
    pub fn from_value(value: serde_json::Value) -> Result<Self, ContractError> {
        let raw: RawEnvelope =
            serde_json::from_value(value).map_err(|e| ContractError::Malformed(e.to_string()))?;
        raw.into_envelope()
    }

    /// The message as JSON text.
    #[must_use]
    pub fn to_json(&self) -> String {
        // Cannot fail: every map key is a string, and serde_json writes non-finite floats as null.
        serde_json::to_string(self).expect("contract messages always serialise")
    }
}

#[derive(Deserialize)]
struct RawEnvelope {
    #[serde(rename = "type")]
    kind: String,
    match_id: MatchId,
    #[serde(deserialize_with = "required_nullable")]
    session_id: Option<SessionId>,
    ts: f64,
    seq: u64,
    data: serde_json::Value,
}

impl RawEnvelope {
    fn into_envelope(self) -> Result<Envelope, ContractError> {
        let t = MessageType::parse(&self.kind)?;
        Ok(Envelope {
            match_id: self.match_id,
            session_id: self.session_id,
            ts: self.ts,
            seq: self.seq,
            payload: Payload::from_value(t, self.data)?,
        })
    }
}

#[derive(Serialize)]
struct EnvelopeOut<'a> {
    #[serde(rename = "type")]
    kind: MessageType,
    match_id: &'a MatchId,
    session_id: &'a Option<SessionId>,
    ts: f64,
    seq: u64,
    data: serde_json::Value,
}

impl Serialize for Envelope {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let data = self.payload.to_value().map_err(serde::ser::Error::custom)?;
        EnvelopeOut {
            kind: self.message_type(),
            match_id: &self.match_id,
            session_id: &self.session_id,
            ts: self.ts,
            seq: self.seq,
            data,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Envelope {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        RawEnvelope::deserialize(d)?
            .into_envelope()
            .map_err(D::Error::custom)
    }
}

/// Numbers the messages of one session: 1, 2, 3, …
#[derive(Debug, Default, Clone)]
pub struct Sequencer {
    last: u64,
}

impl Sequencer {
    #[must_use]
    pub const fn new() -> Self {
        Self { last: 0 }
    }

    /// The next sequence number.
    pub const fn next(&mut self) -> u64 {
        self.last += 1;
        self.last
    }

    /// Wraps a payload in an envelope with the next sequence number.
    pub fn envelope(
        &mut self,
        match_id: MatchId,
        session_id: SessionId,
        ts: f64,
        payload: Payload,
    ) -> Envelope {
        Envelope {
            match_id,
            session_id: Some(session_id),
            ts,
            seq: self.next(),
            payload,
        }
    }
}
