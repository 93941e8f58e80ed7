//! [`ScriptedModel`]: a test double that answers from a fixed script of turns.

use std::collections::VecDeque;
use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};
use serde::Serialize;

use crate::message::{AssistantMessage, ContentBlock, ToolCall};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, FinishReason, ModelError, ModelProfile,
    StreamEvent,
};
use crate::usage::Usage;

/// **Test double.** A [`ChatModel`] that answers each request with the next [`Turn`] of a script,
/// and records every request it receives.
///
/// Nothing is sent anywhere. [`ChatModel::invoke`] returns the turn's response;
/// [`ChatModel::stream`] yields the same turn as [`StreamEvent`]s (reasoning and text deltas,
/// tool-call starts and argument deltas interleaved across calls, usage) ending in
/// [`StreamEvent::Completed`] with the same response.
///
/// ```
/// use agentry::model::{ChatModel, ChatRequest};
/// use agentry::testing::{ScriptedModel, Turn};
/// use agentry::Message;
///
/// # futures::executor::block_on(async {
/// let model = ScriptedModel::new([
///     Turn::tool_call("get_weather", serde_json::json!({ "city": "Paris" })),
///     Turn::text("18°C and clear."),
/// ]);
/// let first = model.invoke(ChatRequest::new(vec![Message::user("Weather?")])).await.unwrap();
/// assert_eq!(first.message.tool_calls[0].name, "get_weather");
/// let second = model.invoke(ChatRequest::default()).await.unwrap();
/// assert_eq!(second.message.text(), "18°C and clear.");
/// model.assert_complete();
/// assert_eq!(model.requests()[0].messages[0].text(), "Weather?");
/// # });
/// ```
pub struct ScriptedModel {
    name: String,
    profile: ModelProfile,
    turns: Mutex<VecDeque<Turn>>,
    requests: Mutex<Vec<ChatRequest>>,
    served: Mutex<usize>,
    pause: Pause,
}

/// What a scripted model does before answering.
#[derive(Clone, Copy, Debug)]
enum Pause {
    None,
    Yield,
    Sleep(Duration),
}

impl ScriptedModel {
    /// A model that answers with `turns`, in order.
    pub fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        ScriptedModel {
            name: "scripted".to_string(),
            profile: ModelProfile::full(),
            turns: Mutex::new(turns.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
            served: Mutex::new(0),
            pause: Pause::None,
        }
    }

    /// Sets the model name it reports (default `scripted`).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// Sets the profile it reports (default [`ModelProfile::full`]).
    pub fn with_profile(mut self, profile: ModelProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Yields to the async runtime once before each answer, as a real network call would.
    pub fn yielding(mut self) -> Self {
        self.pause = Pause::Yield;
        self
    }

    /// Waits `delay` (with `tokio::time::sleep`) before each answer.
    pub fn with_delay(mut self, delay: Duration) -> Self {
        self.pause = Pause::Sleep(delay);
        self
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        lock(&self.turns).push_back(turn);
    }

    /// Clones of the requests received so far, in order.
    pub fn requests(&self) -> Vec<ChatRequest> {
        lock(&self.requests).clone()
    }

    /// The number of requests received so far.
    pub fn request_count(&self) -> usize {
        lock(&self.requests).len()
    }

    /// The number of turns not yet used.
    pub fn remaining(&self) -> usize {
        lock(&self.turns).len()
    }

    /// Panics unless every scripted turn was used: a test assertion.
    #[track_caller]
    pub fn assert_complete(&self) {
        let remaining = self.remaining();
        assert!(
            remaining == 0,
            "ScriptedModel: {remaining} scripted turn(s) were never requested (served {})",
            *lock(&self.served)
        );
    }

    fn next_turn(&self, request: ChatRequest) -> Result<Turn, ModelError> {
        lock(&self.requests).push(request);
        let mut served = lock(&self.served);
        *served += 1;
        lock(&self.turns).pop_front().ok_or_else(|| {
            ModelError::Configuration(format!(
                "ScriptedModel: request #{} arrived but the script has no turn left",
                *served
            ))
        })
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("name", &self.name)
            .field("remaining", &self.remaining())
            .field("requests", &self.request_count())
            .finish()
    }
}

impl ChatModel for ScriptedModel {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn provider(&self) -> &str {
        "scripted"
    }

