//! The spans: `invoke_agent` per run, `chat` per model request, `execute_tool` per tool call.
//!
//! Each constructor declares every attribute its span may get (`tracing` needs them up
//! front) and formats nothing while the span is disabled, so a program without a subscriber
//! pays one interest check per span.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Instant;

use futures::Stream;
use tracing::Span;
use tracing::field::Empty;

use super::attrs::{finish_reason, model_error_type, provider_name, run_error_type};
use super::{TARGET, content, metrics};
use crate::message::ToolCall;
use crate::model::{ChatRequest, ChatResponse, EventStream, ModelError, StreamEvent};
use crate::run::{Outcome, RunError};
use crate::tool::{ToolCallError, ToolOutput};
use crate::usage::Usage;

tokio::task_local! {
    static CONVERSATION: Arc<str>;
}

/// Runs `fut` as part of conversation `id` (a thread, a session): the `invoke_agent` and
/// `chat` spans started inside it carry `gen_ai.conversation.id = id`.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")] async fn main() {
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::telemetry::in_conversation;
/// use agentry::testing::{ScriptedModel, Turn};
///
/// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("hi")]), NoTools).build();
/// let run = in_conversation("thread-7", agent.run("Hello", ())).await.unwrap();
/// assert_eq!(run.output, "hi");
/// # }
/// ```
pub fn in_conversation<F: Future>(
    id: impl Into<Arc<str>>,
    fut: F,
) -> tokio::task::futures::TaskLocalFuture<Arc<str>, F> {
    // Not an `async fn`: the returned future's type does not name `id`, so an id of the wrong
    // type is one error at the call, not one more at the `.await`.
    CONVERSATION.scope(id.into(), fut)
}

/// The current conversation's id, if there is one.
fn conversation() -> Option<Arc<str>> {
    CONVERSATION.try_with(Arc::clone).ok()
}

/// A span's `otel.name`: the operation, then the name of what it operates on (if any),
/// written straight into the exporter's name (no `String` made here).
struct OtelName<'a>(&'static str, Option<&'a str>);

impl std::fmt::Display for OtelName<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(name) => write!(f, "{} {name}", self.0),
            None => f.write_str(self.0),
        }
    }
}

pin_project_lite::pin_project! {
    /// `inner` polled inside `span`; a disabled span is not entered at all (entering even a
    /// disabled span costs a few hundred instructions per run with `tracing`'s `log` feature).
    /// Built in place by the function that returns it, so the (large) run future is not moved
    /// once more.
    pub(crate) struct InSpan<F> {
        #[pin]
        inner: F,
        span: Span,
    }
}

impl<F> InSpan<F> {
    pub(crate) fn new(inner: F, span: Span) -> Self {
        InSpan { inner, span }
    }
}

impl<F: Future> Future for InSpan<F> {
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if this.span.is_disabled() {
            return this.inner.poll(cx);
        }
        let _entered = this.span.enter();
        this.inner.poll(cx)
    }
}

pin_project_lite::pin_project! {
    /// A run's future under its `invoke_agent` span, recording the outcome on it.
    ///
    /// The driver puts the (boxed) loop in it, not the loop itself: the wrapper is a few
    /// words, so making it and moving it copies no more than the box's pointer and the span.
    ///
    /// The span is made when the run is first polled, not when the run is started: a run
    /// method returns its future at once, and the subscriber, the parent span and the
    /// conversation the caller gives it (`.with_subscriber(..)`, `.instrument(..)`,
    /// [`in_conversation`]) are in effect only where it is polled.
    pub(crate) struct TracedRun<'a, F> {
        #[pin]
        inner: F,
        span: Option<Span>,
        agent: Option<&'a str>,
        model: &'a dyn crate::model::ChatModel,
    }
}

impl<'a, F> TracedRun<'a, F> {
    /// `run` (a run's future) of the agent named `agent` on `model`, under an
    /// [`agent_span`] made at its first poll.
    pub(crate) fn new(
        run: F,
        agent: Option<&'a str>,
        model: &'a dyn crate::model::ChatModel,
    ) -> Self {
        TracedRun {
            inner: run,
            span: None,
            agent,
            model,
        }
    }

    /// The run's future.
    #[cfg(test)]
    pub(crate) fn inner(&self) -> &F {
        &self.inner
    }
}

impl<F, T, S> Future for TracedRun<'_, F>
where
    F: Future<Output = Result<Outcome<T, S>, RunError>>,
{
    type Output = F::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        let (agent, model) = (*this.agent, *this.model);
        let span = this.span.get_or_insert_with(|| agent_span(agent, model));
        if span.is_disabled() {
            return this.inner.poll(cx);
        }
        let outcome = {
            let _entered = span.enter();
            std::task::ready!(this.inner.poll(cx))
        };
        finish_agent(span, &outcome);
        Poll::Ready(outcome)
    }
}

