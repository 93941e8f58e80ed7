//! Timeouts and transport-level failures.

use std::error::Error as _;
use std::time::Duration;

use super::ApiKey;
use super::secret::redact_opt;
use crate::model::ModelError;

/// How long a request may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP (and TLS) connection.
    pub connect: Duration,
    /// A whole non-streamed request; for a streamed one, the wait for the response headers.
    pub request: Duration,
    /// For a streamed answer, the longest silence between two pieces of the body.
    pub stream_idle: Duration,
}

impl Default for Timeouts {
    /// 10 s to connect, 10 min per request, 2 min of silence in a stream.
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            request: Duration::from_secs(600),
            stream_idle: Duration::from_secs(120),
        }
    }
}

/// The typed error for a failed `reqwest` request. The URL is left out (it may carry
/// credentials in a query string) and `key` is redacted from the message.
pub(crate) fn map_reqwest_error(
    err: reqwest::Error,
    timeout: Duration,
    key: Option<&ApiKey>,
) -> ModelError {
    if err.is_timeout() {
        return ModelError::Timeout(timeout);
    }
    let is_connect = err.is_connect();
    let is_decode = err.is_decode();
    let err = err.without_url();
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    let message = redact_opt(key, &message);
    if is_decode {
        ModelError::Decode(message)
    } else if is_connect {
        ModelError::Network(format!("could not connect: {message}"))
    } else {
        ModelError::Network(message)
    }
}

/// The typed error for a failure while reading a response body, after the headers arrived: a
/// reset or any other I/O error is [`ModelError::Network`] (retryable), never a decode error —
/// the bytes never arrived, so there was nothing to decode. `what` says where it happened
/// (e.g. "while reading the answer", "the stream was cut").
pub(crate) fn map_body_error(
    err: reqwest::Error,
    timeout: Duration,
    key: Option<&ApiKey>,
    what: &str,
) -> ModelError {
    if err.is_timeout() {
        return ModelError::Timeout(timeout);
    }
    let err = err.without_url();
    let mut message = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    ModelError::Network(redact_opt(key, &format!("{what}: {message}")))
}
