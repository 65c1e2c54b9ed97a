//! Extractors whose rejections are [`ApiError`]s, so every handler answers bad input the same way
//! (axum's `AppJson` pattern):
//!
//! - [`AppJson`]: a JSON body; not JSON → 400 `bad_request`, over the body limit → 413.
//! - [`AppQuery`]: the query string; a bad value (`?limit=abc`) → 400 `bad_request` naming it.
//! - [`Operator`] / [`Reader`]: the bearer token may change things / may read ([`crate::auth`]).
//! - [`MatchPath`]: `{id}` as a [`MatchId`]; a malformed id is a missing match (404), never 500.
//!
//! Axum runs extractors in argument order, and the first rejection answers: handlers list them in
//! the order the checks apply (token, then match id, then body).

use std::sync::Arc;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequest, FromRequestParts, Path, Query, Request};
use axum::http::request::Parts;
use sportz_contract::MatchId;

use crate::auth::{bearer, require_operator, require_reader};
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// A JSON request body, rejected through [`ApiError`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AppJson<T>(pub T);

impl<S, T> FromRequest<S> for AppJson<T>
where
    Json<T>: FromRequest<S, Rejection = JsonRejection>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let Json(value) = Json::<T>::from_request(req, state).await?;
        Ok(Self(value))
    }
}

/// The query string, rejected through [`ApiError`] (axum's own rejection is plain text).
#[derive(Debug, Clone, Copy, Default)]
pub struct AppQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for AppQuery<T>
where
    T: serde::de::DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Query(value) = Query::<T>::from_request_parts(parts, state)
            .await
            .map_err(|e| {
                ApiError::BadRequest(format!("invalid query string: {}", e.body_text()))
            })?;
        Ok(Self(value))
    }
}

/// The request carries the operator token (401 without a valid token, 403 for a viewer token).
#[derive(Debug, Clone, Copy)]
pub struct Operator;

impl FromRequestParts<Arc<AppState>> for Operator {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        require_operator(state, &parts.headers).await?;
        Ok(Self)
    }
}

/// The request may read (always, unless the server requires a viewer token). The token comes
/// from `Authorization: Bearer`, else from `?token=` (links and `<img>`s cannot send a header:
/// export downloads, the video).
#[derive(Debug, Clone, Copy)]
pub struct Reader;

/// `token` of a query string (other parameters are the handler's).
fn query_token(uri: &axum::http::Uri) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct TokenOnly {
        token: Option<String>,
    }
    Query::<TokenOnly>::try_from_uri(uri).ok()?.0.token
}

impl FromRequestParts<Arc<AppState>> for Reader {
    type Rejection = ApiError;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let from_query = query_token(&parts.uri);
        let token = bearer(&parts.headers).or(from_query.as_deref());
        require_reader(state, token).await?;
        Ok(Self)
    }
}

/// A path's text as a match id: malformed ids are missing matches.
///
/// # Errors
/// [`ApiError::NotFound`] naming the id.
pub fn match_id(raw: &str) -> ApiResult<MatchId> {
    raw.parse().map_err(|e: sportz_contract::ContractError| {
        ApiError::NotFound(format!("match `{raw}` not found ({e})"))
    })
}

fn path_error(e: &axum::extract::rejection::PathRejection) -> ApiError {
    ApiError::BadRequest(e.body_text())
}

/// The `{id}` of a `/matches/{id}…` route.
#[derive(Debug, Clone, Copy)]
pub struct MatchPath(pub MatchId);

impl<S: Send + Sync> FromRequestParts<S> for MatchPath {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|e| path_error(&e))?;
        match_id(&raw).map(Self)
    }
}
