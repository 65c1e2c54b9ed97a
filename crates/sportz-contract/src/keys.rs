//! Every Redis key, stream, consumer group and pub/sub channel of the contract, and their TTLs.
//! Nothing else in the project formats a key: call these.
//!
//! | key / channel | kind | writer → reader |
//! |---|---|---|
//! | `worker:commands` | stream, group `workers` | api → worker |
//! | `match:{id}:control` | string | api → worker |
//! | `match:{id}:lease` | string, TTL 8 s | worker → api |
//! | `worker:{id}:heartbeat` | string, TTL 10 s | worker → api |
//! | `status:updates` | stream, group `api-status` | worker → api |
//! | `events:stream` | stream, group `api-persist` | worker → api |
//! | `match:{id}:status` / `:events` / `:detections` / `:metrics` | pub/sub | worker, api → WebSocket |
//! | `match:{id}:frame:last`, `match:{id}:metrics:last` | string, TTL 30 s | worker → api |
//!
//! Beyond the seed table, the match centre fans out across API instances on two more channels:
//! `sportz:broadcast` (messages for every `/ws` client) and `match:{id}:commentary` (one room).

use std::time::Duration;

use crate::MatchId;

/// Stream of start commands.
pub const WORKER_COMMANDS: &str = "worker:commands";
/// Consumer group of the workers on [`WORKER_COMMANDS`].
pub const WORKERS_GROUP: &str = "workers";
/// Stream of session status changes.
pub const STATUS_UPDATES: &str = "status:updates";
/// Consumer group of the API on [`STATUS_UPDATES`].
pub const API_STATUS_GROUP: &str = "api-status";
/// Stream of detected events.
pub const EVENTS_STREAM: &str = "events:stream";
/// Consumer group of the API on [`EVENTS_STREAM`].
pub const API_PERSIST_GROUP: &str = "api-persist";
/// Match-centre messages for every `/ws` client on every API instance (`match_created`, `score_update`).
pub const MATCH_CENTRE_BROADCAST: &str = "sportz:broadcast";

/// Lease lifetime; the worker refreshes it every [`LEASE_REFRESH`].
pub const LEASE_TTL: Duration = Duration::from_secs(8);
/// How often a worker refreshes its leases.
pub const LEASE_REFRESH: Duration = Duration::from_secs(1);
/// Heartbeat lifetime.
pub const HEARTBEAT_TTL: Duration = Duration::from_secs(10);
/// Lifetime of the snapshot keys `frame:last` and `metrics:last`.
pub const SNAPSHOT_TTL: Duration = Duration::from_secs(30);

/// `match:{id}:control`: the desired state, written by the API.
#[must_use]
pub fn control(m: &MatchId) -> String {
    format!("match:{m}:control")
}

/// `match:{id}:lease`: the worker that holds the match, TTL [`LEASE_TTL`].
#[must_use]
pub fn lease(m: &MatchId) -> String {
    format!("match:{m}:lease")
}

/// `worker:{id}:heartbeat`, TTL [`HEARTBEAT_TTL`].
#[must_use]
pub fn heartbeat(worker_id: &str) -> String {
    format!("worker:{worker_id}:heartbeat")
}

/// Pattern matching every heartbeat key (for listing workers).
pub const HEARTBEAT_PATTERN: &str = "worker:*:heartbeat";

/// `match:{id}:frame:last`, TTL [`SNAPSHOT_TTL`].
#[must_use]
pub fn frame_last(m: &MatchId) -> String {
    format!("match:{m}:frame:last")
}

/// `match:{id}:metrics:last`, TTL [`SNAPSHOT_TTL`].
#[must_use]
pub fn metrics_last(m: &MatchId) -> String {
    format!("match:{m}:metrics:last")
}

/// The pub/sub channels of one match.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Channel {
    /// `match:{id}:status`: status and error messages.
    Status,
    /// `match:{id}:events`: event messages.
    Events,
    /// `match:{id}:detections`: frame messages.
    Detections,
    /// `match:{id}:metrics`: metrics once per second.
    Metrics,
    /// `match:{id}:commentary`: match-centre commentary for that match's room.
    Commentary,
}

