//! OpenAI error bodies as typed errors.

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::http::status::{ErrorBody, error_from_status, truncate};
use crate::model::ModelError;

/// The typed error for an HTTP error answer with body `raw` (the key already redacted).
pub(crate) fn error_from_response(status: u16, headers: &HeaderMap, raw: &str) -> ModelError {
    error_from_status(status, headers, parse_error_body(raw), raw)
}

/// Reads `{"error": {"message", "type", "param", "code"}}`, and the variants compatible
/// servers send: `{"error": "text"}` and the fields at the top level (vLLM, numeric codes).
pub(crate) fn parse_error_body(raw: &str) -> ErrorBody {
    let Ok(Value::Object(top)) = serde_json::from_str::<Value>(raw) else {
        return ErrorBody::default();
    };
    let fields = match top.get("error") {
        Some(Value::Object(e)) => e,
        Some(Value::String(message)) => {
            return ErrorBody {
                message: Some(message.clone()),
                ..ErrorBody::default()
            };
        }
        _ => &top,
    };
    let text = |key: &str| match fields.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    ErrorBody {
        message: text("message").or_else(|| text("detail")),
        kind: text("type"),
        param: text("param"),
        code: text("code"),
    }
}

/// The typed error for `{"error": ...}` sent with status 200 (`error` is the envelope's
/// value): classified by its type or code, message, type and code kept.
pub(crate) fn envelope_error(error: &Value) -> ModelError {
    let raw = serde_json::json!({ "error": error }).to_string();
    let body = parse_error_body(&raw);
    crate::http::status::error_from_envelope(
        error_from_response,
        body.kind.as_deref(),
        body.code.as_deref(),
        &raw,
    )
}

/// A readable message for an error reported inside a stream (`data` is the event's data).
pub(crate) fn stream_error_message(data: &str) -> String {
    let body = parse_error_body(data);
    let body = if body.message.is_none() {
        // The `error` value itself, as sent in a chunk's `error` field.
        parse_error_body(&format!("{{\"error\":{data}}}"))
    } else {
        body
    };
    match (body.message, body.kind.or(body.code)) {
        (Some(m), Some(k)) => format!("{m} ({k})"),
        (Some(m), None) => m,
        (None, _) if data.is_empty() => "the server reported an error without details".into(),
        (None, _) => truncate(data, 500),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openai_shape() {
        let b = parse_error_body(
            r#"{"error":{"message":"bad","type":"invalid_request_error","param":"temperature","code":null}}"#,
        );
        assert_eq!(b.message.as_deref(), Some("bad"));
        assert_eq!(b.param.as_deref(), Some("temperature"));
        assert_eq!(b.code, None);
    }

    #[test]
    fn compatible_shapes() {
        let b = parse_error_body(
            r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#,
        );
        assert_eq!(b.message.as_deref(), Some("too long"));
        assert_eq!(b.code.as_deref(), Some("400"));
        let b = parse_error_body(r#"{"error":"model not found"}"#);
        assert_eq!(b.message.as_deref(), Some("model not found"));
        assert_eq!(parse_error_body("<html>502</html>"), ErrorBody::default());
    }

    #[test]
    fn stream_messages() {
        assert_eq!(
            stream_error_message(r#"{"error":{"message":"overloaded","type":"server_error"}}"#),
            "overloaded (server_error)"
        );
        assert_eq!(stream_error_message(r#"{"message":"boom"}"#), "boom");
        assert_eq!(stream_error_message("plain"), "plain");
    }
}