/// The span of one agent run: of the agent named `agent` (if it has a name) on `model`.
pub(crate) fn agent_span(agent: Option<&str>, model: &dyn crate::model::ChatModel) -> Span {
    if !observable() {
        return Span::none();
    }
    // Every attribute known at the start is given at the start: each later `record` is one
    // more call through the subscriber (a registry look-up, a lock, an attribute).
    let conversation = conversation();
    tracing::info_span!(
        target: TARGET,
        "invoke_agent",
        otel.name = %OtelName("invoke_agent", agent),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.agent.name = agent,
        gen_ai.provider.name = provider_name(model.provider()),
        gen_ai.request.model = model.model_name(),
        gen_ai.conversation.id = conversation.as_deref(),
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        gen_ai.usage.cache_read.input_tokens = Empty,
        gen_ai.usage.cache_creation.input_tokens = Empty,
        gen_ai.usage.reasoning.output_tokens = Empty,
        error.type = Empty,
    )
}

/// Records a run's outcome on its span: the usage, or the error's type.
fn finish_agent<T, S>(span: &Span, outcome: &Result<Outcome<T, S>, RunError>) {
    if span.is_disabled() {
        return;
    }
    match outcome {
        Ok(Outcome::Finished(result)) => record_usage(span, &result.usage),
        Ok(Outcome::Paused(_)) => {}
        Err(error) => {
            record_usage(span, &error.partial().usage);
            record_error(span, run_error_type(error.kind()));
        }
    }
}

/// A count as a signed integer: `tracing-opentelemetry` exports `u64` fields as strings, the
/// conventions want ints.
fn int(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn record_usage(span: &Span, usage: &Usage) {
    span.record("gen_ai.usage.input_tokens", int(usage.input_tokens));
    span.record("gen_ai.usage.output_tokens", int(usage.output_tokens));
    if usage.cached_input_tokens > 0 {
        span.record(
            "gen_ai.usage.cache_read.input_tokens",
            int(usage.cached_input_tokens),
        );
    }
    if usage.cache_write_tokens > 0 {
        span.record(
            "gen_ai.usage.cache_creation.input_tokens",
            int(usage.cache_write_tokens),
        );
    }
    if usage.reasoning_tokens > 0 {
        span.record(
            "gen_ai.usage.reasoning.output_tokens",
            int(usage.reasoning_tokens),
        );
    }
}

fn record_error(span: &Span, error_type: &str) {
    span.record("error.type", error_type);
    span.record("otel.status_code", "ERROR");
}

/// The span of one tool call; the call's arguments are recorded when content is captured.
pub(crate) fn tool_span(call: &ToolCall) -> Span {
    if !observable() {
        return Span::none();
    }
    tracing::info_span!(
        target: TARGET,
        "execute_tool",
        otel.name = %OtelName("execute_tool", Some(&call.name)),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.type = "function",
        gen_ai.tool.call.arguments = content::capture_content().then_some(call.arguments.as_str()),
        gen_ai.tool.call.result = Empty,
        error.type = Empty,
    )
}

/// Records a tool call's result on its span: the error's type, or (when content is
/// captured) the output's text.
pub(crate) fn finish_tool(span: &Span, result: &Result<ToolOutput, ToolCallError>) {
    if span.is_disabled() {
        return;
    }
    match result {
        Ok(output) if content::capture_content() => {
            let text: String = output
                .content
                .iter()
                .filter_map(|b| b.as_text())
                .collect::<Vec<_>>()
                .join("\n");
            span.record("gen_ai.tool.call.result", text);
        }
        Ok(_) => {}
        Err(error) => record_error(span, super::attrs::tool_error_type(error)),
    }
}

/// An invalid final answer is sent back to the model for a correction: an event of the run's
/// span.
pub(crate) fn reask(attempt: u32) {
    tracing::info!(target: TARGET, attempt, "re-ask");
}

/// One model request being made: its span and, when metrics are on, its start.
pub(crate) struct ChatCall {
    span: Span,
    started: Option<Instant>,
    /// Boxed: most runs record no metrics, and this is part of every request's future.
    metric: Option<Box<metrics::ChatAttrs>>,
}

/// Whether anything can see a span: a `tracing` subscriber, or (`tracing` falls back to it
/// while none is set) a `log` logger. Without either, `tracing` still spends a few hundred
/// instructions per span writing nowhere; the spans here are not made at all.
fn observable() -> bool {
    tracing::dispatcher::has_been_set() || log::max_level() != log::LevelFilter::Off
}

/// Where the request goes: `server.address` and `server.port`.
pub(crate) struct Server<'a> {
    pub(crate) host: Option<&'a str>,
    pub(crate) port: Option<u16>,
}

