//! Every operation a user can perform, once: each function validates its typed input, writes the
//! store, then broadcasts (store first, so a client that hears of a change can read it). REST
//! handlers ([`crate::rest`]), the desktop's demo match and any later Tauri command or CLI
//! subcommand are thin wrappers over these.
//!
//! | area | operations | broadcast |
//! |---|---|---|
//! | [`matches`](mod@matches) | create, update, delete, get, list | `match_created` / `match_updated` to all |
//! | [`commentary`] | set the score, add commentary, list | `score_update` to all; `commentary` to the match's room |
//! | [`sessions`] | start, pause, stop, restart ([`sessions::act`]); sessions and events of a match | `match_updated` to all |
//! | [`calibration`] | set (≥ 4 non-degenerate pairs), get, the still, automatic (a camera and pairs from a still, not saved) | — |
//!
//! Shapes of the request (field types, lengths, required fields) are checked where the request is
//! read ([`crate::validate`]); the rules that hold whoever calls (times in order, a calibration
//! that fits, the session status machine) are checked here. Broadcasts go through the bus
//! ([`crate::fanout`]); a bus that is down is logged, not failed: the change is stored.

pub mod calibration;
pub mod commentary;
pub mod matches;
pub mod recordings;
pub mod sessions;

use sportz_contract::match_centre::ServerMessage;
use sportz_store::Match;

use crate::dto;
use crate::fanout::broadcast_or_log;
use crate::state::AppState;

/// Tells every `/ws` client that a match changed (`match_updated`).
pub async fn announce_match_updated(state: &AppState, m: &Match) {
    let msg = ServerMessage::MatchUpdated {
        data: Box::new(dto::match_dto(m, sportz_store::now())),
    };
    broadcast_or_log(state, &msg, "match_updated").await;
}
