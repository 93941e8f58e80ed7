//! Attribute values: the conventions' provider names and the `error.type` of each error.

use crate::model::{FinishReason, ModelError};
use crate::run::RunErrorKind;
use crate::tool::ToolCallError;

/// `gen_ai.provider.name` for a model's [`provider`](crate::model::ChatModel::provider): the
/// conventions' well-known value where one applies, else the provider's own name.
pub(crate) fn provider_name(provider: &str) -> &str {
    match provider {
        "gemini" | "google" => "gcp.gemini",
        "openai-responses" => "openai",
        other => other,
    }
}

/// `error.type` of a failed model request: the HTTP status of a server error, else the
/// error's kind.
pub(crate) fn model_error_type(error: &ModelError) -> &'static str {
    match error {
        ModelError::Authentication { .. } => "authentication",
        ModelError::PermissionDenied { .. } => "permission_denied",
        ModelError::NotFound { .. } => "not_found",
        ModelError::RateLimited { .. } => "rate_limited",
        ModelError::InvalidRequest { .. } => "invalid_request",
        ModelError::ContextLengthExceeded { .. } => "context_length_exceeded",
        ModelError::Server { status, .. } => status_str(*status),
        ModelError::Timeout(_) => "timeout",
        ModelError::Network(_) => "network",
        ModelError::Decode(_) => "decode",
        ModelError::Stream { .. } => "stream",
        ModelError::Incomplete(_) => "incomplete",
        ModelError::Unsupported { .. } => "unsupported",
        ModelError::UnsupportedInput { .. } => "unsupported_input",
        ModelError::Schema(_) => "schema",
        ModelError::LimitExceeded { .. } => "response_limit_exceeded",
        ModelError::Configuration(_) => "configuration",
    }
}

/// A server status as a static string (the common ones; `server_error` for the rest).
fn status_str(status: u16) -> &'static str {
    match status {
        500 => "500",
        501 => "501",
        502 => "502",
        503 => "503",
        504 => "504",
        529 => "529",
        _ => "server_error",
    }
}

/// `error.type` of a failed tool call.
pub(crate) fn tool_error_type(error: &ToolCallError) -> &'static str {
    match error {
        ToolCallError::UnknownTool { .. } => "unknown_tool",
        ToolCallError::InvalidArguments { .. } => "invalid_arguments",
        ToolCallError::Inject { .. } => "inject",
        ToolCallError::Failed { .. } => "tool_error",
        ToolCallError::Panicked { .. } => "panicked",
        ToolCallError::TimedOut { .. } => "timed_out",
        ToolCallError::Interrupted { .. } => "interrupted",
        ToolCallError::Blocked { .. } => "guardrail",
    }
}

/// `error.type` of a failed run.
pub(crate) fn run_error_type(error: &RunErrorKind) -> &'static str {
    match error {
        RunErrorKind::Model(e) => model_error_type(e),
        RunErrorKind::LimitExceeded(_) => "limit_exceeded",
        RunErrorKind::ToolRetriesExhausted { .. } => "tool_retries_exhausted",
        RunErrorKind::Tool(_) => "tool_error",
        RunErrorKind::OutputRetriesExhausted { .. } => "output_retries_exhausted",
        RunErrorKind::Refused(_) => "refused",
        RunErrorKind::ReturnDirectOutput { .. } => "return_direct_output",
        RunErrorKind::StateInUse => "state_in_use",
        RunErrorKind::Middleware(_) => "middleware",
        RunErrorKind::Resume(_) => "resume",
        RunErrorKind::Paused { .. } => "paused",
        RunErrorKind::Cost(_) => "unpriced_model",
        RunErrorKind::Thread(_) => "thread",
        RunErrorKind::Store(_) => "store",
        RunErrorKind::Unsealable { .. } => "unsealable",
        RunErrorKind::Guardrail { .. } => "guardrail",
    }
}

/// A finish reason as the conventions spell it (the providers' common names).
pub(crate) fn finish_reason(reason: &FinishReason) -> &str {
    match reason {
        FinishReason::Stop => "stop",
        FinishReason::Length => "length",
        FinishReason::ToolCalls => "tool_calls",
        FinishReason::ContentFilter => "content_filter",
        FinishReason::Refusal => "refusal",
        FinishReason::Other(other) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_errors_report_their_status() {
        let e = ModelError::Server {
            status: 503,
            message: "x".into(),
        };
        assert_eq!(model_error_type(&e), "503");
        let e = ModelError::Server {
            status: 599,
            message: "x".into(),
        };
        assert_eq!(model_error_type(&e), "server_error");
        assert_eq!(provider_name("gemini"), "gcp.gemini");
        assert_eq!(provider_name("ollama"), "ollama");
    }
}
