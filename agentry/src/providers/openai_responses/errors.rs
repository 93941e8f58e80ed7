//! Responses API error bodies (OpenAI's `{"error": {"message", "type", "param", "code"}}`) as
//! typed errors, and errors reported inside a stream (`error` and `response.failed` events).

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::http::status::{ErrorBody, error_from_status, truncate};
use crate::model::ModelError;

/// The typed error for an HTTP error answer (`raw` is already redacted).
pub(crate) fn error_from_response(status: u16, headers: &HeaderMap, raw: &str) -> ModelError {
    let top: Value = serde_json::from_str(raw).unwrap_or(Value::Null);
    let error = top.get("error").filter(|e| e.is_object()).unwrap_or(&top);
    let body = ErrorBody {
        message: text(error, "message"),
        kind: text(error, "type"),
        param: text(error, "param"),
        code: text(error, "code"),
    };
    error_from_status(status, headers, body, raw)
}

/// The typed error for `{"error": {...}}` sent with status 200.
pub(crate) fn envelope_error(error: &Value) -> ModelError {
    let raw = serde_json::json!({ "error": error }).to_string();
    let (kind, code) = (text(error, "type"), text(error, "code"));
    crate::http::status::error_from_envelope(
        error_from_response,
        kind.as_deref(),
        code.as_deref(),
        &raw,
    )
}

fn text(v: &Value, key: &str) -> Option<String> {
    match v.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    }
}

/// The error for an `error` object reported inside a 200 stream (or a failed response).
pub(crate) fn stream_error(error: &Value) -> ModelError {
    let message = match (
        text(error, "message"),
        text(error, "code").or_else(|| text(error, "type")),
    ) {
        (Some(m), Some(c)) => format!("{m} ({c})"),
        (Some(m), None) => m,
        (None, _) => truncate(&error.to_string(), 500),
    };
    ModelError::Stream { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn param_and_context_length() {
        let e = error_from_response(
            400,
            &HeaderMap::new(),
            r#"{"error":{"message":"Unsupported value","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}"#,
        );
        assert!(
            matches!(e, ModelError::InvalidRequest { param: Some(p), .. } if p == "temperature")
        );
        let e = error_from_response(
            400,
            &HeaderMap::new(),
            r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#,
        );
        assert!(matches!(e, ModelError::ContextLengthExceeded { .. }));
        assert_eq!(
            stream_error(&serde_json::json!({"code": "server_error", "message": "boom"})),
            ModelError::Stream {
                message: "boom (server_error)".into()
            }
        );
    }
}