    fn profile(&self) -> &ModelProfile {
        &self.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let turn = self.next_turn(request);
        let pause = self.pause;
        let name = self.name.clone();
        async move {
            pause_for(pause).await;
            turn?.into_response(&name)
        }
        .boxed()
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let events = self
            .next_turn(request)
            .map(|turn| turn.into_events(&self.name));
        let pause = self.pause;
        let events = async move {
            pause_for(pause).await;
            match events {
                Ok(events) => events,
                Err(e) => vec![Err(e)],
            }
        };
        events.into_stream().flat_map(futures::stream::iter).boxed()
    }
}

async fn pause_for(pause: Pause) {
    match pause {
        Pause::None => {}
        Pause::Yield => tokio::task::yield_now().await,
        Pause::Sleep(d) => tokio::time::sleep(d).await,
    }
}

/// One scripted answer of a [`ScriptedModel`] (a test double).
#[derive(Clone, Debug)]
pub struct Turn {
    kind: TurnKind,
}

#[derive(Clone, Debug)]
enum TurnKind {
    /// A whole answer; streamed by splitting it into deltas.
    Respond(ChatResponse),
    /// A failed request.
    Fail(ModelError),
    /// Streamed events exactly as given; `invoke` assembles them.
    Chunks(Vec<Result<StreamEvent, ModelError>>),
}

impl Turn {
    /// An answer with this text and no tool calls.
    pub fn text(text: impl Into<String>) -> Self {
        Turn::message(AssistantMessage {
            content: vec![ContentBlock::text(text)],
            ..AssistantMessage::default()
        })
    }

    /// An answer that calls one tool with `arguments` (serialized to JSON; pass a `&str` of raw
    /// JSON through [`Turn::tool_calls`] to script malformed arguments). The call id is
    /// `call_<name>`.
    pub fn tool_call(name: &str, arguments: impl Serialize) -> Self {
        Turn::tool_calls([scripted_call(name, arguments)])
    }

