//! The REST handlers, by area. Each reads the request (auth, path, body), calls the store and the
//! bus, and answers `{data: …}` (pages: `{data: […], nextCursor}`); errors are [`ApiError`]s.
//! The route table is in [`crate::router`], the OpenAPI document in [`crate::openapi`].

pub mod calibration;
pub mod commentary;
pub mod matches;
pub mod sessions;
pub mod system;

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sportz_store::PageRequest;

use crate::state::AppState;

pub(crate) type S = State<Arc<AppState>>;

pub(crate) fn data<T: Serialize>(v: T) -> Json<Value> {
    Json(json!({ "data": v }))
}

pub(crate) fn page<T: Serialize>(items: Vec<T>, next: Option<String>) -> Json<Value> {
    Json(json!({ "data": items, "nextCursor": next }))
}

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
