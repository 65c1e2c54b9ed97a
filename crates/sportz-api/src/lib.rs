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
//!
//! Where things are:
//!
//! | module | what |
//! |---|---|
//! | [`service`] | every user operation (create/update/delete a match, score, commentary, session controls, calibration): validate → store → broadcast; REST and the desktop call these |
//! | [`rest`] | the REST handlers by area, thin wrappers over [`service`]; request bodies in [`rest::bodies`] |
//! | [`dto`] | every REST answer, built from the store's rows |
//! | [`router`], [`openapi`] | the route table and middleware; the OpenAPI document (utoipa) and [`openapi::ROUTES`] |
//! | [`extract`], [`validate`], [`error`] | request extractors, field-by-field body checks, the one error type |
//! | [`ws`], [`centre`], [`relay`], [`queue`] | the two WebSockets, `/ws` rooms, live relays, per-client queues |
//! | [`video`] | the annotated live video for viewers (MJPEG), rendered where the worker runs |
//! | [`consumers`], [`fanout`] | stream consumers and watchdog; broadcasts across instances |
//! | [`state`], [`server`] | the shared state and configuration; starting and serving ([`Api`]) |
//! | [`auth`], [`ratelimit`], [`metrics`] | tokens, per-client limits, Prometheus metrics |

pub mod auth;
pub mod catch_up;
pub mod centre;
pub mod consumers;
pub mod dto;
pub mod error;
pub mod extract;
pub mod fanout;
pub mod fits;
pub mod metrics;
pub mod openapi;
pub mod queue;
pub mod ratelimit;
pub mod recording;
pub mod relay;
pub mod rest;
pub mod router;
pub mod server;
pub mod service;
pub mod state;
pub mod validate;
pub mod video;
pub mod ws;

pub use error::{ApiError, ApiResult};
pub use server::Api;
pub use state::{ApiConfig, AppState};
