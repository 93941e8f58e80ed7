//! Why a run failed, with the transcript up to the failure.

use std::fmt;

use super::limits::Limit;
use super::middleware_error::MiddlewareError;
use super::result::{RequestUsage, Step};
use super::resume_error::ResumeError;
use super::thread_error::ThreadError;
use crate::message::Message;
use crate::model::ModelError;
use crate::tool::ToolCallError;
use crate::usage::Usage;

/// A failed run: why, and everything that happened before.
///
/// ```
/// # use agentry::agent::{RunError, RunErrorKind};
/// fn report(err: &RunError) -> String {
///     format!("{err} after {} messages", err.partial().messages.len())
/// }
/// ```
///
/// One pointer wide: a streamed run's items (`Result<AgentEvent, RunError>`) are moved for
/// every event, and the error is the rare case.
pub struct RunError(Box<Failed>);

struct Failed {
    kind: RunErrorKind,
    partial: PartialRun,
}

impl RunError {
    pub(crate) fn new(kind: RunErrorKind, partial: PartialRun) -> Self {
        RunError(Box::new(Failed { kind, partial }))
    }

    /// Why the run failed.
    pub fn kind(&self) -> &RunErrorKind {
        &self.0.kind
    }

    /// The transcript, usage and steps up to the failure.
    pub fn partial(&self) -> &PartialRun {
        &self.0.partial
    }

    /// The transcript up to the failure.
    pub fn messages(&self) -> &[Message] {
        &self.0.partial.messages
    }

    /// Splits the error into its cause and the partial run.
    pub fn into_parts(self) -> (RunErrorKind, PartialRun) {
        let Failed { kind, partial } = *self.0;
        (kind, partial)
    }
}

impl fmt::Debug for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunError")
            .field("kind", &self.0.kind)
            .field("messages", &self.0.partial.messages.len())
            .field("steps", &self.0.partial.steps.len())
            .field("usage", &self.0.partial.usage)
            .finish()
    }
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.kind, f)
    }
}

impl std::error::Error for RunError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.0.kind)
    }
}

/// What a failed run leaves behind.
#[derive(Clone, Debug, Default)]
pub struct PartialRun {
    /// The conversation up to the failure; every tool call in it has a result.
    pub messages: Vec<Message>,
    /// Tokens and requests spent in total.
    pub usage: Usage,
    /// Usage of each request, in order.
    pub request_usage: Vec<RequestUsage>,
    /// Each tool call with its result, in order.
    pub steps: Vec<Step>,
}

impl PartialRun {
    /// What the run's requests cost at `prices` (see
    /// [`RunResult::cost`](super::RunResult::cost)).
    pub fn cost(
        &self,
        prices: &crate::cost::PriceTable,
    ) -> Result<crate::cost::Cost, crate::cost::CostError> {
        super::result::cost_of(&self.request_usage, prices)
    }
}

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunErrorKind {
    /// A model request failed.
    #[error("model request failed: {0}")]
    Model(#[source] ModelError),
    /// A limit was reached (with [`LimitPolicy::Error`](super::LimitPolicy::Error), or the
    /// model still called tools in the final request of
    /// [`LimitPolicy::FinalAnswer`](super::LimitPolicy::FinalAnswer)).
    #[error("the run reached its {0}")]
    LimitExceeded(Limit),
    /// A tool kept failing: its retry budget is spent.
    #[error("tool `{tool}` failed {failures} times in a row; last error: {last}")]
    ToolRetriesExhausted {
        /// The tool name (as the model wrote it, for unknown tools).
        tool: String,
        /// Consecutive failures.
        failures: u32,
        /// The last failure.
        #[source]
        last: ToolCallError,
    },
    /// A tool failed and the policy is [`ToolErrorPolicy::Propagate`](super::ToolErrorPolicy::Propagate).
    #[error("tool call failed: {0}")]
    Tool(#[source] ToolCallError),
    /// The model's final answer stayed invalid after every correction.
    #[error("the final answer was invalid {attempts} times; last error: {error}")]
    OutputRetriesExhausted {
        /// Invalid answers received.
        attempts: u32,
        /// What was wrong with the last one.
        error: String,
    },
    /// The model refused to answer.
    #[error("the model refused to answer: {0}")]
    Refused(String),
    /// A `return_direct` tool's output is not a valid final answer for this agent's output
    /// type.
    #[error("the output of return_direct tool `{tool}` is not a valid final answer: {error}")]
    ReturnDirectOutput {
        /// The tool.
        tool: String,
        /// Why the output was rejected.
        error: String,
    },
    /// A tool kept its `State<S>` handle after it returned (e.g. moved it into a spawned
    /// task), so the run's state updates cannot be applied.
    #[error(
        "state updates cannot be applied: a tool kept its `State` handle after returning; \
         do not move `State` into spawned tasks or statics"
    )]
    StateInUse,
    /// A middleware stopped the run.
    #[error(transparent)]
    Middleware(#[from] MiddlewareError),
    /// [`Agent::resume`](crate::agent::Agent::resume) refused the pause or its decisions; nothing
    /// ran.
    #[error("cannot resume: {0}")]
    Resume(#[source] ResumeError),
    /// The run stopped for review, but was started with `run` or `stream`, which cannot
    /// return a pause.
    #[error(
        "the run stopped for review of, or a question from, {}; start it with `run_or_pause` (or read `AgentStream::outcome`) to receive the pause and resume it",
        tools.join(", ")
    )]
    Paused {
        /// The reviewed tools, and the tools that asked a question (or are external).
        tools: Vec<String>,
    },
    /// A run in a thread could not load or save the thread, or the thread is not in a state
    /// to do what was asked (see [`ThreadError`]).
    #[error(transparent)]
    Thread(#[from] ThreadError),
    /// The agent has a [`PauseKey`](super::PauseKey) and the run paused, but its state does
    /// not serialize as JSON, so the pause cannot be sealed (nor stored).
    #[error("the pause cannot be sealed: the state does not serialize as JSON: {reason}")]
    Unsealable {
        /// serde's message.
        reason: String,
        /// serde's error.
        #[source]
        source: serde_json::Error,
    },
    /// The agent's store failed while recording a pause for single use, or while consuming
    /// it on resume (an agent with a store and no checkpointer; see
    /// [`Pause`](super::Pause)).
    #[error("the store failed while recording a pause: {0}")]
    Store(#[source] crate::store::StoreError),
    /// The run has a cost limit and a request's cost is unknown (its model has no price in
    /// the agent's price table).
    #[error("cannot enforce the cost limit: {0}")]
    Cost(#[source] crate::cost::CostError),
    /// A [guardrail](crate::guard) blocked the user's message, the output, a tool call or a
    /// tool's result. An input guardrail that blocks while the first request is in flight
    /// cancels it; the run's usage then counts that request with the usage its provider
    /// reported before it was cancelled, if any (see [`InputGuardrail`](crate::guard::InputGuardrail)).
    #[error("guardrail `{name}` blocked the run: {reason}")]
    Guardrail {
        /// The guardrail's name.
        name: String,
        /// Why it blocked, typed as the guardrail gave it (see
        /// [`GuardReason::downcast_ref`](crate::guard::GuardReason::downcast_ref)).
        reason: crate::guard::GuardReason,
    },
}
