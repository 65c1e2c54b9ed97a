//! Rows as both engines read them (plain columns), and their conversion into the typed rows. The
//! engines differ only in how they fetch these; everything that interprets a column lives here.

use sportz_contract::{EventData, SessionConfig, VideoSource};
use time::OffsetDateTime;

use crate::error::{Result, StoreError};
use crate::model::{ApiToken, Commentary, Match, ProcessingSettings, Session, StoredEvent};

/// The columns of `matches`, in the order the SQLite reader expects.
pub(crate) const MATCH_COLS: &str = "id, name, sport, home_team, away_team, competition, \
    start_time, end_time, home_score, away_score, status, status_message, last_error, \
    video_source_type, video_source_value, target_fps, realtime, model, confidence_threshold, \
    enable_tracking, enable_teams, enable_events, calibration, current_session_id, event_count, \
    created_at, updated_at";

pub(crate) const COMMENTARY_COLS: &str = "id, match_id, minute, sequence, period, event_type, \
    actor, team, message, metadata, tags, created_at";

pub(crate) const SESSION_COLS: &str = "id, match_id, worker_id, status, device, config, \
    frames_processed, avg_fps, avg_latency_ms, error, started_at, stopped_at, updated_at, \
    last_status_seq";

pub(crate) const EVENT_COLS: &str = "id, match_id, session_id, payload, created_at";

pub(crate) const TOKEN_COLS: &str = "id, role, label, created_at, last_used_at";

#[derive(Debug)]
pub(crate) struct RawMatch {
    pub id: String,
    pub name: String,
    pub sport: String,
    pub home_team: String,
    pub away_team: String,
    pub competition: Option<String>,
    pub start_time: Option<OffsetDateTime>,
    pub end_time: Option<OffsetDateTime>,
    pub home_score: i64,
    pub away_score: i64,
    pub status: String,
    pub status_message: Option<String>,
    pub last_error: Option<String>,
    pub source_type: Option<String>,
    pub source_value: Option<String>,
    pub target_fps: Option<f64>,
    pub realtime: bool,
    pub model: Option<String>,
    pub confidence_threshold: f64,
    pub enable_tracking: bool,
    pub enable_teams: bool,
    pub enable_events: bool,
    pub calibration: serde_json::Value,
    pub current_session_id: Option<String>,
    pub event_count: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
}

fn count<T: TryFrom<i64>>(what: &str, v: i64) -> Result<T> {
    T::try_from(v).map_err(|_| StoreError::corrupt(what, format!("{v} is out of range")))
}

impl RawMatch {
    pub(crate) fn into_match(self) -> Result<Match> {
        let video_source = match (self.source_type, self.source_value) {
            (Some(t), Some(v)) => Some(source_from_parts(&t, v)?),
            _ => None,
        };
        Ok(Match {
            id: parse_field("match id", &self.id)?,
            name: self.name,
            sport: self.sport,
            home_team: self.home_team,
            away_team: self.away_team,
            competition: self.competition,
            start_time: self.start_time,
            end_time: self.end_time,
            home_score: count("home score", self.home_score)?,
            away_score: count("away score", self.away_score)?,
            status: parse_field("match status", &self.status)?,
            status_message: self.status_message,
            last_error: self.last_error,
            video_source,
            settings: ProcessingSettings {
                target_fps: self.target_fps,
                realtime: self.realtime,
                model: self.model,
                confidence_threshold: self.confidence_threshold,
                enable_tracking: self.enable_tracking,
                enable_teams: self.enable_teams,
                enable_events: self.enable_events,
            },
            calibration: serde_json::from_value(self.calibration)
                .map_err(|e| StoreError::corrupt("calibration", e))?,
            current_session_id: self
                .current_session_id
                .map(|s| parse_field("session id", &s))
                .transpose()?,
            event_count: count("event count", self.event_count)?,
            created_at: self.created_at,
            updated_at: self.updated_at,
        })
    }
}

#[derive(Debug)]
pub(crate) struct RawCommentary {
    pub id: i64,
    pub match_id: String,
    pub minute: Option<i64>,
    pub sequence: i64,
    pub period: Option<String>,
    pub event_type: String,
    pub actor: Option<String>,
    pub team: Option<String>,
    pub message: String,
    pub metadata: Option<serde_json::Value>,
    pub tags: Vec<String>,
    pub created_at: OffsetDateTime,
}

impl RawCommentary {
    pub(crate) fn into_commentary(self) -> Result<Commentary> {
        Ok(Commentary {
            id: self.id,
            match_id: parse_field("match id", &self.match_id)?,
            minute: self.minute.map(|m| count("minute", m)).transpose()?,
            sequence: count("sequence", self.sequence)?,
            period: self.period,
            event_type: self.event_type,
            actor: self.actor,
            team: self.team,
            message: self.message,
            metadata: self.metadata,
            tags: self.tags,
            created_at: self.created_at,
        })
    }
}

#[derive(Debug)]
pub(crate) struct RawSession {
    pub id: String,
    pub match_id: String,
    pub worker_id: Option<String>,
    pub status: String,
    pub device: Option<String>,
    pub config: serde_json::Value,
    pub frames_processed: i64,
    pub avg_fps: Option<f64>,
    pub avg_latency_ms: Option<f64>,
    pub error: Option<String>,
    pub started_at: OffsetDateTime,
    pub stopped_at: Option<OffsetDateTime>,
    pub updated_at: OffsetDateTime,
    pub last_status_seq: i64,
}