    /// An answer that calls these tools, in this order.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Turn::message(AssistantMessage {
            tool_calls: calls.into_iter().collect(),
            ..AssistantMessage::default()
        })
    }

    /// An answer that refuses, with this explanation.
    pub fn refusal(text: impl Into<String>) -> Self {
        Turn::message(AssistantMessage {
            refusal: Some(text.into()),
            ..AssistantMessage::default()
        })
    }

    /// An answer with this message. The finish reason is `ToolCalls` when it calls tools,
    /// `Refusal` when it refuses, `Stop` otherwise; usage is one request and no tokens.
    pub fn message(message: AssistantMessage) -> Self {
        Turn::response(response_for(message))
    }

    /// This exact response (an empty `model` is filled with the scripted model's name).
    pub fn response(response: ChatResponse) -> Self {
        Turn {
            kind: TurnKind::Respond(response),
        }
    }

    /// A request that fails with `error`.
    pub fn error(error: ModelError) -> Self {
        Turn {
            kind: TurnKind::Fail(error),
        }
    }

    /// A streamed answer made of exactly these events. `stream` yields them as given, then
    /// [`StreamEvent::Completed`] with the assembled answer unless the list already ends in
    /// one or contains an error; `invoke` assembles them into one response (or fails with
    /// the first error).
    pub fn chunks(events: impl IntoIterator<Item = Result<StreamEvent, ModelError>>) -> Self {
        Turn {
            kind: TurnKind::Chunks(events.into_iter().collect()),
        }
    }

    /// Sets the usage this turn reports (`requests` is forced to 1). No effect on error turns.
    pub fn with_usage(mut self, usage: Usage) -> Self {
        let usage = Usage {
            requests: 1,
            ..usage
        };
        match &mut self.kind {
            TurnKind::Respond(r) => r.usage = usage,
            TurnKind::Chunks(events) => {
                events.retain(|e| !matches!(e, Ok(StreamEvent::Usage { .. })));
                let at = events
                    .iter()
                    .position(|e| matches!(e, Ok(StreamEvent::Completed { .. }) | Err(_)))
                    .unwrap_or(events.len());
                events.insert(at, Ok(StreamEvent::Usage { usage }));
                for event in events.iter_mut() {
                    if let Ok(StreamEvent::Completed { response }) = event {
                        response.usage = usage;
                    }
                }
            }
            TurnKind::Fail(_) => {}
        }
        self
    }

    /// Adds a reasoning block before the answer. No effect on error or chunk turns.
    pub fn with_reasoning(mut self, text: impl Into<String>) -> Self {
        if let TurnKind::Respond(r) = &mut self.kind {
            r.message.content.insert(
                0,
                ContentBlock::Reasoning {
                    text: text.into(),
                    signature: None,
                },
            );
        }
        self
    }

    /// Adds text to the answer (e.g. a preamble before tool calls). No effect on error or
    /// chunk turns.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let TurnKind::Respond(r) = &mut self.kind {
            r.message.content.push(ContentBlock::text(text));
        }
        self
    }

    pub(crate) fn into_response(self, model: &str) -> Result<ChatResponse, ModelError> {
        match self.kind {
            TurnKind::Respond(mut r) => {
                if r.model.is_empty() {
                    r.model = model.to_string();
                }
                Ok(r)
            }
            TurnKind::Fail(e) => Err(e),
            TurnKind::Chunks(events) => {
                let mut assembler = Assembler::new(model);
                for event in events {
                    match event? {
                        StreamEvent::Completed { response } => return Ok(*response),
                        other => assembler.push(&other),
                    }
                }
                Ok(assembler.finish())
            }
        }
    }

    pub(crate) fn into_events(self, model: &str) -> Vec<Result<StreamEvent, ModelError>> {
        match self.kind {
            TurnKind::Fail(e) => vec![Err(e)],
            TurnKind::Respond(mut r) => {
                if r.model.is_empty() {
                    r.model = model.to_string();
                }
                split_into_events(r)
            }
            TurnKind::Chunks(mut events) => {
                let closed = events
                    .iter()
                    .any(|e| matches!(e, Ok(StreamEvent::Completed { .. }) | Err(_)));
                if !closed {
                    let mut assembler = Assembler::new(model);
                    for event in events.iter().flatten() {
                        assembler.push(event);
                    }
                    events.push(Ok(StreamEvent::Completed {
                        response: Box::new(assembler.finish()),
                    }));
                }
                events
            }
        }
    }
}

/// A one-request, zero-token response for `message`, with the finish reason it implies:
/// `ToolCalls` when it calls tools, `Refusal` when it refuses, `Stop` otherwise.
pub(crate) fn response_for(message: AssistantMessage) -> ChatResponse {
    let finish_reason = if !message.tool_calls.is_empty() {
        FinishReason::ToolCalls
    } else if message.refusal.is_some() {
        FinishReason::Refusal
    } else {
        FinishReason::Stop
    };
    ChatResponse {
        message,
        usage: Usage {
            requests: 1,
            ..Usage::default()
        },
        finish_reason,
        model: String::new(),
        id: None,
    }
}

/// A call with id `call_<name>` and `arguments` serialized to JSON.
pub(crate) fn scripted_call(name: &str, arguments: impl Serialize) -> ToolCall {
    let arguments = serde_json::to_string(&arguments)
        .unwrap_or_else(|e| format!("<unserializable arguments: {e}>"));
    ToolCall::new(format!("call_{name}"), name, arguments)
}

