//! Mapping an HTTP error answer to a typed [`ModelError`].

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

use crate::model::ModelError;

/// The parts of a provider's error body the SDK interprets (OpenAI's
/// `{"error": {"message", "type", "param", "code"}}`; other providers fill what they have).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ErrorBody {
    /// The human-readable message.
    pub message: Option<String>,
    /// The error type, e.g. `invalid_request_error`.
    pub kind: Option<String>,
    /// The offending request parameter.
    pub param: Option<String>,
    /// A machine-readable code, e.g. `context_length_exceeded`.
    pub code: Option<String>,
}

/// The server's requested wait: `retry-after-ms` (milliseconds), else `Retry-After` as
/// seconds (possibly fractional) or as an HTTP date.
///
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    if let Some(ms) = header_str(headers, "retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header_str(headers, "retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (secs.is_finite() && secs >= 0.0).then(|| Duration::from_secs_f64(secs));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(
        date.duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO),
    )
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name)?.to_str().ok().map(str::trim)
}

/// The typed error for an HTTP error answer. `raw` is the body as text, used as the message
/// when the body carries none.
///
/// * 401 → `Authentication`; 403 → `PermissionDenied`; 404 → `NotFound`;
/// * 429 → `RateLimited` with the server's wait — except OpenAI's `insufficient_quota`, which
///   is a billing problem that no retry fixes and becomes `PermissionDenied`;
/// * 400, 413, 422 → `ContextLengthExceeded` when the code (or, for servers without codes,
///   the message) says the context is too long, else `InvalidRequest` with the parameter;
/// * 408 → `Timeout`; 409 and 5xx → `Server` (retryable); anything else → `InvalidRequest`.
pub(crate) fn error_from_status(
    status: u16,
    headers: &HeaderMap,
    body: ErrorBody,
    raw: &str,
) -> ModelError {
    let message = body
        .message
        .clone()
        .filter(|m| !m.is_empty())
        .unwrap_or_else(|| {
            let raw = raw.trim();
            if raw.is_empty() {
                format!("HTTP {status} with an empty body")
            } else {
                truncate(raw, 1000)
            }
        });
    let code = body.code.as_deref().unwrap_or_default();
    match status {
        401 => ModelError::Authentication { message },
        403 => ModelError::PermissionDenied { message },
        404 => ModelError::NotFound { message },
        429 if code == "insufficient_quota" => ModelError::PermissionDenied { message },
        429 => ModelError::RateLimited {
            message,
            retry_after: retry_after(headers),
        },
        400 | 413 | 422 if is_context_length(code, &message) => {
            ModelError::ContextLengthExceeded { message }
        }
        408 => ModelError::Timeout(retry_after(headers).unwrap_or_default()),
        409 | 500..=599 => ModelError::Server { status, message },
        _ => ModelError::InvalidRequest {
            message,
            param: body.param,
        },
    }
}

/// The HTTP status a provider's error type or code stands for, for an error envelope that came
/// in a 200 answer (OpenAI and compatible servers, Anthropic and Gemini name the class; a
/// numeric code in 400..=599 is taken as the status). `None` when nothing says.
pub(crate) fn status_of_error(kind: Option<&str>, code: Option<&str>) -> Option<u16> {
    if let Some(n) = code
        .and_then(|c| c.parse::<u16>().ok())
        .filter(|n| (400..=599).contains(n))
    {
        return Some(n);
    }
    let by_name = |name: &str| {
        Some(match name {
            "invalid_request_error"
            | "INVALID_ARGUMENT"
            | "FAILED_PRECONDITION"
            | "OUT_OF_RANGE"
            | "invalid_argument"
            | "context_length_exceeded"
            | "BadRequestError" => 400,
            "authentication_error" | "invalid_api_key" | "UNAUTHENTICATED" => 401,
            "permission_error" | "permission_denied" | "PERMISSION_DENIED"
            | "insufficient_quota" | "billing_error" => 403,
            "not_found_error" | "model_not_found" | "NOT_FOUND" => 404,
            "request_too_large" => 413,
            "rate_limit_error"
            | "rate_limit_exceeded"
            | "RESOURCE_EXHAUSTED"
            | "tokens"
            | "requests" => 429,
            "api_error" | "server_error" | "internal_error" | "INTERNAL" | "UNKNOWN" => 500,
            "UNAVAILABLE" | "service_unavailable" => 503,
            "DEADLINE_EXCEEDED" | "timeout_error" => 504,
            "overloaded_error" => 529,
            _ => return None,
        })
    };
    // A specific code (e.g. `insufficient_quota` with type `rate_limit_error`) decides first.
    code.and_then(by_name).or_else(|| kind.and_then(by_name))
}

