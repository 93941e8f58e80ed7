//! [`BoundTools`]: a model with a toolset and a tool choice attached
//! ([`ChatModelExt::bind_tools`](super::ChatModelExt::bind_tools)), answering with typed calls.

use std::fmt;
use std::marker::PhantomData;

use futures::StreamExt;
use futures::future::BoxFuture;

use super::{ChatModel, ChatRequest, ChatResponse, ModelError, ToolChoice, Tools};
use crate::agent::Toolset;
use crate::message::{Message, ToolCall, ToolResultMessage};
use crate::messages::Messages;
use crate::tool::{ToolCallError, ToolRuntime};

/// A model that offers a toolset's tools on every request: see
/// [`ChatModelExt::bind_tools`](super::ChatModelExt::bind_tools).
pub struct BoundTools<'m, T, C = (), S = (), M: ?Sized = dyn ChatModel> {
    model: &'m M,
    toolset: T,
    definitions: Tools,
    template: ChatRequest,
    _runtime: PhantomData<fn() -> (C, S)>,
}

/// A model's answer with its tool calls parsed: see [`BoundTools::invoke`].
#[derive(Debug)]
pub struct ToolAnswer<Call> {
    /// The answer as it came (its message keeps the raw calls, to put back in the history).
    pub response: ChatResponse,
    /// Each tool call of the answer, in order, parsed.
    pub calls: Vec<TypedCall<Call>>,
}

/// One tool call of an answer: as the model wrote it, and parsed into the toolset's call type.
#[derive(Debug)]
pub struct TypedCall<Call> {
    /// The call as the model wrote it.
    pub call: ToolCall,
    /// The typed call, or why there is none: a tool the toolset does not have
    /// ([`ToolCallError::UnknownTool`]) or arguments that do not fit its schema
    /// ([`ToolCallError::InvalidArguments`], with the path of the offending field).
    pub parsed: Result<Call, ToolCallError>,
}

impl<'m, T, C, S, M> BoundTools<'m, T, C, S, M>
where
    T: Toolset<C, S>,
    M: ChatModel + ?Sized,
{
    pub(super) fn new(model: &'m M, toolset: T) -> Self {
        let definitions = Tools::from(toolset.definitions());
        BoundTools {
            model,
            toolset,
            definitions,
            template: ChatRequest::default(),
            _runtime: PhantomData,
        }
    }

    /// Whether and which tool the model must call (default: the provider's, `auto`).
    pub fn tool_choice(mut self, choice: ToolChoice) -> Self {
        self.template.tool_choice = Some(choice);
        self
    }

    /// Whether the model may call several tools in one answer (default: the provider's).
    pub fn parallel_tool_calls(mut self, allowed: bool) -> Self {
        self.template.parallel_tool_calls = Some(allowed);
        self
    }

    /// Settings for every request (temperature, max tokens, ...): its messages come before
    /// the ones of each call; its tools, tool choice and parallel setting are replaced by the
    /// bound ones.
    pub fn request(mut self, template: ChatRequest) -> Self {
        let choice = self.template.tool_choice.take();
        let parallel = self.template.parallel_tool_calls.take();
        self.template = template;
        self.template.tool_choice = choice.or(self.template.tool_choice.take());
        self.template.parallel_tool_calls = parallel.or(self.template.parallel_tool_calls);
        self
    }

    /// The tools offered, in the toolset's order.
    pub fn definitions(&self) -> &Tools {
        &self.definitions
    }

    /// The toolset.
    pub fn toolset(&self) -> &T {
        &self.toolset
    }

    /// The request [`invoke`](Self::invoke) sends for `messages`.
    pub fn prepare(&self, messages: impl Into<Messages>) -> ChatRequest {
        let mut request = self.template.clone();
        request.messages.extend(messages.into().iter().cloned());
        request.tools = self.definitions.clone();
        request
    }

    /// Sends `messages` with the tools and parses the answer's calls.
    pub fn invoke(
        &self,
        messages: impl Into<Messages>,
    ) -> BoxFuture<'_, Result<ToolAnswer<T::Call>, ModelError>> {
        // Not an `async fn` (nor `batch`): the returned future's type does not name
        // `messages`, so a value of the wrong type is one error at the call, not one more at
        // each `.await`.
        let request = self.prepare(messages);
        Box::pin(async move {
            let response = self.model.invoke(request).await?;
            Ok(self.parse(response))
        })
    }

    /// Sends each conversation with the tools, at most `max_concurrency` at once (at least
    /// one); one result per conversation, in order (see
    /// [`ChatModelExt::batch`](super::ChatModelExt::batch)).
    pub fn batch<I>(
        &self,
        conversations: I,
        max_concurrency: usize,
    ) -> BoxFuture<'_, Vec<Result<ToolAnswer<T::Call>, ModelError>>>
    where
        I: IntoIterator,
        I::Item: Into<Messages>,
    {
        let requests: Vec<_> = conversations.into_iter().map(|m| self.prepare(m)).collect();
        Box::pin(
            futures::stream::iter(requests)
                .map(move |request| async move {
                    let response = self.model.invoke(request).await?;
                    Ok(self.parse(response))
                })
                .buffered(max_concurrency.max(1))
                .collect(),
        )
    }

    /// Parses the tool calls of an answer.
    pub fn parse(&self, response: ChatResponse) -> ToolAnswer<T::Call> {
        let calls = response
            .message
            .tool_calls
            .iter()
            .map(|call| TypedCall {
                call: call.clone(),
                parsed: self.parse_call(call),
            })
            .collect();
        ToolAnswer { response, calls }
    }

    fn parse_call(&self, call: &ToolCall) -> Result<T::Call, ToolCallError> {
        self.toolset.parse(call).unwrap_or_else(|| {
            Err(ToolCallError::UnknownTool {
                name: call.name.clone(),
                available: self.definitions.iter().map(|d| d.name.clone()).collect(),
            })
        })
    }

    /// Runs one call with `runtime` (its context, state and store; state updates are queued
    /// on it, see [`ToolRuntime::apply_state_updates`]) and answers with the tool result
    /// message to append to the conversation: the tool's output, or, for a call that did not
    /// parse or a tool that failed, the error written for the model (`is_error` set).
    pub async fn dispatch(&self, call: TypedCall<T::Call>, runtime: &ToolRuntime<C, S>) -> Message {
        let TypedCall { call, parsed } = call;
        let outcome = match parsed {
            Ok(typed) => self.toolset.call(typed, runtime).await,
            Err(e) => Err(e),
        };
        let (content, is_error) = match outcome {
            Ok(output) => (output.content, false),
            Err(e) => (vec![crate::ContentBlock::text(e.model_message())], true),
        };
        Message::Tool(ToolResultMessage {
            call_id: call.id,
            name: call.name,
            content,
            is_error,
        })
    }
}

impl<T, C, S, M: ?Sized> fmt::Debug for BoundTools<'_, T, C, S, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.definitions.iter().map(|d| d.name.as_str()).collect();
        f.debug_struct("BoundTools")
            .field("tools", &names)
            .field("tool_choice", &self.template.tool_choice)
            .field("parallel_tool_calls", &self.template.parallel_tool_calls)
            .finish_non_exhaustive()
    }
}
