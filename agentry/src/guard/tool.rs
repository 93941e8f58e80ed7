//! The tool checks: tool-input guardrails on a call's arguments before it runs, tool-output
//! guardrails on its result before the model sees it. Called from the call's own future
//! (`agent/call.rs`), so the calls of a group are checked concurrently like they run.

use std::borrow::Cow;

use super::Verdict;
use super::set::Guards;
use crate::message::ToolCall;
use crate::tool::{ToolCallError, ToolOutput};

/// `call` through the tool-input guardrails in order: the call to run (rewritten or not), or
/// the [`ToolCallError::Blocked`] that ends the run.
pub(crate) async fn check_call<'c, C: 'static>(
    guards: &Guards<C>,
    call: &'c ToolCall,
    context: &C,
) -> Result<Cow<'c, ToolCall>, ToolCallError> {
    let mut call = Cow::Borrowed(call);
    for guard in &guards.tool_input {
        match guard.check(&call, context).await {
            Verdict::Pass => {}
            Verdict::Rewrite(arguments) => {
                tracing::debug!(guardrail = guard.name(), tool = %call.name, "tool arguments rewritten by a guardrail");
                call.to_mut().arguments = arguments;
            }
            Verdict::Block(reason) => {
                return Err(ToolCallError::Blocked {
                    tool: call.name.clone(),
                    guardrail: guard.name().to_string(),
                    reason,
                });
            }
        }
    }
    Ok(call)
}

/// A successful `result` of `call` through the tool-output guardrails in order; an error
/// result is left as it is (the model sees the error, not a tool's output).
pub(crate) async fn check_result<C: 'static>(
    guards: &Guards<C>,
    call: &ToolCall,
    result: Result<ToolOutput, ToolCallError>,
    context: &C,
) -> Result<ToolOutput, ToolCallError> {
    let mut output = result?;
    for guard in &guards.tool_output {
        match guard.check(call, &output, context).await {
            Verdict::Pass => {}
            Verdict::Rewrite(rewritten) => {
                tracing::debug!(guardrail = guard.name(), tool = %call.name, "tool result rewritten by a guardrail");
                output = rewritten;
            }
            Verdict::Block(reason) => {
                return Err(ToolCallError::Blocked {
                    tool: call.name.clone(),
                    guardrail: guard.name().to_string(),
                    reason,
                });
            }
        }
    }
    Ok(output)
}
