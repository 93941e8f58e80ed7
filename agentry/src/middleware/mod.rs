//! Middleware: typed hooks around the agent loop (LangChain v1's agent middleware, with types).
//!
//! A [`Middleware<C, S>`] sees a run whose context is `C` and whose state is `S`, at six
//! points:
//!
//! | hook | when | may |
//! |---|---|---|
//! | [`before_agent`](Middleware::before_agent) | once, before the first request | edit the input, end the run |
//! | [`before_model`](Middleware::before_model) | before each request | edit the transcript (persisting), this request's tools, settings and model; end the run |
//! | [`wrap_model_call`](Middleware::wrap_model_call) | around each model call | edit the call, call the model zero or more times (retry, fallback, cache) |
//! | [`after_model`](Middleware::after_model) | after each answer | edit the answer, end the run, ask again, pause for review |
//! | [`wrap_tool_call`](Middleware::wrap_tool_call) | around each tool call | edit arguments, answer in the tool's place, time out, turn an error into a message |
//! | [`after_agent`](Middleware::after_agent) | once, after the final answer | edit the transcript, fail the run |
//!
//! Order, as LangChain documents it: `before_*` hooks run in declaration order, `after_*` in
//! reverse, and `wrap_*` hooks nest with the first declared outermost. Every hook has a
//! default that does nothing, so a middleware implements only what it needs.
//!
//! Hooks see the context as `&C` and the state as `&S`, and change the state the way tools do:
//! queued updates ([`RunCx::update`], or a [`State<S>`](crate::State) from the tool's runtime
//! in `wrap_tool_call`), applied in order. A middleware implemented for one context type
//! cannot be added to an agent with another: that is a compile error naming both.
//!
//! An agent without middleware takes none of these paths: the loop checks one empty list.
//!
//! ```
//! use agentry::agent::{AgentBuilder, NoTools};
//! use agentry::middleware::{Hook, Middleware, ModelNext, ModelRequest, RunCx};
//! use agentry::model::{ChatResponse, ModelError};
//! use agentry::testing::{ScriptedModel, Turn};
//!
//! /// Counts model calls in the run's state.
//! struct CountCalls;
//!
//! impl<C: Send + Sync + 'static> Middleware<C, u32> for CountCalls {
//!     fn wrap_model_call<'a>(
//!         &'a self,
//!         request: ModelRequest,
//!         cx: &'a RunCx<'a, C, u32>,
//!         next: ModelNext<'a, C, u32>,
//!     ) -> Hook<'a, Result<ChatResponse, ModelError>> {
//!         cx.update(|calls| *calls += 1);
//!         next.run(request)
//!     }
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let agent = AgentBuilder::<_, _, (), u32>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
//!     .middleware(CountCalls)
//!     .build();
//! let run = agent.run("hello", ()).await.unwrap();
//! assert_eq!(run.state, 1);
//! # });
//! ```

pub(crate) mod chain;
mod context;
mod hook;
mod next;

pub mod call_limit;
mod compaction;
pub mod context_edit;
pub mod fallback;
pub mod human;
pub mod model_select;
pub mod pii;
pub mod retry;
pub mod summarization;
pub mod tool_errors;
pub mod tool_select;
pub mod tool_timeout;

pub use crate::run::MiddlewareError;
pub use call_limit::{CallLimit, LimitBehavior};
pub use compaction::Compacted;
pub use context_edit::ClearToolResults;
pub use fallback::ModelFallback;
pub use human::{Allowed, Decision, DecisionKind, HumanInTheLoop, IntoDecision, ReviewRequest};
pub use model_select::ModelSelector;
pub use pii::{Pii, PiiKind, PiiStrategy};
pub use retry::ModelRetry;
pub use summarization::{CharCounter, Summarization, TokenCounter};
pub use tool_errors::ToolErrorHandler;
pub use tool_select::ToolSelector;
pub use tool_timeout::ToolTimeout;

pub(crate) use chain::Chain;
pub use context::RunCx;
pub use hook::Hook;
pub use next::{BeforeModel, ModelNext, ModelRequest, ToolNext};
pub(crate) use next::{Forwarded, hand_over};

use std::sync::Arc;

use crate::message::{AssistantMessage, Message, ToolCall};
use crate::model::{ChatResponse, ModelError};
use crate::tool::{ToolCallError, ToolOutput, ToolRuntime};

/// A middleware shared by an agent's runs.
pub type SharedMiddleware<C, S> = Arc<dyn Middleware<C, S>>;

/// What a `before_*` hook decides.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Flow {
    /// Go on.
    Continue,
    /// End the run now with this answer, parsed as the agent's output (stop reason
    /// [`StopReason::Ended`](crate::agent::StopReason::Ended)).
    End(AssistantMessage),
}

/// What an `after_model` hook decides.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum AfterModel {
    /// Go on with the (possibly edited) answer.
    Continue,
    /// End the run with this answer instead of the model's (its usage still counts).
    End(AssistantMessage),
    /// Keep the answer, append these messages and ask the model again (counts as a turn).
    AskAgain(Vec<Message>),
    /// Stop before running any tool call of this answer and return a
    /// [`Pause`](crate::agent::Pause) holding these reviews.
    Pause(Vec<ReviewRequest>),
}

