//! The one error type of the API: a stable code, a message that says what was expected, and the
//! failing fields. Internals (SQL, driver text) stay in the log.

use std::collections::BTreeMap;

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::json;
use sportz_bus::BusError;
use sportz_store::StoreError;
use utoipa::ToSchema;

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("invalid request: {message}")]
    Validation {
        message: String,
        fields: BTreeMap<String, String>,
    },
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Unauthorized(String),
    #[error("{0}")]
    Forbidden(String),
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Conflict(String),
    #[error("{0}")]
    TooLarge(String),
    /// Well-formed, but what it asks for cannot be done with this input (no pitch in a still).
    #[error("{0}")]
    Unprocessable(String),
    #[error("too many requests; retry in {retry_after_secs} s")]
    RateLimited { retry_after_secs: u64 },
    #[error("{0}")]
    Unavailable(String),
    #[error("internal error")]
    Internal(String),
}

impl ApiError {
    /// A validation error for one field.
    pub fn field(name: &str, message: impl Into<String>) -> Self {
        let mut fields = BTreeMap::new();
        fields.insert(name.to_owned(), message.into());
        Self::Validation {
            message: format!("`{name}` is invalid"),
            fields,
        }
    }

    const fn status(&self) -> StatusCode {
        match self {
            Self::Validation { .. } | Self::BadRequest(_) => StatusCode::BAD_REQUEST,
            Self::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            Self::Forbidden(_) => StatusCode::FORBIDDEN,
            Self::NotFound(_) => StatusCode::NOT_FOUND,
            Self::Conflict(_) => StatusCode::CONFLICT,
            Self::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            Self::Unprocessable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Self::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            Self::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            Self::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable, machine-readable code.
    #[must_use]
    pub const fn code(&self) -> &'static str {
        match self {
            Self::Validation { .. } => "validation_failed",
            Self::BadRequest(_) => "bad_request",
            Self::Unauthorized(_) => "unauthorized",
            Self::Forbidden(_) => "forbidden",
            Self::NotFound(_) => "not_found",
            Self::Conflict(_) => "conflict",
            Self::TooLarge(_) => "too_large",
            Self::Unprocessable(_) => "unprocessable",
            Self::RateLimited { .. } => "rate_limited",
            Self::Unavailable(_) => "unavailable",
            Self::Internal(_) => "internal",
        }
    }
}

/// Every error answer: `{error: {code, message, fields?}}`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// The error of an [`ErrorBody`].
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ErrorDetail {
    /// Stable and machine-readable: `validation_failed`, `bad_request`, `unauthorized`,
    /// `forbidden`, `not_found`, `conflict`, `too_large`, `unprocessable`, `rate_limited`,
    /// `unavailable`, `internal`.
    pub code: &'static str,
    /// For people: what was expected and what came.
    pub message: String,
    /// With `validation_failed` only: each failing field and why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fields: Option<BTreeMap<String, String>>,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = self.status();
        if let Self::Internal(detail) = &self {
            tracing::error!("internal error: {detail}");
        }
        let body = json!(ErrorBody {
            error: ErrorDetail {
                code: self.code(),
                message: self.to_string(),
                fields: match &self {
                    Self::Validation { fields, .. } => Some(fields.clone()),
                    _ => None,
                },
            },
        });
        let mut resp = (status, Json(body)).into_response();
        if let Self::RateLimited { retry_after_secs } = self
            && let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string())
        {
            resp.headers_mut().insert(header::RETRY_AFTER, v);
        }
        resp
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound { .. } => Self::NotFound(e.to_string()),
            StoreError::Conflict { .. } => Self::Conflict(e.to_string()),
            StoreError::Invalid(m) => Self::BadRequest(m),
            StoreError::Unavailable(_) => Self::Unavailable(e.to_string()),
            StoreError::Internal(m) => Self::Internal(m),
        }
    }
}

impl From<BusError> for ApiError {
    fn from(e: BusError) -> Self {
        match e {
            BusError::Unavailable(_) => Self::Unavailable(e.to_string()),
            other => Self::Internal(other.to_string()),
        }
    }
}

impl From<axum::extract::rejection::JsonRejection> for ApiError {
    fn from(e: axum::extract::rejection::JsonRejection) -> Self {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return Self::TooLarge("the request body is larger than the 1 MiB limit".to_owned());
        }
        Self::BadRequest(format!("expected a JSON body: {}", e.body_text()))
    }
}

pub type ApiResult<T> = Result<T, ApiError>;
