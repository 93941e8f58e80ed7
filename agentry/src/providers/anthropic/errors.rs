//! Anthropic error bodies as typed errors.
//!
//! Anthropic answers errors with `{"type": "error", "error": {"type": "...", "message": "..."}}`
//! and the same object as an `error` event inside a stream. The status decides the class
//! ([`error_from_status`]); on top of that, a prompt that is too long becomes
//! [`ModelError::ContextLengthExceeded`], and the parameter a 400 names at the start of its
//! message (`max_tokens: Field required`) becomes the error's `param`.

use reqwest::header::HeaderMap;
use serde_json::Value;

use crate::http::status::{ErrorBody, error_from_status, truncate};
use crate::model::ModelError;

/// The typed error for an HTTP error answer (`raw` is already redacted).
pub(crate) fn error_from_response(status: u16, headers: &HeaderMap, raw: &str) -> ModelError {
    error_from_status(status, headers, parse_error_body(raw), raw)
}

/// Reads `{"error": {"type", "message"}}`.
pub(crate) fn parse_error_body(raw: &str) -> ErrorBody {
    let Ok(top) = serde_json::from_str::<Value>(raw) else {
        return ErrorBody::default();
    };
    let error = top.get("error").unwrap_or(&top);
    let text = |key: &str| {
        error
            .get(key)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
    };
    let message = text("message");
    let kind = text("type");
    let too_long = message.as_deref().is_some_and(is_prompt_too_long);
    ErrorBody {
        param: message.as_deref().and_then(param_of),
        code: if too_long {
            Some("context_length_exceeded".into())
        } else {
            kind.clone()
        },
        message,
        kind,
    }
}

fn is_prompt_too_long(message: &str) -> bool {
    let m = message.to_ascii_lowercase();
    m.contains("prompt is too long")
        || m.contains("input is too long")
        || m.contains("context window")
}

/// `messages.1.content.0.tool_use.input: Input should be a valid dictionary` names
/// `messages.1.content.0.tool_use.input`.
fn param_of(message: &str) -> Option<String> {
    let (head, _) = message.split_once(": ")?;
    let ok = !head.is_empty()
        && head.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && head
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'));
    ok.then(|| head.to_owned())
}

/// The typed error for `{"type": "error", "error": {"type", "message"}}` sent with status 200.
pub(crate) fn envelope_error(error: &Value) -> ModelError {
    let raw = serde_json::json!({ "type": "error", "error": error }).to_string();
    let kind = error.get("type").and_then(Value::as_str);
    crate::http::status::error_from_envelope(error_from_response, kind, None, &raw)
}

/// The error for an `error` event inside a 200 stream.
pub(crate) fn stream_error(data: &str) -> ModelError {
    let body = parse_error_body(data);
    let message = match (body.message, body.kind) {
        (Some(m), Some(k)) => format!("{m} ({k})"),
        (Some(m), None) => m,
        (None, _) if data.trim().is_empty() => {
            "the server reported an error without details".into()
        }
        (None, _) => truncate(data, 500),
    };
    ModelError::Stream { message }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn err(status: u16, raw: &str) -> ModelError {
        error_from_response(status, &HeaderMap::new(), raw)
    }

    #[test]
    fn classes() {
        let e = err(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}"#,
        );
        assert_eq!(
            e,
            ModelError::InvalidRequest {
                message: "max_tokens: Field required".into(),
                param: Some("max_tokens".into())
            }
        );
        let e = err(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
        );
        assert!(
            matches!(e, ModelError::ContextLengthExceeded { .. }),
            "{e:?}"
        );
        let e = err(
            529,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        );
        assert_eq!(
            e,
            ModelError::Server {
                status: 529,
                message: "Overloaded".into()
            }
        );
        assert!(e.is_retryable());
        let e = err(
            401,
            r#"{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}"#,
        );
        assert!(matches!(e, ModelError::Authentication { .. }));
    }

    #[test]
    fn sentences_are_not_params() {
        assert_eq!(
            param_of("Your credit balance is too low: please top up"),
            None
        );
        assert_eq!(param_of("no colon here"), None);
    }

    #[test]
    fn stream_errors() {
        assert_eq!(
            stream_error(
                r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#
            ),
            ModelError::Stream {
                message: "Overloaded (overloaded_error)".into()
            }
        );
        assert_eq!(
            stream_error("oops"),
            ModelError::Stream {
                message: "oops".into()
            }
        );
    }
}
