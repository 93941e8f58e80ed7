//! [`RunCore::group_done`]: one group of tool calls' results taken into the run (the state
//! updates in the model's order, the tool messages, the steps) and the machine's verdict on
//! them.

use std::ops::Range;
use std::sync::Arc;

use super::call::tool_message;
use super::core::{CallResult, RunCore, Turn};
use super::driver::time_limit;
use super::machine::{AfterTools, CallOutcome};
use super::one_or_many::OneOrMany;
use super::toolset::Toolset;
use crate::message::{AssistantMessage, Message, ToolCall};
use crate::output::{OutputParse, OutputSpec};
use crate::run::{AgentEvent, RunErrorKind, RunScope, Step, StopReason};
use crate::tool::ToolCallError;

impl<'a, T, O, C, S> RunCore<'a, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Takes in one group's results (`None`: the time limit passed while it ran): its
    /// sub-agents' usage, the state updates in the model's order, the tool messages and
    /// steps, and the machine's verdict. `Some` output ends the run (a `return_direct` tool).
    #[inline(always)]
    pub(super) fn group_done(
        &mut self,
        turn: Turn,
        calls: &mut [ToolCall],
        range: Range<usize>,
        scope: Arc<RunScope>,
        results: Option<OneOrMany<CallResult<S>>>,
        flags: &[bool],
    ) -> Result<Option<(O::Output, StopReason)>, RunErrorKind> {
        let record = &mut self.record;
        self.machine
            .add_usage(scope.absorb(&mut record.usage, &mut record.request_usage));
        let Some(mut results) = results else {
            record.skip(&calls[range.start..], "the run's time limit was reached");
            return Err(time_limit(self.agent));
        };
        // State updates of successful calls, applied in the order the model emitted the
        // calls, now that no tool holds the snapshot.
        for (result, updates) in results.as_mut_slice() {
            if result.is_ok() && !updates.is_empty() {
                let Some(target) = Arc::get_mut(&mut self.state) else {
                    record.skip(&calls[range.start..], "the run stopped");
                    return Err(RunErrorKind::StateInUse);
                };
                updates.take().apply(target);
            }
        }
        let group = &calls[range.clone()];
        for (call, (result, _)) in group.iter().zip(results.as_slice()) {
            // A call that asked has no result yet: the run pauses after the answer's calls.
            if let Err(ToolCallError::Interrupted { question, .. }) = result {
                self.asked.push((call.id.clone(), (**question).clone()));
                continue;
            }
            let message = match self.verbatim.iter().position(|m| answers(m, call)) {
                Some(at) => self.verbatim.swap_remove(at),
                None => tool_message(call, result),
            };
            record.messages.push(message);
        }
        let verdict = {
            let mut outcomes = group.iter().zip(results.as_slice()).zip(flags).map(
                |((call, (result, _)), &return_direct)| CallOutcome {
                    tool: &call.name,
                    return_direct,
                    result,
                },
            );
            if range.len() == 1 {
                match outcomes.next() {
                    Some(one) => self.machine.after_tools(std::slice::from_ref(&one)),
                    None => AfterTools::Continue,
                }
            } else {
                self.machine.after_tools(&outcomes.collect::<Vec<_>>())
            }
        };
        let first_step = record.steps.len();
        if first_step == 0 {
            // The run's first steps: room for this group only. A first push makes room for
            // four (640 bytes), which a run of one call keeps in its result unused.
            record.steps.reserve_exact(range.len());
        }
        // The group's calls are done with (later error paths only skip the calls after the
        // group): each moves into its step.
        for (call, (result, _)) in calls[range.clone()].iter_mut().zip(results) {
            if matches!(result, Err(ToolCallError::Interrupted { .. })) {
                continue;
            }
            let step = Step {
                turn: turn.number,
                call: std::mem::replace(call, ToolCall::new("", "", "")),
                result,
            };
            if let Some(sinks) = &self.sinks {
                let _ = sinks
                    .events
                    .send(AgentEvent::ToolResult(Box::new(step.clone())));
            }
            record.steps.push(step);
        }
        match verdict {
            AfterTools::Continue => Ok(None),
            AfterTools::Fail(kind) => {
                record.skip(&calls[range.end..], "the run stopped");
                Err(kind)
            }
            // A call of an earlier group asked: the run pauses after the answer's calls, and
            // the output waits for the resume (the machine saw only this group).
            AfterTools::ReturnDirect(_) if !self.asked.is_empty() => Ok(None),
            AfterTools::ReturnDirect(index) => {
                record.skip(&calls[range.end..], "a tool ended the run");
                let step = &record.steps[first_step + index];
                let tool = step.call.name.clone();
                let content = match &step.result {
                    Ok(output) => output.content.clone(),
                    Err(_) => Vec::new(),
                };
                let parsed = self.agent.parts.output.parse(&AssistantMessage {
                    content,
                    ..AssistantMessage::default()
                });
                match parsed {
                    OutputParse::Done(output) => {
                        Ok(Some((output, StopReason::ReturnDirect { tool })))
                    }
                    OutputParse::Retry { error, .. } | OutputParse::Refused(error) => {
                        Err(RunErrorKind::ReturnDirectOutput { tool, error })
                    }
                    OutputParse::Continue => Err(RunErrorKind::ReturnDirectOutput {
                        tool,
                        error: "it was not accepted as a final answer".to_string(),
                    }),
                }
            }
        }
    }
}

/// Whether `message` is the tool result answering `call`.
fn answers(message: &Message, call: &ToolCall) -> bool {
    matches!(message, Message::Tool(result) if result.call_id == call.id)
}