/// `err` with `detail` appended to its provider message (e.g. the type and code of an error
/// envelope, which the typed error has no field for).
pub(crate) fn with_detail(err: ModelError, detail: &str) -> ModelError {
    if detail.is_empty() {
        return err;
    }
    let add = |m: String| format!("{m} ({detail})");
    match err {
        ModelError::Authentication { message } => ModelError::Authentication {
            message: add(message),
        },
        ModelError::PermissionDenied { message } => ModelError::PermissionDenied {
            message: add(message),
        },
        ModelError::NotFound { message } => ModelError::NotFound {
            message: add(message),
        },
        ModelError::RateLimited {
            message,
            retry_after,
        } => ModelError::RateLimited {
            message: add(message),
            retry_after,
        },
        ModelError::InvalidRequest { message, param } => ModelError::InvalidRequest {
            message: add(message),
            param,
        },
        ModelError::ContextLengthExceeded { message } => ModelError::ContextLengthExceeded {
            message: add(message),
        },
        ModelError::Server { status, message } => ModelError::Server {
            status,
            message: add(message),
        },
        ModelError::Stream { message } => ModelError::Stream {
            message: add(message),
        },
        other => other,
    }
}

/// `type `x`, code `y`` for the parts that are present.
pub(crate) fn type_and_code(kind: Option<&str>, code: Option<&str>) -> String {
    let mut parts = Vec::new();
    if let Some(k) = kind.filter(|k| !k.is_empty()) {
        parts.push(format!("type `{k}`"));
    }
    if let Some(c) = code.filter(|c| !c.is_empty()) {
        parts.push(format!("code `{c}`"));
    }
    parts.join(", ")
}

/// The typed error for an error envelope in a 200 answer: the class from the error's type
/// or code (a server error when neither says), the message kept, the type and code appended.
pub(crate) fn error_from_envelope(
    mapper: fn(u16, &HeaderMap, &str) -> ModelError,
    kind: Option<&str>,
    code: Option<&str>,
    raw: &str,
) -> ModelError {
    let status = status_of_error(kind, code).unwrap_or(500);
    let err = match mapper(status, &HeaderMap::new(), raw) {
        // The class came from the envelope, the status was 200: say so, not "HTTP 500".
        ModelError::Server { message, .. } => ModelError::Server {
            status: 200,
            message,
        },
        other => other,
    };
    with_detail(err, &type_and_code(kind, code))
}

fn is_context_length(code: &str, message: &str) -> bool {
    if code == "context_length_exceeded" || code == "string_above_max_length" {
        return true;
    }
    let m = message.to_ascii_lowercase();
    m.contains("maximum context length")
        || m.contains("context length exceeded")
        || m.contains("context_length_exceeded")
        || m.contains("context window")
}

pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    #[test]
    fn retry_after_reads_seconds_then_milliseconds() {
        use reqwest::header::{HeaderMap, HeaderValue};
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("2"));
        assert_eq!(super::retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", HeaderValue::from_static("150"));
        assert_eq!(super::retry_after(&h), Some(Duration::from_millis(150)));
    }

    use reqwest::header::HeaderValue;

    use super::*;

    #[test]
    fn a_server_error_in_a_200_answer_says_so() {
        let mapper = |status, _: &HeaderMap, raw: &str| ModelError::Server {
            status,
            message: raw.to_string(),
        };
        let err = error_from_envelope(mapper, Some("overloaded_error"), None, "Overloaded");
        assert!(err.is_retryable());
        assert_eq!(
            err.to_string(),
            "server error (error in a 200 response): Overloaded (type `overloaded_error`)"
        );
    }

    #[test]
    fn retry_after_http_date_in_the_past_is_zero() {
        let mut h = HeaderMap::new();
        h.insert(
            "retry-after",
            HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"),
        );
        assert_eq!(retry_after(&h), Some(Duration::ZERO));
    }

    #[test]
    fn retry_after_http_date_in_the_future() {
        let mut h = HeaderMap::new();
        let future = SystemTime::now() + Duration::from_secs(120);
        h.insert(
            "retry-after",
            HeaderValue::from_str(&httpdate::fmt_http_date(future)).unwrap(),
        );
        let wait = retry_after(&h).unwrap();
        assert!(
            wait > Duration::from_secs(100) && wait <= Duration::from_secs(120),
            "{wait:?}"
        );
    }

    #[test]
    fn garbage_retry_after_is_ignored() {
        let mut h = HeaderMap::new();
        h.insert("retry-after", HeaderValue::from_static("soon"));
        assert_eq!(retry_after(&h), None);
        h.insert("retry-after", HeaderValue::from_static("-3"));
        assert_eq!(retry_after(&h), None);
    }

    #[test]
    fn empty_body_gets_a_message() {
        let e = error_from_status(502, &HeaderMap::new(), ErrorBody::default(), "");
        assert_eq!(
            e.to_string(),
            "server error (HTTP 502): HTTP 502 with an empty body"
        );
    }

    #[test]
    fn quota_is_not_a_rate_limit() {
        let body = ErrorBody {
            message: Some("You exceeded your current quota".into()),
            code: Some("insufficient_quota".into()),
            ..ErrorBody::default()
        };
        let e = error_from_status(429, &HeaderMap::new(), body, "");
        assert!(matches!(e, ModelError::PermissionDenied { .. }));
        assert!(!e.is_retryable());
    }

    #[test]
    fn truncate_respects_char_boundaries() {
        assert_eq!(truncate("ééé", 3), "é…");
    }
}