impl ChatCall {
    /// The span of one request of `model` at `provider`.
    pub(crate) fn start(
        provider: &str,
        model: &str,
        server: Server<'_>,
        request: &ChatRequest,
    ) -> ChatCall {
        let span = if !observable() {
            Span::none()
        } else {
            let conversation = conversation();
            tracing::info_span!(
                target: TARGET,
                "chat",
                otel.name = %OtelName("chat", Some(model)),
                otel.kind = "client",
                otel.status_code = Empty,
                gen_ai.operation.name = "chat",
                gen_ai.provider.name = provider_name(provider),
                gen_ai.request.model = model,
                gen_ai.conversation.id = conversation.as_deref(),
                gen_ai.request.temperature = request.temperature,
                gen_ai.request.top_p = request.top_p,
                gen_ai.request.max_tokens = request.max_tokens.map(i64::from),
                gen_ai.request.seed = request.seed.map(int),
                server.address = server.host,
                server.port = server.port.map(i64::from),
                gen_ai.response.id = Empty,
                gen_ai.response.model = Empty,
                gen_ai.response.finish_reasons = Empty,
                gen_ai.usage.input_tokens = Empty,
                gen_ai.usage.output_tokens = Empty,
                gen_ai.usage.cache_read.input_tokens = Empty,
                gen_ai.usage.cache_creation.input_tokens = Empty,
                gen_ai.usage.reasoning.output_tokens = Empty,
                gen_ai.input.messages = content::capture_content()
                    .then(|| content::input_messages(&request.messages)),
                gen_ai.output.messages = Empty,
                error.type = Empty,
            )
        };
        let metric = metrics::enabled().then(|| {
            Box::new(metrics::ChatAttrs {
                provider: provider_name(provider).to_owned(),
                request_model: model.to_owned(),
                server_address: server.host.map(str::to_owned),
                server_port: server.port,
            })
        });
        let started = metric.is_some().then(Instant::now);
        ChatCall {
            span,
            started,
            metric,
        }
    }

    /// Runs `f` in this call's span (entered only when it is enabled).
    pub(crate) fn in_span<R>(&self, f: impl FnOnce() -> R) -> R {
        if self.span.is_disabled() {
            return f();
        }
        let _entered = self.span.enter();
        f()
    }

    /// The span, to instrument the request's future with.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Records the request's outcome on the span and in the metrics.
    pub(crate) fn finish(&self, result: Result<&ChatResponse, &ModelError>) {
        if !self.span.is_disabled() {
            match result {
                Ok(response) => self.record_response(response),
                Err(error) => record_error(&self.span, model_error_type(error)),
            }
        }
        if let (Some(attrs), Some(started)) = (&self.metric, self.started) {
            metrics::record_chat(attrs, started.elapsed(), result);
        }
    }

    fn record_response(&self, response: &ChatResponse) {
        let span = &self.span;
        if let Some(id) = &response.id {
            span.record("gen_ai.response.id", id.as_str());
        }
        span.record("gen_ai.response.model", response.model.as_str());
        let reason = finish_reason(&response.finish_reason);
        finish_reasons(span, reason);
        record_usage(span, &response.usage);
        if content::capture_content() {
            span.record(
                "gen_ai.output.messages",
                content::output_messages(&response.message, reason),
            );
        }
    }

    /// `stream`, with this call's span entered while it is polled and its outcome recorded
    /// when it completes or fails. A disabled span without metrics leaves the stream as it is.
    pub(crate) fn wrap_stream(self, stream: EventStream) -> EventStream {
        if self.span.is_disabled() && self.metric.is_none() {
            return stream;
        }
        Box::pin(ChatStream {
            inner: stream,
            call: self,
            done: false,
        })
    }
}

/// `gen_ai.response.finish_reasons`: a string array on OpenTelemetry spans, the JSON of that
/// array for other subscribers.
fn finish_reasons(span: &Span, reason: &str) {
    #[cfg(feature = "otel")]
    {
        use tracing_opentelemetry::OpenTelemetrySpanExt;
        span.set_attribute(
            "gen_ai.response.finish_reasons",
            opentelemetry::Value::Array(
                vec![opentelemetry::StringValue::from(reason.to_owned())].into(),
            ),
        );
    }
    #[cfg(not(feature = "otel"))]
    span.record(
        "gen_ai.response.finish_reasons",
        serde_json::Value::from(vec![reason]).to_string(),
    );
}

/// A streamed answer under its `chat` span.
struct ChatStream {
    inner: EventStream,
    call: ChatCall,
    done: bool,
}

impl Stream for ChatStream {
    type Item = Result<StreamEvent, ModelError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let _entered = this.call.span.enter();
        let item = this.inner.as_mut().poll_next(cx);
        if !this.done {
            match &item {
                Poll::Ready(Some(Ok(StreamEvent::Completed { response }))) => {
                    this.done = true;
                    this.call.finish(Ok(response));
                }
                Poll::Ready(Some(Err(error))) => {
                    this.done = true;
                    this.call.finish(Err(error));
                }
                _ => {}
            }
        }
        item
    }
}