impl RawSession {
    pub(crate) fn into_session(self) -> Result<Session> {
        let config: SessionConfig = serde_json::from_value(self.config)
            .map_err(|e| StoreError::corrupt("session config", e))?;
        Ok(Session {
            id: parse_field("session id", &self.id)?,
            match_id: parse_field("match id", &self.match_id)?,
            worker_id: self.worker_id,
            status: parse_field("session status", &self.status)?,
            device: self.device,
            config,
            frames_processed: count("frames processed", self.frames_processed)?,
            avg_fps: self.avg_fps,
            avg_latency_ms: self.avg_latency_ms,
            error: self.error,
            started_at: self.started_at,
            stopped_at: self.stopped_at,
            updated_at: self.updated_at,
            last_status_seq: count("last status seq", self.last_status_seq)?,
        })
    }
}

#[derive(Debug)]
pub(crate) struct RawEvent {
    pub id: i64,
    pub match_id: String,
    pub session_id: Option<String>,
    pub payload: serde_json::Value,
    pub created_at: OffsetDateTime,
}

impl RawEvent {
    pub(crate) fn into_event(self) -> Result<StoredEvent> {
        let data: EventData = serde_json::from_value(self.payload)
            .map_err(|e| StoreError::corrupt("event payload", e))?;
        Ok(StoredEvent {
            id: self.id,
            match_id: parse_field("match id", &self.match_id)?,
            session_id: self
                .session_id
                .map(|s| parse_field("session id", &s))
                .transpose()?,
            data,
            created_at: self.created_at,
        })
    }
}

#[derive(Debug)]
pub(crate) struct RawToken {
    pub id: i64,
    pub role: String,
    pub label: Option<String>,
    pub created_at: OffsetDateTime,
    pub last_used_at: Option<OffsetDateTime>,
}

impl RawToken {
    pub(crate) fn into_token(self) -> Result<ApiToken> {
        Ok(ApiToken {
            id: self.id,
            role: parse_field("token role", &self.role)?,
            label: self.label,
            created_at: self.created_at,
            last_used_at: self.last_used_at,
        })
    }
}

/// An event's columns besides its ids, checked before it is stored.
pub(crate) fn event_columns(data: &EventData) -> Result<(i64, serde_json::Value)> {
    for (field, v) in [
        ("video_timestamp", data.video_timestamp),
        ("timestamp", data.timestamp),
        ("confidence", data.confidence),
    ] {
        if !v.is_finite() {
            return Err(StoreError::Invalid(format!(
                "event {}: {field} must be a finite number, got {v}",
                data.event_id
            )));
        }
    }
    let frame = i64::try_from(data.frame_number).map_err(|_| {
        StoreError::Invalid(format!(
            "event {}: frame_number {} is too large",
            data.event_id, data.frame_number
        ))
    })?;
    let payload = serde_json::to_value(data)
        .map_err(|e| StoreError::Invalid(format!("event {}: {e}", data.event_id)))?;
    Ok((frame, payload))
}

/// Microseconds since the Unix epoch.
pub(crate) fn to_us(t: OffsetDateTime) -> i64 {
    i64::try_from(t.unix_timestamp_nanos() / 1_000).unwrap_or(i64::MAX)
}

pub(crate) fn from_us(us: i64) -> Result<OffsetDateTime> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(us) * 1_000)
        .map_err(|e| StoreError::corrupt("timestamp", e))
}

/// `(type, value)` columns of a video source.
pub(crate) fn source_parts(s: &VideoSource) -> (&'static str, String) {
    match s {
        VideoSource::File(v) => ("file", v.clone()),
        VideoSource::Http(v) => ("http", v.clone()),
        VideoSource::Rtmp(v) => ("rtmp", v.clone()),
        VideoSource::Rtsp(v) => ("rtsp", v.clone()),
        VideoSource::Srt(v) => ("srt", v.clone()),
        VideoSource::Device(v) => ("device", v.clone()),
        VideoSource::Synthetic(seed) => ("synthetic", seed.to_string()),
    }
}

pub(crate) fn source_from_parts(kind: &str, value: String) -> Result<VideoSource> {
    Ok(match kind {
        "file" => VideoSource::File(value),
        "http" => VideoSource::Http(value),
        "rtmp" => VideoSource::Rtmp(value),
        "rtsp" => VideoSource::Rtsp(value),
        "srt" => VideoSource::Srt(value),
        "device" => VideoSource::Device(value),
        "synthetic" => VideoSource::Synthetic(
            value
                .parse()
                .map_err(|e| StoreError::corrupt("video source", e))?,
        ),
        other => {
            return Err(StoreError::corrupt(
                "video source",
                format!("type `{other}`"),
            ));
        }
    })
}

pub(crate) fn parse_field<T: std::str::FromStr>(what: &str, s: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    s.parse().map_err(|e| StoreError::corrupt(what, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::truncate_us;

    #[test]
    fn video_sources_round_trip_through_columns() {
        let cases = [
            VideoSource::File("/v/a.mp4".into()),
            VideoSource::Http("https://x/a.m3u8".into()),
            VideoSource::Rtmp("rtmp://x/live".into()),
            VideoSource::Rtsp("rtsp://x/cam".into()),
            VideoSource::Srt("srt://x:9000".into()),
            VideoSource::Device("/dev/video0".into()),
            VideoSource::Synthetic(42),
        ];
        for s in cases {
            let (kind, value) = source_parts(&s);
            assert_eq!(source_from_parts(kind, value).unwrap(), s);
        }
        assert!(source_from_parts("ftp", "x".into()).is_err());
    }

    #[test]
    fn times_keep_microseconds() {
        let t = OffsetDateTime::from_unix_timestamp_nanos(1_700_000_000_123_456_789).unwrap();
        let us = to_us(t);
        assert_eq!(us, 1_700_000_000_123_456);
        assert_eq!(from_us(us).unwrap(), truncate_us(t));
    }
}
