//! The sportz API: the Sportz match centre (REST + `/ws` rooms, seed `realtime-deep-dive.txt`)
//! and the live tracking relay (`/ws/matches/{id}`, seed `redis-contract.txt`), one server.
//!
//! - Every broadcast goes through the bus (`sportz:broadcast`, `match:{id}:commentary`), so N
//!   instances on one Redis serve all their clients ([`fanout`]).
//! - Contract consumers persist `status:updates` and `events:stream`, ack only after success,
//!   re-read their own pending entries first; a watchdog fails starts nobody picked up and
//!   sessions whose worker was lost ([`consumers`]).
//! - Mutations need an operator token; reading is open on the LAN unless a viewer token is
//!   required ([`auth`]); per-client rate limits answer 429 with `Retry-After`.

pub mod auth;
pub mod centre;
pub mod consumers;
pub mod dto;
pub mod error;
pub mod extract;
pub mod fanout;
pub mod metrics;
pub mod openapi;
pub mod queue;
pub mod ratelimit;
pub mod relay;
pub mod rest;
pub mod router;
pub mod server;
pub mod service;
pub mod state;
pub mod validate;
pub mod ws;

pub use error::{ApiError, ApiResult};
pub use server::Api;
/// The session controls, at their former path (`sportz_api::sessions::act`).
pub use service::sessions;
pub use state::{ApiConfig, AppState};
