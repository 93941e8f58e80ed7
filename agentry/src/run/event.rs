//! [`AgentEvent`]: one event of a streamed run, as a value.

use std::marker::PhantomData;

use super::pause::Pause;
use super::result::{Step, StopReason};
use super::sub_agent::SubAgentEvent;
use crate::message::AssistantMessage;
use crate::output::PartialOutput;
use crate::tool::CustomEvent;
use crate::usage::Usage;

/// One event of a streamed run.
///
/// `T` is the run's output, `S` its state, and `E` what its tools write through their
/// [`StreamWriter`](crate::StreamWriter)s (the agent's `#[agent(events = E)]`; JSON when it
/// declares none).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AgentEvent<T, S, E = serde_json::Value> {
    /// Model request number `turn` (1-based) is about to be sent.
    TurnStart {
        /// The request's number.
        turn: u32,
    },
    /// A piece of answer text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// A piece of reasoning text.
    ReasoningDelta {
        /// The new text.
        text: String,
    },
    /// A piece of a refusal.
    RefusalDelta {
        /// The new text.
        text: String,
    },
    /// The model started a tool call; `index` tells interleaved calls apart.
    ToolCallStart {
        /// The call's position in the answer.
        index: usize,
        /// The provider's call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// A piece of a tool call's JSON arguments.
    ToolCallDelta {
        /// The call's position in the answer.
        index: usize,
        /// The new argument text.
        arguments: String,
    },
    /// The output so far, as it streams in (complete fields, strings so far): from the
    /// final-answer tool's arguments in tool mode — that call is not reported through
    /// `ToolCallStart`/`ToolCallDelta` — or from the answer's JSON text in native mode. The
    /// value is shared with the parser, not copied per delta; for a derived output,
    /// [`PartialOutput::typed`] gives its `Partial<T>` mirror and [`PartialOutput::check`]
    /// the violations of its complete fields.
    PartialOutput {
        /// The request's number.
        turn: u32,
        /// The output so far.
        partial: PartialOutput<T>,
    },
    /// The usage of request `turn`.
    Usage {
        /// The request's number.
        turn: u32,
        /// Its usage.
        usage: Usage,
    },
    /// The whole answer to request `turn`.
    Response {
        /// The request's number.
        turn: u32,
        /// The answer (boxed, to keep the enum small).
        message: Box<AssistantMessage>,
    },
    /// A tool call finished. (Boxed, like the other large events: every event is moved a few
    /// times on its way to the caller, so the enum is kept small.)
    ToolResult(Box<Step>),
    /// An event a tool wrote through its [`StreamWriter`](crate::StreamWriter), typed as the
    /// agent's events.
    Custom(CustomEvent<E>),
    /// An event of a sub-agent run by one of this run's tool calls (an `#[agent]` listed in
    /// `tools(...)`), with the sub-agent's name. Its types are erased: its custom events
    /// arrive as JSON, whatever the sub-agent's event type.
    SubAgent(Box<SubAgentEvent>),
    /// The run finished; always the last event of a successful run. The result itself stays
    /// with the stream: call [`AgentStream::result`](crate::agent::AgentStream::result) (or
    /// `outcome`) after this event to take it, without the output having to be `Clone`.
    #[non_exhaustive]
    Done {
        /// Tokens and requests spent in total (the same as the result's `usage`).
        usage: Usage,
        /// Why the run ended (the same as the result's `stop_reason`).
        stop_reason: StopReason,
        /// The output's type (the output itself is in the stream's result).
        #[doc(hidden)]
        output: PhantomData<fn() -> T>,
    },
    /// The run stopped for review (see
    /// [`HumanInTheLoop`](crate::middleware::HumanInTheLoop)); the last event of such a run.
    /// Continue with [`Agent::resume`](crate::agent::Agent::resume) or
    /// [`Agent::resume_stream`](crate::agent::Agent::resume_stream).
    Paused(Box<Pause<S>>),
}
