//! The sportz contract: every message, key and rule the worker and the API agree on, as plain
//! types with serde. Nothing here does IO, spawns tasks or knows a transport; the bus, the API and
//! the worker all speak through these types, so a wire format lives in exactly one place.
//!
//! - [`envelope`]: the `{type, match_id, session_id, ts, seq, data}` envelope and its seven payloads
//!   (`status`, `frame`, `ball`, `players`, `event`, `metrics`, `error`).
//! - [`frame`]: `frame.data` exactly as the seed defines it, plus the `ball`/`players` views of it.
//! - [`worker`]: the start command, the desired-state control record, the lease and the heartbeat.
//! - [`keys`]: every Redis key, stream, group and channel name, and their TTLs.
//! - [`status`]: worker session statuses, the API's mapping to match statuses, and the rule that
//!   ignores superseded or contradicting updates.
//! - [`match_centre`]: the Sportz `/ws` protocol (welcome, subscribe, …) and its data shapes.
//! - [`clock`]: [`unix_now`], the `ts` every message carries.
//! - [`ids`]: `match_<ULID>`, `ses_<ULID>`, `evt_<ULID>` newtypes that validate on parse.

pub mod clock;
pub mod envelope;
pub mod error;
pub mod frame;
pub mod ids;
pub mod keys;
pub mod match_centre;
pub mod status;
pub mod worker;

mod wire;

pub use clock::unix_now;
pub use envelope::{
    Envelope, ErrorData, EventData, EventKind, GpuMetrics, MessageType, MetricsData, Payload,
    Sequencer, StatusData,
};
pub use error::ContractError;
pub use frame::{
    Ball, BallData, CameraSource, CoordinateMode, FrameCamera, FrameData, Kits, ObjectClass,
    PitchPoint, PixelPoint, Player, PlayersData, TeamSide, TrailPoint, Velocity,
};
pub use ids::{EventId, MatchId, SessionId};
pub use status::{DesiredState, MatchStatus, SessionStatus, StatusDecision};
pub use worker::{Control, Heartbeat, Lease, SessionConfig, VideoSource, WorkerCommand};

/// Pitch length in metres (the x axis of every pitch coordinate).
pub const PITCH_LENGTH_M: f64 = 105.0;
/// Pitch width in metres (the y axis of every pitch coordinate).
pub const PITCH_WIDTH_M: f64 = 68.0;
