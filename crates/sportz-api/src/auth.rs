//! Tokens: mutations and session controls need an operator token (`Authorization: Bearer …`);
//! reading and watching are open unless `require_viewer_token` is set (then a viewer or operator
//! token is needed, and WebSockets without one close with 4401). An operator token is created
//! on first start and shown once (stored hashed), unless one is configured.

use axum::http::HeaderMap;
use sportz_store::{Store, TokenRole};

use crate::error::{ApiError, ApiResult};
use crate::state::AppState;

/// Creates the first operator token when none exists; returns it (to show once).
///
/// # Errors
/// When the store cannot be read.
pub async fn bootstrap(store: &dyn Store, configured: bool) -> ApiResult<Option<String>> {
    if configured {
        return Ok(None);
    }
    let tokens = store.list_tokens().await?;
    if tokens.iter().any(|t| t.role == TokenRole::Operator) {
        return Ok(None);
    }
    let created = store
        .create_token(
            TokenRole::Operator,
            Some("created on first start".to_owned()),
        )
        .await?;
    // the secret is returned for the caller to show once (on stdout); it never goes to the log
    tracing::warn!("created an operator token on first start (stored hashed)");
    Ok(Some(created.secret))
}

fn ct_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The bearer token of a request, if any.
#[must_use]
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
        .map(str::trim)
}

/// What a token may do: `None` when it is unknown.
///
/// # Errors
/// When the store cannot be read.
pub async fn role_of(state: &AppState, token: &str) -> ApiResult<Option<TokenRole>> {
    for configured in [
        &state.config.operator_token,
        &state.config.local_operator_token,
    ]
    .into_iter()
    .flatten()
    {
        if ct_eq(configured, token) {
            return Ok(Some(TokenRole::Operator));
        }
    }
    Ok(state.store.verify_token(token).await?.map(|t| t.role))
}

/// Allows operators only.
///
/// # Errors
/// 401 without a valid token, 403 for a viewer token.
pub async fn require_operator(state: &AppState, headers: &HeaderMap) -> ApiResult<()> {
    let Some(token) = bearer(headers) else {
        return Err(ApiError::Unauthorized(
            "this action needs the operator token: send `Authorization: Bearer <token>`".into(),
        ));
    };
    match role_of(state, token).await? {
        Some(TokenRole::Operator) => Ok(()),
        Some(TokenRole::Viewer) => Err(ApiError::Forbidden(
            "a viewer token cannot change anything; use the operator token".into(),
        )),
        None => Err(ApiError::Unauthorized("unknown or revoked token".into())),
    }
}

/// Allows readers (everyone, unless a viewer token is required).
///
/// # Errors
/// 401 when a viewer token is required and missing or unknown.
pub async fn require_reader(state: &AppState, token: Option<&str>) -> ApiResult<()> {
    if !state.config.require_viewer_token {
        return Ok(());
    }
    match token {
        Some(t) if role_of(state, t).await?.is_some() => Ok(()),
        Some(_) => Err(ApiError::Unauthorized("unknown or revoked token".into())),
        None => Err(ApiError::Unauthorized(
            "this server requires a viewer token: send `Authorization: Bearer <token>` (or `?token=<token>` where a header cannot be sent: WebSockets, download links, the video)".into(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_time_compare() {
        assert!(ct_eq("abc", "abc"));
        assert!(!ct_eq("abc", "abd"));
        assert!(!ct_eq("abc", "abcd"));
    }

    #[test]
    fn bearer_header() {
        let mut h = HeaderMap::new();
        assert_eq!(bearer(&h), None);
        h.insert("authorization", "Bearer  s3cret ".parse().unwrap());
        assert_eq!(bearer(&h), Some("s3cret"));
        h.insert("authorization", "Basic x".parse().unwrap());
        assert_eq!(bearer(&h), None);
    }
}
