//! [`FunctionModel`]: a test double whose answers come from a closure.

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures::future::BoxFuture;
use futures::{FutureExt, StreamExt};

use super::scripted::{Turn, response_for, scripted_call};
use crate::message::{AssistantMessage, ContentBlock};
use crate::model::{ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile};

type Respond = dyn Fn(&ChatRequest) -> Result<ChatResponse, ModelError> + Send + Sync;

/// **Test double.** A [`ChatModel`] that answers each request by calling a closure with it.
///
/// Where [`ScriptedModel`](super::ScriptedModel) replays a fixed list, a `FunctionModel`
/// decides from the request (the last message, the tools offered), so one model can serve
/// many concurrent runs — which is what benchmarks and load tests need. It records only how
/// many requests it answered. Streaming yields the answer as deltas ending in
/// [`StreamEvent::Completed`](crate::model::StreamEvent::Completed), like `ScriptedModel`.
///
/// ```
/// use agentry::model::{ChatModel, ChatRequest};
/// use agentry::testing::FunctionModel;
/// use agentry::Message;
///
/// # futures::executor::block_on(async {
/// let echo = FunctionModel::new(|req: &ChatRequest| {
///     let last = req.messages.last().map(Message::text).unwrap_or_default();
///     FunctionModel::text(format!("you said: {last}"))
/// });
/// let answer = echo.invoke(ChatRequest::new(vec![Message::user("hi")])).await.unwrap();
/// assert_eq!(answer.message.text(), "you said: hi");
/// assert_eq!(echo.calls(), 1);
/// # });
/// ```
pub struct FunctionModel {
    name: String,
    profile: ModelProfile,
    respond: Box<Respond>,
    calls: AtomicUsize,
    yielding: bool,
}

impl FunctionModel {
    /// A model answering with `respond`, which returns a [`ChatResponse`] or a
    /// `Result<ChatResponse, ModelError>`.
    pub fn new<F, R>(respond: F) -> Self
    where
        F: Fn(&ChatRequest) -> R + Send + Sync + 'static,
        R: Into<Answer>,
    {
        FunctionModel {
            name: "function".to_string(),
            profile: ModelProfile::full(),
            respond: Box::new(move |request| respond(request).into().0),
            calls: AtomicUsize::new(0),
            yielding: false,
        }
    }

    /// Sets the model name it reports (default `function`).
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
        self.yielding = true;
        self
    }

    /// The number of requests answered so far.
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::Relaxed)
    }

    /// A text answer (one request, no tokens), for use inside the closure.
    pub fn text(text: impl Into<String>) -> ChatResponse {
        response_for(AssistantMessage {
            content: vec![ContentBlock::text(text)],
            ..AssistantMessage::default()
        })
    }

    /// An answer calling one tool with `arguments` (id `call_<name>`), for use inside the
    /// closure.
    pub fn tool_call(name: &str, arguments: impl serde::Serialize) -> ChatResponse {
        response_for(AssistantMessage {
            tool_calls: vec![scripted_call(name, arguments)],
            ..AssistantMessage::default()
        })
    }

    fn answer(&self, request: &ChatRequest) -> Result<ChatResponse, ModelError> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        let mut response = (self.respond)(request)?;
        if response.model.is_empty() {
            response.model.clone_from(&self.name);
        }
        Ok(response)
    }
}

/// What a [`FunctionModel`] closure may return: a response, or a result of one.
pub struct Answer(Result<ChatResponse, ModelError>);

impl From<ChatResponse> for Answer {
    fn from(r: ChatResponse) -> Self {
        Answer(Ok(r))
    }
}

impl From<Result<ChatResponse, ModelError>> for Answer {
    fn from(r: Result<ChatResponse, ModelError>) -> Self {
        Answer(r)
    }
}

impl fmt::Debug for FunctionModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FunctionModel")
            .field("name", &self.name)
            .field("calls", &self.calls())
            .finish()
    }
}

impl ChatModel for FunctionModel {
    fn model_name(&self) -> &str {
        &self.name
    }

    fn provider(&self) -> &str {
        "function"
    }

    fn profile(&self) -> &ModelProfile {
        &self.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let yielding = self.yielding;
        async move {
            if yielding {
                tokio::task::yield_now().await;
            }
            self.answer(&request)
        }
        .boxed()
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let events = match self.answer(&request) {
            Ok(response) => Turn::response(response).into_events(&self.name),
            Err(e) => vec![Err(e)],
        };
        let yielding = self.yielding;
        async move {
            if yielding {
                tokio::task::yield_now().await;
            }
            futures::stream::iter(events)
        }
        .flatten_stream()
        .boxed()
    }
}