impl Channel {
    /// The four contract channels a `/ws/matches/{id}` client relays.
    pub const RELAYED: [Self; 4] = [Self::Status, Self::Events, Self::Detections, Self::Metrics];

    const fn suffix(self) -> &'static str {
        match self {
            Self::Status => "status",
            Self::Events => "events",
            Self::Detections => "detections",
            Self::Metrics => "metrics",
            Self::Commentary => "commentary",
        }
    }

    /// The channel name for a match.
    #[must_use]
    pub fn name(self, m: &MatchId) -> String {
        format!("match:{m}:{}", self.suffix())
    }

    /// A pattern matching this channel of every match (`match:*:status`).
    #[must_use]
    pub fn pattern(self) -> String {
        format!("match:*:{}", self.suffix())
    }

    /// Splits a channel name back into its match and kind; `None` for anything else.
    #[must_use]
    pub fn parse(name: &str) -> Option<(MatchId, Self)> {
        let rest = name.strip_prefix("match:")?;
        let (id, suffix) = rest.split_once(':')?;
        let kind = [
            Self::Status,
            Self::Events,
            Self::Detections,
            Self::Metrics,
            Self::Commentary,
        ]
        .into_iter()
        .find(|c| c.suffix() == suffix)?;
        Some((id.parse().ok()?, kind))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m() -> MatchId {
        "match_01JC0000000000000000000000".parse().unwrap()
    }

    #[test]
    fn keys_match_the_seed_table() {
        let cases = [
            (
                control(&m()),
                "match:match_01JC0000000000000000000000:control",
            ),
            (lease(&m()), "match:match_01JC0000000000000000000000:lease"),
            (heartbeat("w1"), "worker:w1:heartbeat"),
            (
                frame_last(&m()),
                "match:match_01JC0000000000000000000000:frame:last",
            ),
            (
                metrics_last(&m()),
                "match:match_01JC0000000000000000000000:metrics:last",
            ),
            (
                Channel::Status.name(&m()),
                "match:match_01JC0000000000000000000000:status",
            ),
            (
                Channel::Events.name(&m()),
                "match:match_01JC0000000000000000000000:events",
            ),
            (
                Channel::Detections.name(&m()),
                "match:match_01JC0000000000000000000000:detections",
            ),
            (
                Channel::Metrics.name(&m()),
                "match:match_01JC0000000000000000000000:metrics",
            ),
            (Channel::Status.pattern(), "match:*:status"),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        assert_eq!(LEASE_TTL.as_secs(), 8);
        assert_eq!(LEASE_REFRESH.as_secs(), 1);
        assert_eq!(HEARTBEAT_TTL.as_secs(), 10);
        assert_eq!(SNAPSHOT_TTL.as_secs(), 30);
        // the streams and their consumer groups
        assert_eq!(WORKER_COMMANDS, "worker:commands");
        assert_eq!(WORKERS_GROUP, "workers");
        assert_eq!(STATUS_UPDATES, "status:updates");
        assert_eq!(API_STATUS_GROUP, "api-status");
        assert_eq!(EVENTS_STREAM, "events:stream");
        assert_eq!(API_PERSIST_GROUP, "api-persist");
        assert_eq!(MATCH_CENTRE_BROADCAST, "sportz:broadcast");
        assert_eq!(HEARTBEAT_PATTERN, "worker:*:heartbeat");
    }

    #[test]
    fn channel_names_parse_back() {
        for c in [
            Channel::Status,
            Channel::Events,
            Channel::Detections,
            Channel::Metrics,
            Channel::Commentary,
        ] {
            assert_eq!(Channel::parse(&c.name(&m())), Some((m(), c)));
        }
        assert_eq!(Channel::parse("match:nope:status"), None);
        assert_eq!(Channel::parse(&frame_last(&m())), None);
        assert_eq!(Channel::parse("worker:x:heartbeat"), None);
    }
}
