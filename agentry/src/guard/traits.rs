//! The four kinds of guardrail: on the user's message, on the typed output, on a tool call's
//! arguments and on a tool's result.

use std::fmt;
use std::future::Future;

use super::Verdict;
use crate::message::ToolCall;
use crate::tool::ToolOutput;

/// Checks the user's message of a run, **beside the first model request**: the request is sent
/// at once and the check runs while it is in flight, so a guardrail that passes adds no
/// latency. When it blocks, the request is cancelled (its future dropped) and the run ends
/// with [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail). When it rewrites
/// the message, the request made with the old one is cancelled and made again with the new
/// one. When the request finishes first, the run waits for the check before it runs any tool
/// or returns.
///
/// `message` is the text of the last user message of the run's input; `context` is the
/// run's typed context. Declare it with `#[agent(guardrails(input(MyCheck)))]` or
/// [`AgentBuilder::input_guardrail`](crate::agent::AgentBuilder::input_guardrail).
///
/// ```
/// use agentry::guard::{InputGuardrail, Verdict};
///
/// struct Tenant { plan: &'static str }
///
/// /// Free plans may not ask for code.
/// struct NoCodeOnFree;
///
/// impl InputGuardrail<Tenant> for NoCodeOnFree {
///     type Reason = String;
///     fn name(&self) -> &str { "no_code_on_free" }
///     async fn check(&self, message: &str, tenant: &Tenant) -> Verdict<String, String> {
///         if tenant.plan == "free" && message.contains("code") {
///             Verdict::Block("code generation needs a paid plan".to_string())
///         } else {
///             Verdict::Pass
///         }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an input guardrail for an agent with context `{C}`",
    label = "this guardrail does not check input with context `{C}`",
    note = "an input guardrail implements `InputGuardrail<C>` for the agent's context `C`: implement `InputGuardrail<{C}>` for `{Self}` (or generically over `C`), or declare it as the kind it is (`output(..)`, `tool_input(..)`, `tool_output(..)`)"
)]
pub trait InputGuardrail<C = ()>: Send + Sync + 'static {
    /// Why it blocks; [`RunErrorKind::Guardrail`](crate::agent::RunErrorKind::Guardrail)
    /// carries it, typed (see [`GuardReason::downcast_ref`](super::GuardReason::downcast_ref)).
    type Reason: fmt::Display + fmt::Debug + Send + Sync + 'static;

    /// The name reported when it blocks.
    fn name(&self) -> &str;

    /// The verdict on the user's message; [`Verdict::Rewrite`] gives the message to send
    /// instead.
    fn check(
        &self,
        message: &str,
        context: &C,
    ) -> impl Future<Output = Verdict<String, Self::Reason>> + Send;
}

/// Checks the run's typed output `O` before it is returned. Output guardrails run in the
/// order they are declared, each on the output the previous one let through (or rewrote).
///
/// Declare it with `#[agent(guardrails(output(MyCheck)))]` or
/// [`AgentBuilder::output_guardrail`](crate::agent::AgentBuilder::output_guardrail).
///
/// ```
/// use agentry::guard::{OutputGuardrail, Verdict};
///
/// struct Plan { budget_eur: f64 }
///
/// struct WithinBudget(f64);
///
/// impl<C: Sync> OutputGuardrail<Plan, C> for WithinBudget {
///     type Reason = String;
///     fn name(&self) -> &str { "within_budget" }
///     async fn check(&self, plan: &Plan, _: &C) -> Verdict<Plan, String> {
///         if plan.budget_eur > self.0 {
///             Verdict::Block(format!("{} EUR is over the {} EUR budget", plan.budget_eur, self.0))
///         } else {
///             Verdict::Pass
///         }
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an output guardrail for an agent with output `{O}` and context `{C}`",
    label = "this guardrail does not check an output `{O}` with context `{C}`",
    note = "an output guardrail implements `OutputGuardrail<O, C>` for the agent's output type `O` (`String` for a plain-text agent) and context `C`: implement `OutputGuardrail<{O}, {C}>` for `{Self}`, or declare it on an agent with that output, or as the kind it is (`input(..)`, `tool_input(..)`, `tool_output(..)`)"
)]
pub trait OutputGuardrail<O, C = ()>: Send + Sync + 'static {
    /// Why it blocks.
    type Reason: fmt::Display + fmt::Debug + Send + Sync + 'static;

    /// The name reported when it blocks.
    fn name(&self) -> &str;

    /// The verdict on the output; [`Verdict::Rewrite`] gives the output to return instead.
    fn check(
        &self,
        output: &O,
        context: &C,
    ) -> impl Future<Output = Verdict<O, Self::Reason>> + Send;
}

/// Checks a tool call's arguments before the tool runs. A block ends the run (the tool does
/// not run); a rewrite gives the arguments (JSON text) the tool runs with instead, parsed
/// again for the tool. The transcript and the run's [`Step`](crate::agent::Step)s keep the
/// call as the model wrote it (the model is not told its arguments were changed).
///
/// Declare it with `#[agent(guardrails(tool_input(MyCheck)))]` or
/// [`AgentBuilder::tool_input_guardrail`](crate::agent::AgentBuilder::tool_input_guardrail).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool-input guardrail for an agent with context `{C}`",
    label = "this guardrail does not check tool calls with context `{C}`",
    note = "a tool-input guardrail implements `ToolInputGuardrail<C>` for the agent's context `C`: implement `ToolInputGuardrail<{C}>` for `{Self}` (or generically over `C`), or declare it as the kind it is (`input(..)`, `output(..)`, `tool_output(..)`)"
)]
pub trait ToolInputGuardrail<C = ()>: Send + Sync + 'static {
    /// Why it blocks.
    type Reason: fmt::Display + fmt::Debug + Send + Sync + 'static;

    /// The name reported when it blocks.
    fn name(&self) -> &str;

    /// The verdict on a call (its tool name and its arguments as the model wrote them).
    fn check(
        &self,
        call: &ToolCall,
        context: &C,
    ) -> impl Future<Output = Verdict<String, Self::Reason>> + Send;
}

/// Checks a tool's successful result before the model sees it. A block ends the run; a
/// rewrite gives the result the model sees instead (and the run's step keeps).
///
/// Declare it with `#[agent(guardrails(tool_output(MyCheck)))]` or
/// [`AgentBuilder::tool_output_guardrail`](crate::agent::AgentBuilder::tool_output_guardrail).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a tool-output guardrail for an agent with context `{C}`",
    label = "this guardrail does not check tool results with context `{C}`",
    note = "a tool-output guardrail implements `ToolOutputGuardrail<C>` for the agent's context `C`: implement `ToolOutputGuardrail<{C}>` for `{Self}` (or generically over `C`), or declare it as the kind it is (`input(..)`, `output(..)`, `tool_input(..)`)"
)]
pub trait ToolOutputGuardrail<C = ()>: Send + Sync + 'static {
    /// Why it blocks.
    type Reason: fmt::Display + fmt::Debug + Send + Sync + 'static;

    /// The name reported when it blocks.
    fn name(&self) -> &str;

    /// The verdict on the result of `call`.
    fn check(
        &self,
        call: &ToolCall,
        output: &ToolOutput,
        context: &C,
    ) -> impl Future<Output = Verdict<ToolOutput, Self::Reason>> + Send;
}
