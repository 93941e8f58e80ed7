//! What a provider's wire format must supply to run the scenarios: a model pointed at the
//! test server, replies rendered in the provider's documented format, and assertions on the
//! request bodies the provider must receive.

use std::time::Duration;

use agentry::http::{ResponseLimits, RetryPolicy};
use agentry::model::SharedModel;
use serde_json::{Value, json};

use super::server::{Recorded, Reply};

/// A model's answer, provider-neutral. Tool call arguments are JSON objects.
#[derive(Clone, Debug)]
pub struct Turn {
    pub text: Option<String>,
    pub calls: Vec<Call>,
    pub usage: TurnUsage,
    pub finish: Finish,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Call {
    /// The provider's id; formats without ids (Gemini) ignore it.
    pub id: String,
    pub name: String,
    pub args: Value,
}

/// Usage in the SDK's terms: `input` includes `cached`, `output` includes `reasoning`.
#[derive(Clone, Copy, Debug, Default)]
pub struct TurnUsage {
    pub input: u64,
    pub cached: u64,
    pub output: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Finish {
    Stop,
    ToolCalls,
    Length,
}

/// An error answer to render.
#[derive(Clone, Copy, Debug)]
pub enum ErrorCase {
    Unauthorized,
    Forbidden,
    NotFound,
    /// With `Retry-After` in seconds.
    RateLimited(f64),
    /// A 400 naming a parameter, which the wire returns from [`Wire::bad_param`].
    BadParam,
    Server,
    ContextLength,
}

/// A tool result as sent back, provider-neutral.
#[derive(Clone, Debug, PartialEq)]
pub struct SentResult {
    /// `None` for formats that match results by name (Gemini).
    pub id: Option<String>,
    pub name: Option<String>,
    pub output: String,
}

/// One provider's wire format.
pub trait Wire: Sync {
    /// For assertion messages.
    fn name(&self) -> &'static str;

    /// A model talking to the server at `base` (`http://127.0.0.1:<port>`), with one fast retry.
    fn model(&self, base: &str) -> SharedModel {
        self.model_with_limits(base, ResponseLimits::default())
    }

    /// [`model`](Self::model) with these caps.
    fn model_with_limits(&self, base: &str, limits: ResponseLimits) -> SharedModel;

    /// A successful answer, whole or streamed.
    fn reply(&self, turn: &Turn, stream: bool) -> Reply;

    /// A streamed answer that stops after `partial` text, before the provider's end marker.
    fn cut_stream(&self, partial: &str) -> Reply;

    /// A 200 stream that reports an error with `message` (in the provider's error object)
    /// after `partial` text.
    fn stream_error(&self, partial: &str, message: &str) -> Reply;

    /// An error envelope, as some servers send it with status 200: a rate limit, or an
    /// invalid request.
    fn error_envelope(&self, message: &str, rate_limited: bool) -> Value;

    /// `temperature` and `top_p` as sent (JSON `null` when absent).
    fn sampling(&self, body: &Value) -> (Value, Value);

    /// An error answer.
    fn error(&self, case: ErrorCase) -> Reply;

    /// The parameter the `BadParam` error names.
    fn bad_param(&self) -> &'static str;

    /// Whether `request` went to the streaming endpoint / asked for a stream.
    fn is_stream(&self, request: &Recorded) -> bool;

    /// Asserts the request's path and auth headers.
    fn assert_endpoint(&self, request: &Recorded, stream: bool);

    /// Asserts the tool definitions (in the provider's dialect) and the tool choice, named the
    /// SDK's way (`auto`, `required`, `none` or a tool name), and that parallel calls are
    /// disabled when `parallel` is `Some(false)`.
    fn assert_tools(
        &self,
        body: &Value,
        tools: &[agentry::ToolDefinition],
        choice: &str,
        parallel: Option<bool>,
    );

    /// The system prompt as sent.
    fn system(&self, body: &Value) -> Option<String>;

    /// The tool calls of the last assistant turn and the results after them, as sent, and
    /// asserts the provider's grouping rules (e.g. Anthropic's one user turn for all results).
    fn sent_calls_and_results(&self, body: &Value) -> (Vec<Call>, Vec<SentResult>);

    /// Asserts native structured output with `schema` (the canonical schema) was asked for.
    fn assert_structured(&self, body: &Value, name: &str, schema: &Value);

    /// Whether the provider's ids survive (false for formats that synthesize ids).
    fn has_call_ids(&self) -> bool {
        true
    }
}

/// The retry policy every conformance model uses: one retry, 1 ms backoff.
pub fn fast_retry() -> RetryPolicy {
    RetryPolicy::default()
        .max_retries(1)
        .initial_delay(Duration::from_millis(1))
        .max_delay(Duration::from_millis(5))
        .jitter(false)
}

/// The error body both OpenAI APIs (Chat Completions and Responses) send.
pub fn openai_error_body(
    message: &str,
    kind: &str,
    param: Option<&str>,
    code: Option<&str>,
) -> Value {
    json!({ "error": { "message": message, "type": kind, "param": param, "code": code } })
}
