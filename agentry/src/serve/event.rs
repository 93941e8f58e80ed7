//! What the protocol encoders read: a run's events without the agent's types, and the
//! [`Encoder`] each protocol implements.

use serde_json::Value;

use crate::message::AssistantMessage;
use crate::run::{PendingCall, Step};
use crate::tool::{CustomEvent, ToolCallError};

/// One event of a run, as the encoders see it.
pub(crate) enum Event<'a> {
    /// Model request `turn` is about to be sent.
    Turn(u32),
    /// Answer text.
    Text(&'a str),
    /// Reasoning text.
    Reasoning(&'a str),
    /// A tool call starts streaming.
    CallStart {
        index: usize,
        id: &'a str,
        name: &'a str,
    },
    /// A piece of a tool call's arguments.
    CallArgs { index: usize, delta: &'a str },
    /// The whole answer to a request.
    Answer(&'a AssistantMessage),
    /// A tool call's result.
    Result(&'a Step),
    /// An event a tool wrote, as JSON.
    Custom(&'a CustomEvent<Value>),
    /// A team's agent `from` handed the conversation to `to`.
    Handoff { from: &'a str, to: &'a str },
}

/// Turns a run into one protocol's messages (JSON values, each sent as one SSE `data:`).
pub(crate) trait Encoder: Send + 'static {
    /// Whether [`Encoder::start`] needs the thread's state (reading it costs a load).
    const NEEDS_STATE: bool;

    /// The run starts; `state` is the thread's typed state before it.
    fn start(&mut self, state: &Value, out: &mut Vec<Value>);
    /// The run resumes a pause: the client has seen these calls already (their input, and
    /// their approval request or question), and the results of those in `ran` (they ran
    /// before the pause); the reviewer rejected the calls in `rejected`.
    fn resumed(&mut self, calls: &[String], ran: &[String], rejected: &[String]);
    /// An event of the run.
    fn event(&mut self, event: Event<'_>, out: &mut Vec<Value>);
    /// The run stopped for review of some of `calls`, at a tool's question, or at calls of
    /// external tools the client runs; `state` as it is at the pause.
    fn paused(&mut self, calls: &[PendingCall], state: &Value, out: &mut Vec<Value>);
    /// The run finished with `output` and `state`.
    fn finished(&mut self, output: &Value, state: &Value, out: &mut Vec<Value>);
    /// The run failed.
    fn failed(&mut self, message: &str, out: &mut Vec<Value>);
    /// The line the stream ends with, if the protocol has one (`[DONE]`).
    fn end(&self) -> Option<&'static str>;
}

/// A call's arguments as JSON (the text itself when it is not JSON).
pub(crate) fn input_of(arguments: &str) -> Value {
    serde_json::from_str(arguments.trim()).unwrap_or_else(|_| Value::String(arguments.to_owned()))
}

/// What a tool call returned, as text (what the model read).
pub(crate) fn result_text(step: &Step) -> Result<String, String> {
    match &step.result {
        Ok(output) => Ok(output
            .content
            .iter()
            .filter_map(|b| b.as_text())
            .collect::<Vec<_>>()
            .join("")),
        Err(error) => Err(error_text(error)),
    }
}

fn error_text(error: &ToolCallError) -> String {
    error.to_string()
}