/// Hooks around an agent run with context `C` and state `S`.
///
/// Implement `Middleware<C, S>` for every `C`/`S` when the middleware does not look at them
/// (as the built-ins do), or for your own context type to read it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a middleware for an agent with context `{C}` and state `{S}`",
    label = "not a `Middleware<{C}, {S}>`",
    note = "implement `agentry::middleware::Middleware<C, S>` for `{Self}`, generically over the context and state it does not read; a middleware implementing `Middleware<A, B>` runs only in agents with `context = A` and `state = B`: declare them on the agent"
)]
pub trait Middleware<C = (), S = ()>: Send + Sync + 'static
where
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// The name used in errors, traces and [`StopReason::Ended`](crate::agent::StopReason::Ended)
    /// (the type's name without its module path, by default).
    fn name(&self) -> &str {
        short_type_name(std::any::type_name::<Self>())
    }

    /// Once, before the first request: may edit the input messages or end the run.
    fn before_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        let _ = messages;
        cx.hook_is_default();
        Hook::ready(Ok(Flow::Continue))
    }

    /// Before each request: may edit the transcript (persisting), and this request's tools,
    /// settings and model; or end the run.
    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        let _ = request;
        cx.hook_is_default();
        Hook::ready(Ok(Flow::Continue))
    }

    /// Around each model call. The default calls the next handler once.
    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        cx: &'a RunCx<'a, C, S>,
        next: ModelNext<'a, C, S>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        let _ = cx;
        next.pass(request)
    }

    /// After each answer: may edit it, end the run, ask again or pause for review.
    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        let _ = response;
        cx.hook_is_default();
        Hook::ready(Ok(AfterModel::Continue))
    }

    /// The reviews this middleware requires before `calls` (one model answer) run: what its
    /// [`after_model`](Middleware::after_model) pauses for. Asked again by
    /// [`Agent::resume`](crate::agent::Agent::resume), so that the agent's policy, not the
    /// pause, decides which calls need a decision and which decisions they allow. The
    /// default reviews nothing; [`HumanInTheLoop`] returns its policy.
    ///
    /// ```
    /// use agentry::middleware::{DecisionKind::*, HumanInTheLoop, Middleware};
    /// use agentry::prelude::ToolCall;
    ///
    /// let hitl = HumanInTheLoop::new().review("send_email", Approve | Reject);
    /// let calls = [
    ///     ToolCall::new("e1", "send_email", r#"{"to":"bob"}"#),
    ///     ToolCall::new("s1", "search", r#"{"query":"x"}"#),
    /// ];
    /// let reviews = Middleware::<(), ()>::reviews(&hitl, &calls);
    /// assert_eq!(reviews.len(), 1);
    /// assert_eq!((reviews[0].call_id.as_str(), reviews[0].allowed), ("e1", Approve | Reject));
    /// ```
    fn reviews(&self, calls: &[ToolCall]) -> Vec<ReviewRequest> {
        let _ = calls;
        Vec::new()
    }

    /// The decisions a reviewer may make on `call` under this middleware's policy, or `None`
    /// when it does not review the call: what [`reviews`](Self::reviews) reports for it,
    /// without the description. Asked when a pause is resumed, to check each decision.
    ///
    /// The default asks `reviews` for the one call and keeps its `allowed`; override it when
    /// describing a call costs more than looking up its policy ([`HumanInTheLoop`] does).
    ///
    /// ```
    /// use agentry::middleware::{DecisionKind::*, HumanInTheLoop, Middleware};
    /// use agentry::prelude::ToolCall;
    ///
    /// let hitl = HumanInTheLoop::new().review("send_email", Approve | Edit);
    /// let email = ToolCall::new("e1", "send_email", r#"{"to":"bob"}"#);
    /// let search = ToolCall::new("s1", "search", r#"{"query":"x"}"#);
    /// assert_eq!(Middleware::<(), ()>::review_policy(&hitl, &email), Some(Approve | Edit));
    /// assert_eq!(Middleware::<(), ()>::review_policy(&hitl, &search), None);
    /// ```
    fn review_policy(&self, call: &ToolCall) -> Option<Allowed> {
        self.reviews(std::slice::from_ref(call))
            .into_iter()
            .find(|review| review.call_id == call.id)
            .map(|review| review.allowed)
    }

    /// The tools this middleware reviews by name, when it knows them ([`HumanInTheLoop`]
    /// does; the default knows none). An agent being built warns about a name it has no tool
    /// for: calls of it never come, so the review never pauses.
    ///
    /// ```
    /// use agentry::middleware::{DecisionKind::*, HumanInTheLoop, Middleware};
    ///
    /// let hitl = HumanInTheLoop::new().review("send_email", Approve | Edit);
    /// assert_eq!(Middleware::<(), ()>::reviewed_tools(&hitl), ["send_email"]);
    /// ```
    fn reviewed_tools(&self) -> Vec<&str> {
        Vec::new()
    }

    /// Around each tool call, with the call's own runtime (its context, state snapshot and
    /// state-update queue). The default calls the next handler once.
    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        let _ = runtime;
        next.pass(call)
    }

    /// Once, after the final answer: may edit the transcript or fail the run.
    fn after_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<(), MiddlewareError>> {
        let _ = messages;
        cx.hook_is_default();
        Hook::ready(Ok(()))
    }
}

/// `a::b::Name<c::D>` → `Name<c::D>`.
fn short_type_name(full: &'static str) -> &'static str {
    let head = full.split('<').next().unwrap_or(full);
    match head.rfind("::") {
        Some(i) => &full[i + 2..],
        None => full,
    }
}
