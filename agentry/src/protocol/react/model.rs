//! [`ReactModel`]: any chat model driven through the ReAct text protocol.

use std::sync::{Arc, Mutex};

use futures::StreamExt;
use futures::future::BoxFuture;

use super::stream::{ReactEvent, ReactStream};
use super::turn::{ReplyContext, arguments, read_reply, render_request};
use super::{ReactPrompt, parse};
use crate::message::ContentBlock;
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, FinishReason, ModelError, ModelProfile,
    SharedModel, StreamEvent, Tools,
};
use crate::protocol::ReactConfig;

/// A chat model that takes requests in the loop's native shape (tool definitions, tool calls,
/// tool results) and talks to the model it wraps in ReAct text: the request it sends carries
/// no `tools`, and the reply is read back as a tool call, a final answer, or a correction (see
/// the [`turn`](super::turn) rules).
///
/// An agent built with [`AgentBuilder::protocol`](crate::agent::AgentBuilder::protocol)
/// set to [`ToolProtocol::React`](crate::protocol::ToolProtocol::React), or whose model's
/// profile has no native tool calling, wraps its model in one. Its profile is the wrapped
/// model's with every native tool and structured-output feature off, so a typed output is
/// asked for in the prompt and read from the final answer.
///
/// Streaming: the thought arrives as [`StreamEvent::ReasoningDelta`]s, the action as
/// [`StreamEvent::ToolCallStart`] and one [`StreamEvent::ToolCallDelta`] with the whole
/// arguments as soon as its input is complete, the final answer as [`StreamEvent::TextDelta`]s.
pub struct ReactModel {
    inner: SharedModel,
    prompt: ReactPrompt,
    profile: ModelProfile,
    /// The system prompt rendered for the last tool list (the same definitions every turn),
    /// with that list: shared with the requests it came from, not copied.
    rendered: Mutex<Option<(Tools, Arc<str>)>>,
}

impl std::fmt::Debug for ReactModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReactModel")
            .field("model", &self.inner.model_name())
            .field("provider", &self.inner.provider())
            .finish_non_exhaustive()
    }
}

impl ReactModel {
    /// `inner` driven through ReAct with these settings.
    pub fn new(inner: SharedModel, config: ReactConfig) -> Self {
        let profile = ModelProfile {
            tool_calling: false,
            native_structured_output: false,
            strict_tools: false,
            parallel_tool_calls: false,
            tool_choice_required: false,
            tool_choice_named: false,
            tool_choice_none: false,
            ..inner.profile().clone()
        };
        ReactModel {
            inner,
            prompt: config.prompt,
            profile,
            rendered: Mutex::new(None),
        }
    }

    /// The wrapped model.
    pub fn inner(&self) -> &SharedModel {
        &self.inner
    }

    /// The request sent to the wrapped model for `request`, and what reading its reply needs.
    pub fn text_request(&self, request: ChatRequest) -> (ChatRequest, ReplyContext) {
        let prompt = self.system_prompt(&request.tools);
        render_request(request, prompt.as_deref())
    }

    fn system_prompt(&self, tools: &Tools) -> Option<Arc<str>> {
        if tools.is_empty() {
            return None;
        }
        let mut cached = self.rendered.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((defs, text)) = &*cached
            && defs.len() == tools.len()
            && defs
                .iter()
                .zip(tools)
                .all(|(a, b)| std::ptr::eq(&**a, &**b))
        {
            return Some(Arc::clone(text));
        }
        // The cache holds the definitions, so their addresses cannot be reused while compared.
        let text: Arc<str> = self.prompt.render(tools, &[]).into();
        *cached = Some((tools.clone(), Arc::clone(&text)));
        Some(text)
    }
}

/// The native answer for the wrapped model's text `response`.
fn read_response(mut response: ChatResponse, context: &ReplyContext) -> ChatResponse {
    // One text block (the usual answer) is read in place.
    let joined;
    let raw = match response.message.content.as_slice() {
        [ContentBlock::Text { text, .. }] => text.as_str(),
        _ => {
            joined = response.message.text();
            joined.as_str()
        }
    };
    let (mut message, finish) = read_reply(raw, parse(raw), context);
    // The wrapped model's own reasoning (and provider blocks) stay, before the reply's.
    let kept: Vec<ContentBlock> = response
        .message
        .content
        .drain(..)
        .filter(|b| !matches!(b, ContentBlock::Text { .. }))
        .collect();
    if !kept.is_empty() {
        message.content.splice(0..0, kept);
    }
    message.refusal = response.message.refusal.take();
    if response.finish_reason != FinishReason::Length {
        response.finish_reason = finish;
    }
    response.message = message;
    response
}

/// The stream events for what the streaming parser made known.
fn events(
    found: Vec<ReactEvent>,
    context: &ReplyContext,
    out: &mut Vec<Result<StreamEvent, ModelError>>,
) {
    for event in found {
        match event {
            ReactEvent::Thought(text) => out.push(Ok(StreamEvent::ReasoningDelta { text })),
            ReactEvent::FinalAnswer(text) => out.push(Ok(StreamEvent::TextDelta { text })),
            ReactEvent::Action(action) => {
                // An input that is no valid call is reported with the answer's correction.
                if let Ok(arguments) = arguments(&action, &context.tools) {
                    out.push(Ok(StreamEvent::ToolCallStart {
                        index: 0,
                        id: context.call_id.clone(),
                        name: action.tool,
                    }));
                    out.push(Ok(StreamEvent::ToolCallDelta {
                        index: 0,
                        arguments,
                    }));
                }
            }
        }
    }
}

impl ChatModel for ReactModel {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn provider(&self) -> &str {
        self.inner.provider()
    }

    fn profile(&self) -> &ModelProfile {
        &self.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let (request, context) = self.text_request(request);
        Box::pin(async move {
            let response = self.inner.invoke(request).await?;
            Ok(read_response(response, &context))
        })
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let (request, context) = self.text_request(request);
        let mut parser = Some(ReactStream::new());
        self.inner
            .stream(request)
            .flat_map(move |event| {
                let mut out = Vec::new();
                match event {
                    Ok(StreamEvent::TextDelta { text }) => {
                        if let Some(parser) = parser.as_mut() {
                            events(parser.push(&text), &context, &mut out);
                        }
                    }
                    Ok(StreamEvent::Completed { response }) => {
                        if let Some(parser) = parser.take() {
                            events(parser.finish().0, &context, &mut out);
                        }
                        out.push(Ok(StreamEvent::Completed {
                            response: Box::new(read_response(*response, &context)),
                        }));
                    }
                    other => out.push(other),
                }
                futures::stream::iter(out)
            })
            .boxed()
    }
}
