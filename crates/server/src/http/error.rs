//! Every failure answers opencode's error body `{"name", "data": {"message"}}` with the status
//! opencode uses: 400 `BadRequest`, 404 `NotFoundError`, 409 `SessionBusyError`, 401
//! `Unauthorized`, 500 `UnknownError`; and ours, 409 `NotPendingError` for a reply to a request
//! that is not pending (its `data` also has `requestID`).

use axum::Json;
use axum::http::{Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use strata_protocol::wire::ApiError;

use crate::core::CoreError;

/// An error answer: a status and the body.
#[derive(Debug)]
pub struct ApiFailure {
    pub status: StatusCode,
    pub body: ApiError,
}

impl ApiFailure {
    pub fn new(status: StatusCode, name: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            body: ApiError::new(name, message),
        }
    }

    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "BadRequest", message)
    }

    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NotFoundError", message)
    }
}

impl IntoResponse for ApiFailure {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}

impl From<CoreError> for ApiFailure {
    fn from(e: CoreError) -> Self {
        let message = e.to_string();
        match e {
            CoreError::NotFound { .. } => Self::not_found(message),
            CoreError::BadRequest(_) | CoreError::Instance { .. } => Self::bad_request(message),
            CoreError::Busy(_) => Self::new(StatusCode::CONFLICT, "SessionBusyError", message),
            CoreError::NotPending { id, .. } => {
                let mut failure = Self::new(StatusCode::CONFLICT, "NotPendingError", message);
                failure.body.data.insert("requestID".into(), id.into());
                failure
            }
            CoreError::ShuttingDown => {
                Self::new(StatusCode::SERVICE_UNAVAILABLE, "UnknownError", message)
            }
            CoreError::Start(_) | CoreError::Store(_) | CoreError::Internal(_) => {
                Self::new(StatusCode::INTERNAL_SERVER_ERROR, "UnknownError", message)
            }
        }
    }
}

/// An unknown route: a JSON 404 (never HTML, which opencode's SDK reads as "unsupported
/// server"). Logged, so missing routes a client needs show up in the server log.
pub async fn unknown_route(method: Method, uri: Uri) -> ApiFailure {
    tracing::warn!(%method, path = uri.path(), "request for an unknown route");
    ApiFailure::not_found(format!(
        "{method} {} is not a route of this server; GET /doc lists the routes",
        uri.path()
    ))
}
