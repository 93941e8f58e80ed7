//! [`Toolset`]: an agent's tools, dispatched by a `match` over a generated enum.

use std::future::Future;
use std::time::Duration;

use crate::message::ToolCall;
use crate::tool::{DefinitionRef, ToolCallError, ToolOutput, ToolRuntime};

/// The statically known tools of an agent, run with context `C` and state `S`.
///
/// [`#[agent]`](macro@crate::agent) implements it: `Call` is a generated enum with one variant
/// per tool holding that tool's `Args`; [`Toolset::parse`] matches the call's name and
/// deserializes the arguments in one serde step; [`Toolset::call`] is a `match` that calls the
/// tool. No string-keyed map and no boxing on this path.
///
/// Tools known only at run time (e.g. discovered from an MCP server) go through the separate
/// [`DynTool`](super::DynTool) path.
pub trait Toolset<C, S>: Send + Sync + 'static {
    /// A parsed call of one of the tools.
    type Call: Send + 'static;

    /// What the tools write through their [`StreamWriter`](crate::StreamWriter)s: the type of
    /// the agent stream's [`AgentEvent::Custom`](crate::run::AgentEvent::Custom) events.
    /// `#[agent(events = E)]` sets it (checking every tool's writer against it), JSON
    /// ([`serde_json::Value`]) when the agent declares none. Sending them as JSON (a served
    /// run) needs `serde::Serialize`, and every tool's writer asks for it
    /// ([`ToolEvent`](crate::tool::ToolEvent)); an agent whose tools write nothing may
    /// declare any type.
    type Event: Send + 'static;

    /// The tools' definitions, in declaration order.
    fn definitions(&self) -> Vec<DefinitionRef>;

    /// Parses a model's call: `None` when no tool of this set has the call's name, else the
    /// typed call or the argument error (with its JSON path).
    fn parse(&self, call: &ToolCall) -> Option<Result<Self::Call, ToolCallError>>;

    /// Whether the call's tool must run alone.
    fn is_sequential(&self, call: &Self::Call) -> bool;

    /// Whether the call's tool ends the run with its output.
    fn is_return_direct(&self, call: &Self::Call) -> bool;

    /// Whether running the call's tool twice has the effect of running it once
    /// ([`Tool::IDEMPOTENT`](crate::Tool::IDEMPOTENT)); such a call in flight at a crash runs
    /// again when the thread is recovered.
    fn is_idempotent(&self, call: &Self::Call) -> bool {
        let _ = call;
        false
    }

    /// The call's tool's own timeout ([`Tool::TIMEOUT`](crate::Tool::TIMEOUT)), if it has
    /// one.
    fn timeout(&self, call: &Self::Call) -> Option<Duration> {
        let _ = call;
        None
    }

    /// Checks an answer to the question the call's tool asked (its
    /// [`Interrupt`](crate::Interrupt)'s answer type, or an external tool's result type):
    /// [`Tool::check_answer`](crate::Tool::check_answer).
    fn check_answer(&self, call: &Self::Call, answer: &serde_json::Value) -> Result<(), String> {
        let _ = (call, answer);
        Err("this tool asks no question".to_string())
    }

    /// Runs a parsed call.
    fn call(
        &self,
        call: Self::Call,
        runtime: &ToolRuntime<C, S>,
    ) -> impl Future<Output = Result<ToolOutput, ToolCallError>> + Send;
}

/// No static tools (an agent whose tools are all [`DynTool`](super::DynTool)s, or none).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoTools;

/// A call of [`NoTools`]: there is none.
#[derive(Debug)]
pub enum NoCall {}

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Toolset<C, S> for NoTools {
    type Call = NoCall;
    type Event = serde_json::Value;

    fn definitions(&self) -> Vec<DefinitionRef> {
        Vec::new()
    }

    fn parse(&self, _call: &ToolCall) -> Option<Result<NoCall, ToolCallError>> {
        None
    }

    fn is_sequential(&self, call: &NoCall) -> bool {
        match *call {}
    }

    fn is_return_direct(&self, call: &NoCall) -> bool {
        match *call {}
    }

    async fn call(
        &self,
        call: NoCall,
        _runtime: &ToolRuntime<C, S>,
    ) -> Result<ToolOutput, ToolCallError> {
        match call {}
    }
}
