//! Gemini error bodies as typed errors.
//!
//! Google APIs answer `{"error": {"code", "message", "status", "details": [...]}}`. Besides the
//! status mapping of [`error_from_status`]: an invalid key (a 400 whose details give the reason
//! `API_KEY_INVALID`) is [`ModelError::Authentication`]; a `BadRequest` detail's first field
//! violation names the parameter; a `RetryInfo` detail's `retryDelay` is the wait when no
//! `Retry-After` header came; an input over the token limit is
//! [`ModelError::ContextLengthExceeded`].

use reqwest::header::{HeaderMap, HeaderValue};
use serde_json::Value;

use crate::http::status::{ErrorBody, error_from_status, truncate};
use crate::model::ModelError;

/// The typed error for an HTTP error answer (`raw` is already redacted).
pub(crate) fn error_from_response(status: u16, headers: &HeaderMap, raw: &str) -> ModelError {
    let top: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
    let error = top.get("error").unwrap_or(&top);
    let details = error
        .get("details")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let text = |v: &Value, key: &str| {
        v.get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let message = text(error, "message");
    let reason = details.iter().find_map(|d| text(d, "reason"));
    if reason.as_deref() == Some("API_KEY_INVALID") {
        return ModelError::Authentication {
            message: message.unwrap_or_else(|| "API key not valid".into()),
        };
    }
    let param = details
        .iter()
        .filter_map(|d| d.get("fieldViolations").and_then(Value::as_array))
        .flatten()
        .find_map(|v| text(v, "field"));
    let too_long = message.as_deref().is_some_and(|m| {
        let m = m.to_ascii_lowercase();
        m.contains("exceeds the maximum number of tokens") || m.contains("input token count")
    });
    let mut headers = headers.clone();
    if !headers.contains_key("retry-after")
        && let Some(delay) = details.iter().find_map(|d| text(d, "retryDelay"))
        && let Ok(secs) = delay.trim_end_matches('s').parse::<f64>()
        && let Ok(value) = HeaderValue::from_str(&secs.to_string())
    {
        headers.insert("retry-after", value);
    }
    let body = ErrorBody {
        message,
        kind: text(error, "status"),
        param,
        code: too_long.then(|| "context_length_exceeded".to_owned()),
    };
    error_from_status(status, &headers, body, raw)
}

/// The typed error for `{"error": {"code", "message", "status"}}` sent with status 200.
pub(crate) fn envelope_error(error: &Value) -> ModelError {
    let raw = serde_json::json!({ "error": error }).to_string();
    let status = error.get("status").and_then(Value::as_str);
    let code = error.get("code").map(|c| match c {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    crate::http::status::error_from_envelope(error_from_response, status, code.as_deref(), &raw)
}

/// The error for an `error` object inside a 200 stream.
pub(crate) fn stream_error(error: &Value) -> ModelError {
    let message = error.get("message").and_then(Value::as_str);
    let status = error.get("status").and_then(Value::as_str);
    ModelError::Stream {
        message: match (message, status) {
            (Some(m), Some(s)) => format!("{m} ({s})"),
            (Some(m), None) => m.to_owned(),
            _ => truncate(&error.to_string(), 500),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn classes() {
        let bad_key = r#"{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#;
        assert!(matches!(
            error_from_response(400, &HeaderMap::new(), bad_key),
            ModelError::Authentication { .. }
        ));
        let quota = r#"{"error":{"code":429,"message":"Resource exhausted","status":"RESOURCE_EXHAUSTED",
            "details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7s"}]}}"#;
        assert_eq!(
            error_from_response(429, &HeaderMap::new(), quota).retry_after(),
            Some(Duration::from_secs(7))
        );
        let field = r#"{"error":{"code":400,"message":"Invalid value","status":"INVALID_ARGUMENT",
            "details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"generation_config.temperature","description":"out of range"}]}]}}"#;
        assert!(matches!(error_from_response(400, &HeaderMap::new(), field),
            ModelError::InvalidRequest { param: Some(p), .. } if p == "generation_config.temperature"));
        let long = r#"{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#;
        assert!(matches!(
            error_from_response(400, &HeaderMap::new(), long),
            ModelError::ContextLengthExceeded { .. }
        ));
    }
}