/// Splits a whole response into stream events: reasoning and text deltas (one per word),
/// tool-call starts, then argument halves interleaved across calls, usage, `Completed`.
fn split_into_events(response: ChatResponse) -> Vec<Result<StreamEvent, ModelError>> {
    let mut events = Vec::new();
    for block in &response.message.content {
        match block {
            ContentBlock::Reasoning { text, .. } => {
                for piece in split_words(text) {
                    events.push(StreamEvent::ReasoningDelta { text: piece });
                }
            }
            ContentBlock::Text { text, .. } => {
                for piece in split_words(text) {
                    events.push(StreamEvent::TextDelta { text: piece });
                }
            }
            _ => {}
        }
    }
    if let Some(refusal) = &response.message.refusal {
        events.push(StreamEvent::RefusalDelta {
            text: refusal.clone(),
        });
    }
    let calls = &response.message.tool_calls;
    for (index, call) in calls.iter().enumerate() {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
    }
    let halves: Vec<(&str, &str)> = calls.iter().map(|c| split_half(&c.arguments)).collect();
    for pass in 0..2 {
        for (index, (first, second)) in halves.iter().enumerate() {
            let piece = if pass == 0 { first } else { second };
            if !piece.is_empty() {
                events.push(StreamEvent::ToolCallDelta {
                    index,
                    arguments: piece.to_string(),
                });
            }
        }
    }
    events.push(StreamEvent::Usage {
        usage: response.usage,
    });
    events.push(StreamEvent::Completed {
        response: Box::new(response),
    });
    events.into_iter().map(Ok).collect()
}

/// `"a b c"` → `["a ", "b ", "c"]`: concatenating the pieces gives the text back.
fn split_words(text: &str) -> Vec<String> {
    text.split_inclusive(' ').map(str::to_string).collect()
}

fn split_half(s: &str) -> (&str, &str) {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    s.split_at(mid)
}

/// Builds a response from stream events (for `invoke` on a chunk turn).
struct Assembler {
    model: String,
    text: String,
    reasoning: String,
    refusal: Option<String>,
    calls: Vec<ToolCall>,
    usage: Usage,
}

impl Assembler {
    fn new(model: &str) -> Self {
        Assembler {
            model: model.to_string(),
            text: String::new(),
            reasoning: String::new(),
            refusal: None,
            calls: Vec::new(),
            usage: Usage {
                requests: 1,
                ..Usage::default()
            },
        }
    }

    fn push(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta { text } => self.text.push_str(text),
            StreamEvent::ReasoningDelta { text } => self.reasoning.push_str(text),
            StreamEvent::RefusalDelta { text } => {
                self.refusal.get_or_insert_with(String::new).push_str(text)
            }
            StreamEvent::ToolCallStart { index, id, name } => {
                if self.calls.len() <= *index {
                    self.calls
                        .resize_with(index + 1, || ToolCall::new("", "", ""));
                }
                self.calls[*index].id = id.clone();
                self.calls[*index].name = name.clone();
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                if let Some(call) = self.calls.get_mut(*index) {
                    call.arguments.push_str(arguments);
                }
            }
            StreamEvent::Usage { usage } => self.usage = *usage,
            StreamEvent::Completed { .. } => {}
        }
    }

    fn finish(self) -> ChatResponse {
        let mut content = Vec::new();
        if !self.reasoning.is_empty() {
            content.push(ContentBlock::Reasoning {
                text: self.reasoning,
                signature: None,
            });
        }
        if !self.text.is_empty() {
            content.push(ContentBlock::text(self.text));
        }
        let mut response = response_for(AssistantMessage {
            content,
            tool_calls: self.calls,
            refusal: self.refusal,
        });
        response.usage = self.usage;
        response.model = self.model;
        response
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
