//! What the `wrap_*` hooks wrap: the request they may edit and the handler they call.

use futures::StreamExt;
use futures::future::{BoxFuture, Either};

use super::Hook;
use super::chain::{Entry, HookKind};
use super::context::RunCx;
use crate::message::ToolCall;
use crate::messages::Messages;
use crate::model::ModelSettings;
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, SharedModel, StreamEvent,
};
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};

/// The coming model request, as `before_model` hooks may change it.
///
/// `messages` is the run's transcript: edits persist (summarization and context editing
/// change it here). `tools`, `settings` and `model` apply to this request only.
#[derive(Clone)]
#[non_exhaustive]
pub struct BeforeModel {
    /// The transcript, system message first (shared with the run: a change copies it once).
    pub messages: Messages,
    /// The tools offered in this request.
    pub tools: crate::model::Tools,
    /// Sampling and length settings for this request.
    pub settings: ModelSettings,
    /// The model to ask.
    pub model: SharedModel,
    /// Set by [`BeforeModel::compact`]: the older messages were replaced by a summary.
    pub(crate) compacted: Option<super::Compacted>,
}

/// One model call, as `wrap_model_call` sees it: the model and the exact request. Edits
/// apply to this call only.
#[derive(Clone)]
pub struct ModelRequest {
    /// The model to ask.
    pub model: SharedModel,
    /// The request.
    pub request: ChatRequest,
}

impl std::fmt::Debug for BeforeModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BeforeModel")
            .field("messages", &self.messages.len())
            .field(
                "tools",
                &self
                    .tools
                    .iter()
                    .map(|t| t.name.as_str())
                    .collect::<Vec<_>>(),
            )
            .field("settings", &self.settings)
            .field("model", &self.model.model_name())
            .finish()
    }
}

impl std::fmt::Debug for ModelRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRequest")
            .field("model", &self.model.model_name())
            .field("request", &self.request)
            .finish()
    }
}

/// Forwards a streamed model call's events (text deltas...) to the run's stream. Returns
/// [`Forwarded::HandOver`] when it queued a partial output: the reader then lets the stream's
/// consumer read it before the next delta (see [`hand_over`]).
pub(crate) type EventSink<'a> = &'a (dyn Fn(StreamEvent) -> Forwarded + Send + Sync);

/// What forwarding a stream event did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Forwarded {
    /// Nothing that needs the consumer before the next delta.
    Queued,
    /// A partial output was queued: it shares the parser's value, which the next delta
    /// writes to. Read now, that write happens in place; still queued, the parser would have
    /// to copy the whole value so far, once per delta (quadratic time and memory in the
    /// answer's length when a model's events arrive faster than the consumer reads).
    HandOver,
}

/// Returns `Pending` once, waking its task: whoever polls the run (the `AgentStream`) reads
/// the events queued so far before the run goes on. Costs one poll of the run, no trip
/// through the runtime's scheduler.
pub(crate) fn hand_over() -> impl std::future::Future<Output = ()> {
    let mut handed = false;
    std::future::poll_fn(move |cx| {
        if handed {
            return std::task::Poll::Ready(());
        }
        handed = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
}

/// The rest of the `wrap_model_call` chain: the next middleware, or the model.
///
/// Call [`ModelNext::run`] zero times (short-circuit, cache), once, or many times (retry,
/// fallback): it is `Copy`.
pub struct ModelNext<'a, C, S> {
    pub(crate) rest: &'a [Entry<C, S>],
    /// The middleware this handler was given to (none for the chain's entry).
    pub(crate) this: Option<&'a Entry<C, S>>,
    pub(crate) cx: &'a RunCx<'a, C, S>,
    pub(crate) sink: Option<EventSink<'a>>,
}

impl<C, S> Clone for ModelNext<'_, C, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, S> Copy for ModelNext<'_, C, S> {}

impl<'a, C: Send + Sync + 'static, S: Send + Sync + 'static> ModelNext<'a, C, S> {
    /// Calls the inner handler with `request`. In a streamed run the model streams and its
    /// deltas reach the run's stream as they come (each attempt's, when called again).
    pub fn run(self, request: ModelRequest) -> Hook<'a, Result<ChatResponse, ModelError>> {
        let mut rest = self.rest;
        while let Some((first, tail)) = rest.split_first() {
            if first.skips(HookKind::WrapModel) {
                rest = tail;
                continue;
            }
            return first.middleware.wrap_model_call(
                request,
                self.cx,
                ModelNext {
                    rest: tail,
                    this: Some(first),
                    cx: self.cx,
                    sink: self.sink,
                },
            );
        }
        let sink = self.sink;
        Hook::from_box(Box::pin(async move {
            let ModelRequest { model, request } = request;
            model_call(&*model, request, sink).await
        }))
    }

    /// What the default `wrap_model_call` does: records that the middleware leaves the hook
    /// at its default (later calls skip it), and calls the next handler.
    pub(crate) fn pass(self, request: ModelRequest) -> Hook<'a, Result<ChatResponse, ModelError>> {
        if let Some(this) = self.this {
            this.learn(HookKind::WrapModel);
        }
        self.run(request)
    }
}

