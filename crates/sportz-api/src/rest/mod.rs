//! The REST handlers, by area: each reads the request (extractors from [`crate::extract`], bodies
//! field by field with [`crate::validate`]), calls one [`crate::service`] function and answers
//! with a [`crate::dto`] shape, `{data: …}` (pages: `{data: […], nextCursor}`); errors are
//! [`crate::ApiError`]s. Extractors run in argument order and the first rejection answers, so
//! each handler lists them in the order the checks applied before the split: the query string,
//! then the token, then the match id, then the body.
//! The route table is in [`crate::router`], the OpenAPI document in [`crate::openapi`].

pub mod bodies;
pub mod calibration;
pub mod commentary;
pub mod matches;
pub mod recordings;
pub mod sessions;
pub mod system;
pub mod video;

use std::sync::Arc;

use axum::extract::State;
use serde::Deserialize;
use sportz_store::PageRequest;

use crate::state::AppState;

pub(crate) type S = State<Arc<AppState>>;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    pub status: Option<String>,
    pub phase: Option<String>,
    pub kind: Option<String>,
    pub session_id: Option<String>,
    pub t: Option<f64>,
}

impl PageQuery {
    pub(crate) fn page(&self) -> PageRequest {
        PageRequest {
            cursor: self.cursor.clone(),
            limit: self.limit,
        }
    }
}
