//! [`ServeError`]: why the server refused a request, as an HTTP status and a JSON body.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::agent::ThreadError;

/// Why the server refused a request. Each is answered with its status and a JSON body
/// `{"error": {"status": 409, "code": "thread_running", "message": "..."}}`.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// 400: the body is not JSON, or not the protocol's request.
    #[error("bad request: {0}")]
    BadRequest(String),
    /// 401: the request did not say who sends it (from the [`Authenticate`](super::Authenticate)
    /// function).
    #[error("unauthorized: {0}")]
    Unauthorized(String),
    /// 403: the thread belongs to another user.
    #[error("thread `{0}` belongs to another user")]
    Forbidden(String),
    /// 404: no such thread.
    #[error("no thread `{0}`")]
    NotFound(String),
    /// 409: the thread is busy (a run is going on) or waits for a review decision.
    #[error("{message}")]
    Conflict {
        /// A stable code: `thread_running`, `thread_paused`, `not_paused`,
        /// `unowned_thread`.
        code: &'static str,
        /// What is wrong and what to do.
        message: String,
    },
    /// 413: the body is larger than the server's cap.
    #[error("the request body is larger than the cap of {limit} bytes")]
    PayloadTooLarge {
        /// The cap, in bytes.
        limit: usize,
    },
    /// 500: the thread could not be read or saved.
    #[error("thread storage failed")]
    Thread(#[source] ThreadError),
}

impl ServeError {
    /// The HTTP status the error is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            ServeError::BadRequest(_) => StatusCode::BAD_REQUEST,
            ServeError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            ServeError::Forbidden(_) => StatusCode::FORBIDDEN,
            ServeError::NotFound(_) => StatusCode::NOT_FOUND,
            ServeError::Conflict { .. } => StatusCode::CONFLICT,
            ServeError::PayloadTooLarge { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            ServeError::Thread(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The stable code in the JSON body.
    pub fn code(&self) -> &'static str {
        match self {
            ServeError::BadRequest(_) => "bad_request",
            ServeError::Unauthorized(_) => "unauthorized",
            ServeError::Forbidden(_) => "forbidden",
            ServeError::NotFound(_) => "not_found",
            ServeError::Conflict { code, .. } => code,
            ServeError::PayloadTooLarge { .. } => "payload_too_large",
            ServeError::Thread(_) => "storage",
        }
    }

    pub(crate) fn running(thread_id: &str) -> Self {
        ServeError::Conflict {
            code: "thread_running",
            message: format!(
                "a run is going on in thread `{thread_id}`: wait for it to end (or disconnect it)"
            ),
        }
    }
}

impl From<ThreadError> for ServeError {
    fn from(error: ThreadError) -> Self {
        ServeError::Thread(error)
    }
}

impl IntoResponse for ServeError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, source = ?std::error::Error::source(&self), "request failed");
        }
        // A storage failure's details stay in the log, not in the answer.
        let body = serde_json::json!({
            "error": {
                "status": status.as_u16(),
                "code": self.code(),
                "message": self.to_string(),
            }
        });
        (status, Json(body)).into_response()
    }
}