impl<C, S> std::fmt::Debug for ModelNext<'_, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelNext")
            .field("remaining_middleware", &self.rest.len())
            .field("streaming", &self.sink.is_some())
            .finish()
    }
}

/// The model call at the heart of the chain: `invoke`, or `stream` with deltas forwarded.
///
/// Not an `async fn`: the request goes into the model's own future (or stream) here, so the
/// returned future does not hold it a second time (≈ 300 bytes in every middleware turn).
pub(crate) fn model_call<'a>(
    model: &'a dyn ChatModel,
    request: ChatRequest,
    sink: Option<EventSink<'a>>,
) -> impl Future<Output = Result<ChatResponse, ModelError>> + Send + 'a {
    match sink {
        None => Either::Left(model.invoke(request)),
        Some(sink) => Either::Right(forward(model.stream(request), sink)),
    }
}

/// Reads a streamed answer, forwarding its deltas to `sink`, until the final answer.
async fn forward(mut stream: EventStream, sink: EventSink<'_>) -> Result<ChatResponse, ModelError> {
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::Completed { response } => return Ok(*response),
            other => {
                if sink(other) == Forwarded::HandOver {
                    hand_over().await;
                }
            }
        }
    }
    Err(ModelError::Incomplete(
        "the model's stream ended before its final answer".to_string(),
    ))
}

/// The innermost tool handler: parses the call and runs the tool.
pub(crate) type ToolHandler<'a> =
    &'a (dyn Fn(ToolCall) -> BoxFuture<'a, Result<ToolOutput, ToolCallError>> + Send + Sync);

/// The rest of the `wrap_tool_call` chain: the next middleware, or the tool.
///
/// Call [`ToolNext::run`] zero times (answer in the tool's place), once, or many times: it is
/// `Copy`.
pub struct ToolNext<'a, C, S> {
    pub(crate) rest: &'a [Entry<C, S>],
    /// The middleware this handler was given to (none for the chain's entry).
    pub(crate) this: Option<&'a Entry<C, S>>,
    pub(crate) runtime: &'a ToolRuntime<C, S>,
    pub(crate) handler: ToolHandler<'a>,
}

impl<C, S> Clone for ToolNext<'_, C, S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, S> Copy for ToolNext<'_, C, S> {}

impl<'a, C: Send + Sync + 'static, S: Send + Sync + 'static> ToolNext<'a, C, S> {
    /// Calls the inner handler with `call` (its arguments possibly edited: they are parsed
    /// again, and a bad edit becomes the usual invalid-arguments message).
    pub fn run(self, call: ToolCall) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        let mut rest = self.rest;
        while let Some((first, tail)) = rest.split_first() {
            if first.skips(HookKind::WrapTool) {
                rest = tail;
                continue;
            }
            return first.middleware.wrap_tool_call(
                call,
                self.runtime,
                ToolNext {
                    rest: tail,
                    this: Some(first),
                    runtime: self.runtime,
                    handler: self.handler,
                },
            );
        }
        Hook::from_box((self.handler)(call))
    }

    /// What the default `wrap_tool_call` does: records that the middleware leaves the hook
    /// at its default (later calls skip it), and calls the next handler.
    pub(crate) fn pass(self, call: ToolCall) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        if let Some(this) = self.this {
            this.learn(HookKind::WrapTool);
        }
        self.run(call)
    }
}

impl<C, S> std::fmt::Debug for ToolNext<'_, C, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolNext")
            .field("remaining_middleware", &self.rest.len())
            .finish()
    }
}
