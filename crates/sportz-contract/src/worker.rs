//! What the API and the workers exchange outside the envelope: the start command on
//! `worker:commands`, the desired state in `match:{id}:control`, the lease in `match:{id}:lease` and
//! the heartbeat in `worker:{id}:heartbeat`.

use serde::{Deserialize, Serialize};

use crate::envelope::GpuMetrics;
use crate::frame::{PitchPoint, PixelPoint};
use crate::status::DesiredState;
use crate::{MatchId, SessionId};

/// Where a match's video comes from. On the wire: `{"type": "file", "value": "/videos/a.mp4"}`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "value", rename_all = "snake_case")]
pub enum VideoSource {
    /// A local file path.
    File(String),
    /// An `http(s)://` URL: a progressive file or an HLS playlist.
    Http(String),
    /// `rtmp://`
    Rtmp(String),
    /// `rtsp://`
    Rtsp(String),
    /// `srt://`
    Srt(String),
    /// A local capture device (`/dev/video0`, or an ffmpeg device spec).
    Device(String),
    /// The built-in synthetic demo match, rendered live for a seed.
    Synthetic(u64),
}

/// A pair the user clicked: a pixel on the video and the pitch point it shows.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PointPair {
    pub pixel: PixelPoint,
    pub pitch: PitchPoint,
}

/// Processing settings of one session.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionConfig {
    pub source: VideoSource,
    /// Frames per second to sample the source at; `null` keeps the source's rate.
    #[serde(default)]
    pub target_fps: Option<f64>,
    /// Read files at their native speed (a live replay) rather than as fast as possible.
    #[serde(default = "yes")]
    pub realtime: bool,
    /// Detector model path or name; `null` for the worker's default model.
    #[serde(default)]
    pub model: Option<String>,
    /// Detections below this confidence are discarded.
    #[serde(default = "default_confidence")]
    pub confidence_threshold: f64,
    /// Calibration point pairs (≥ 4 for a homography); empty while uncalibrated.
    #[serde(default)]
    pub calibration: Vec<PointPair>,
    #[serde(default = "yes")]
    pub enable_tracking: bool,
    #[serde(default = "yes")]
    pub enable_teams: bool,
    #[serde(default = "yes")]
    pub enable_events: bool,
    /// Seconds into a file or HTTP video to start from (a takeover resumes where the lost
    /// worker was); `null`: the beginning. Live streams ignore it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_at: Option<f64>,
}

const fn yes() -> bool {
    true
}
const fn default_confidence() -> f64 {
    0.3
}

impl SessionConfig {
    /// Defaults for a source.
    #[must_use]
    pub const fn new(source: VideoSource) -> Self {
        Self {
            source,
            target_fps: None,
            realtime: true,
            model: None,
            confidence_threshold: default_confidence(),
            calibration: Vec::new(),
            enable_tracking: true,
            enable_teams: true,
            enable_events: true,
            start_at: None,
        }
    }

    /// Offline work: every frame of a file, as fast as it can be read (`sportz track`, a
    /// non-realtime file session). Everything else is live: frames that arrive in real time and
    /// may be dropped when the analysis falls behind.
    #[must_use]
    pub const fn is_offline(&self) -> bool {
        !self.realtime && matches!(self.source, VideoSource::File(_))
    }
}

/// An entry of `worker:commands`: `{command, match_id, session_id, config}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case")]
pub enum WorkerCommand {
    /// Start processing a match in a new session.
    Start {
        match_id: MatchId,
        session_id: SessionId,
        config: SessionConfig,
    },
}

impl WorkerCommand {
    #[must_use]
    pub const fn match_id(&self) -> &MatchId {
        match self {
            Self::Start { match_id, .. } => match_id,
        }
    }

    #[must_use]
    pub const fn session_id(&self) -> &SessionId {
        match self {
            Self::Start { session_id, .. } => session_id,
        }
    }
}

/// `match:{id}:control`: which session the API wants and in what state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Control {
    pub session_id: SessionId,
    pub state: DesiredState,
}

impl Control {
    /// Whether a session should (still) run: this session is the wanted one and it is not stopped.
    #[must_use]
    pub fn wants(&self, session: &SessionId) -> bool {
        self.session_id == *session && self.state != DesiredState::Stopped
    }
}

/// `match:{id}:lease`: which worker holds a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub worker_id: String,
    pub session_id: SessionId,
}

/// `worker:{id}:heartbeat`.
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Heartbeat {
    pub worker_id: String,
    /// The execution device, e.g. `cpu`, `cuda:0`.
    pub device: String,
    /// `null` without an NVIDIA GPU.
    #[serde(deserialize_with = "crate::wire::required_nullable")]
    pub gpu: Option<GpuMetrics>,
    /// Models loaded (names or paths).
    pub models: Vec<String>,
    pub active_matches: Vec<MatchId>,
    /// Maximum number of concurrent matches.
    pub capacity: u32,
    /// Unix seconds.
    pub started_at: f64,
    /// Unix seconds of this heartbeat.
    pub ts: f64,
}

impl Heartbeat {
    /// Free slots.
    #[must_use]
    pub fn spare_capacity(&self) -> u32 {
        let active = u32::try_from(self.active_matches.len()).unwrap_or(u32::MAX);
        self.capacity.saturating_sub(active)
    }
}

#[cfg(test)]
mod tests {
    use super::{SessionConfig, VideoSource};

    #[test]
    fn only_a_file_read_as_fast_as_possible_is_offline() {
        let cases = [
            (VideoSource::File("m.mp4".into()), false, true),
            (VideoSource::File("m.mp4".into()), true, false),
            (VideoSource::Http("http://h/m.mp4".into()), false, false),
            (VideoSource::Rtsp("rtsp://h/s".into()), false, false),
            (VideoSource::Synthetic(7), false, false),
            (VideoSource::Device("/dev/video0".into()), true, false),
        ];
        for (source, realtime, offline) in cases {
            let config = SessionConfig {
                realtime,
                ..SessionConfig::new(source.clone())
            };
            assert_eq!(
                config.is_offline(),
                offline,
                "{source:?}, realtime {realtime}"
            );
        }
    }
}
