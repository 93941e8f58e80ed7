//! Errors from model requests.

use std::time::Duration;

use crate::schema::SchemaError;

/// Why a model request failed. Provider messages are kept; API keys never appear.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ModelError {
    /// The API key is missing, wrong or revoked (HTTP 401).
    #[error("authentication failed: {message}")]
    Authentication {
        /// The provider's message.
        message: String,
    },
    /// The key may not use this model or endpoint (HTTP 403).
    #[error("permission denied: {message}")]
    PermissionDenied {
        /// The provider's message.
        message: String,
    },
    /// The model or endpoint does not exist (HTTP 404).
    #[error("not found: {message}")]
    NotFound {
        /// The provider's message.
        message: String,
    },
    /// Too many requests (HTTP 429); `retry_after` is the server's hint, if it gave one.
    #[error("rate limited: {message}")]
    RateLimited {
        /// The provider's message.
        message: String,
        /// How long the server asked to wait.
        retry_after: Option<Duration>,
    },
    /// The request is malformed or has an unsupported value (HTTP 400, 422).
    #[error("invalid request{}: {message}", param.as_deref().map(|p| format!(" (parameter `{p}`)")).unwrap_or_default())]
    InvalidRequest {
        /// The provider's message.
        message: String,
        /// The offending parameter, when the provider names it.
        param: Option<String>,
    },
    /// The conversation does not fit in the model's context window.
    #[error("context length exceeded: {message}")]
    ContextLengthExceeded {
        /// The provider's message.
        message: String,
    },
    /// The provider failed (HTTP 5xx, overloaded), or said so in an error envelope inside an
    /// HTTP 200 answer (`status` is then 200).
    #[error("server error ({}): {message}", match status { 200 => "error in a 200 response".to_string(), s => format!("HTTP {s}") })]
    Server {
        /// The HTTP status (200 for an error envelope in a successful answer).
        status: u16,
        /// The provider's message.
        message: String,
    },
    /// The request took longer than its timeout.
    #[error("request timed out after {0:?}")]
    Timeout(Duration),
    /// The connection failed or dropped.
    #[error("network error: {0}")]
    Network(String),
    /// The answer could not be decoded.
    #[error("could not decode the provider's answer: {0}")]
    Decode(String),
    /// The provider reported an error inside a successful (HTTP 200) stream.
    #[error("error in stream: {message}")]
    Stream {
        /// The provider's message.
        message: String,
    },
    /// The stream ended before the answer was complete.
    #[error("stream ended before the answer was complete: {0}")]
    Incomplete(String),
    /// The model cannot honour a setting of the request.
    #[error("{model} does not support {setting}")]
    Unsupported {
        /// The model.
        model: String,
        /// The setting, e.g. `tool_choice: required`.
        setting: String,
    },
    /// A message carries a part (a document, audio, an image) the provider's API or the model
    /// cannot take; found before the request is sent.
    #[error("{provider} model `{model}` cannot take {part} (message {message}): {reason}")]
    UnsupportedInput {
        /// The provider, e.g. `anthropic`.
        provider: String,
        /// The model.
        model: String,
        /// The kind of part.
        part: crate::media::PartKind,
        /// The index of the message carrying it in the request.
        message: usize,
        /// Why it is refused.
        reason: String,
    },
    /// A tool or output schema cannot be expressed for this provider.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The answer went over one of the model's [`ResponseLimits`](crate::http::ResponseLimits)
    /// (a hostile or broken server); the request is abandoned and not retried.
    #[error("the answer exceeded the {limit} of {}; raise it on the model builder if this answer is expected", crate::http::limits::describe(*limit, *max))]
    LimitExceeded {
        /// The cap.
        limit: crate::http::ResponseLimit,
        /// Its value.
        max: usize,
    },
    /// The model is not configured correctly (a missing API key, an unknown provider).
    #[error("configuration error: {0}")]
    Configuration(String),
}

impl ModelError {
    /// Whether retrying the same request may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            ModelError::RateLimited { .. }
                | ModelError::Server { .. }
                | ModelError::Timeout(_)
                | ModelError::Network(_)
        )
    }

    /// The wait the server asked for, if any.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            ModelError::RateLimited { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}
