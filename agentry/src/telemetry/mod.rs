//! GenAI spans and metrics, after the OpenTelemetry GenAI semantic conventions.
//!
//! Every run, model request and tool call is a [`tracing`] span named and attributed as the
//! conventions say ([`SEMCONV`] names the version followed):
//!
//! | span | `otel.name` | kind | made by |
//! |---|---|---|---|
//! | `invoke_agent` | `invoke_agent {gen_ai.agent.name}` | internal | every agent run ([`Agent::run`](crate::agent::Agent::run), `stream`, `resume`, ...) |
//! | `chat` | `chat {gen_ai.request.model}` | client | every request of a provider model, whole or streamed |
//! | `execute_tool` | `execute_tool {gen_ai.tool.name}` | internal | every tool call of a run, parallel ones included |
//!
//! Tool and chat spans are children of their run's span, also when calls run in parallel and
//! when the run is streamed. Attributes: `gen_ai.operation.name`, `gen_ai.provider.name`,
//! `gen_ai.agent.name`, `gen_ai.request.model` / `temperature` / `top_p` / `max_tokens` /
//! `seed`, `gen_ai.response.model` / `id` / `finish_reasons`, `gen_ai.usage.input_tokens` /
//! `output_tokens` / `cache_read.input_tokens` / `cache_creation.input_tokens` /
//! `reasoning.output_tokens`, `gen_ai.tool.name` / `call.id` / `type`,
//! `gen_ai.conversation.id` (see [`in_conversation`]), `server.address` /
//! `server.port`, and `error.type` with an error status when the operation failed (the
//! error's kind in snake case, e.g. `rate_limited`, `timed_out`, `limit_exceeded`, or the
//! HTTP status of a server error). A retried request records each retry as an event
//! (`retrying`) of its `chat` span; an invalid final answer sent back for correction is an
//! event (`re-ask`) of the run's span.
//!
//! Message content (`gen_ai.input.messages`, `gen_ai.output.messages`,
//! `gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`) is recorded only after
//! [`set_capture_content(true)`](set_capture_content); API keys never are: no header, no
//! URL query and no error message reaches a span.
//!
//! Metrics: the `gen_ai.client.token.usage` (`{token}`) and
//! `gen_ai.client.operation.duration` (`s`) histograms, with the conventions' attributes and
//! bucket boundaries, recorded for every provider request with the `otel` feature: with a
//! meter of the global OpenTelemetry meter provider (`opentelemetry::global`), whose scope
//! is this crate's (name `agentry`, its version, [`SCHEMA_URL`]), unless a meter was
//! installed with [`otel::install_meter`]. A program that installs its own global tracer
//! provider gets the spans in the same scope by adding [`otel::layer`] to its subscriber.
//!
//! Spans cost next to nothing without a subscriber: creating one is a check of a static
//! interest, and no attribute is formatted unless the span is enabled.
//!
//! With the `otel` cargo feature, [`otel::OtelConfig`] sends all of it over OTLP/HTTP in one
//! call:
//!
//! ```no_run
//! # #[cfg(feature = "otel")]
//! # async fn demo() -> Result<(), agentry::telemetry::otel::OtelError> {
//! let telemetry = agentry::telemetry::otel::OtelConfig::new("my-service")
//!     .endpoint("http://localhost:4318")
//!     .install()?;
//! // ... run agents ...
//! telemetry.shutdown().await?;
//! # Ok(()) }
//! ```

/// The version of the semantic conventions followed, for [`SEMCONV`] and [`SCHEMA_URL`].
macro_rules! semconv {
    () => {
        "1.38.0"
    };
}

mod attrs;
mod content;
pub(crate) mod metrics;
pub(crate) mod spans;

#[cfg(feature = "otel")]
pub mod otel;

pub use content::{capture_content, set_capture_content};
pub use spans::in_conversation;

/// The OpenTelemetry semantic conventions this module follows: the GenAI conventions
/// (status: development) in the `gen_ai_latest_experimental` form that followed v1.36.0
/// (`gen_ai.provider.name`, `gen_ai.usage.cache_read.input_tokens`, ...), as published
/// with semantic conventions v1.38.0.
pub const SEMCONV: &str = semconv!();

/// The schema URL of the semantic conventions [`SEMCONV`] names, the schema URL of this
/// crate's OpenTelemetry instrumentation scope.
pub const SCHEMA_URL: &str = concat!("https://opentelemetry.io/schemas/", semconv!());

/// The `tracing` target of every span and event of this module.
pub const TARGET: &str = "agentry::gen_ai";
