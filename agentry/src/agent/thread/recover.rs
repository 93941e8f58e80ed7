//! Going on with a run whose process died: from the thread's newest checkpoint to a
//! [`Start`] for the driver.
//!
//! The newest checkpoint of a running run is one of:
//! - its input, before the first answer — the run asks the model;
//! - a model answer whose calls were running, with the results of those that completed
//!   (each saved as it completed) — the answer is replayed without asking the model again:
//!   a completed call keeps its saved result and does not run again; of the others, calls of
//!   idempotent tools run again, every other call is answered with [`NOT_COMPLETED`] and
//!   does not run;
//! - the results of an answer's calls — the run asks the model.

use super::journal::{AnswerInfo, RunInfo};
use crate::agent::history;
use crate::agent::machine::Counters;
use crate::agent::resume::Replay;
use crate::message::{AssistantMessage, Message};
use crate::model::{ChatResponse, FinishReason};
use crate::run::Step;
use crate::tool::{ToolCallError, ToolError, ToolOutput};
use crate::usage::Usage;

/// What the model reads for a call that was in flight at a crash and is not re-run.
pub const NOT_COMPLETED: &str = "the call did not complete: the process running it stopped before its result was saved, so it may or may not have taken effect; it was not run again";

/// The run to go on with, from a running thread's newest checkpoint.
pub(crate) struct Recovered {
    /// The thread's messages the run goes on from (without the system message).
    pub(crate) messages: Vec<Message>,
    pub(crate) counters: Counters,
    pub(crate) usage: Usage,
    pub(crate) steps: Vec<Step>,
    pub(crate) replay: Option<Replay>,
}

/// Splits a running thread's checkpoint into the run before its last answer and that answer
/// to replay; `idempotent` says which in-flight calls run again.
pub(crate) fn recover(
    mut messages: Vec<Message>,
    usage: Usage,
    info: RunInfo,
    idempotent: impl Fn(&crate::message::ToolCall) -> bool,
) -> Recovered {
    // The answer in flight: the last answer with calls, followed only by results of some
    // of them (saved as they completed).
    let answered = messages
        .iter()
        .rev()
        .take_while(|m| matches!(m, Message::Tool(_)))
        .count();
    let at = messages.len() - answered;
    let pending_answer = info.answer.is_some()
        && at > 0
        && matches!(&messages[at - 1], Message::Assistant(a) if !a.tool_calls.is_empty());
    if let (
        true,
        Some(AnswerInfo {
            usage: spent,
            model,
        }),
    ) = (pending_answer, info.answer.clone())
    {
        let mut done: Vec<Message> = messages.split_off(at);
        done.extend(info.completed.iter().cloned().map(Message::Tool));
        let steps = steps_since(&messages, info.run_start);
        let Some(Message::Assistant(answer)) = messages.pop() else {
            unreachable!("checked above");
        };
        let result_of = |call: &crate::message::ToolCall| {
            done.iter().find_map(|m| match m {
                Message::Tool(r) if r.call_id == call.id => Some(r),
                _ => None,
            })
        };
        let mut verbatim = Vec::new();
        let decided = answer
            .tool_calls
            .iter()
            .filter_map(|call| {
                if let Some(saved) = result_of(call) {
                    verbatim.push(Message::Tool(saved.clone()));
                    return Some((call.id.clone(), saved_result(call, saved)));
                }
                if idempotent(call) {
                    return None;
                }
                let error = ToolCallError::Failed {
                    tool: call.name.clone(),
                    source: ToolError::new(NOT_COMPLETED),
                };
                Some((call.id.clone(), Err::<ToolOutput, _>(error)))
            })
            .collect();
        // The snapshot is the run before the answer's request; replaying counts it again.
        let mut counters = info.machine;
        counters.turns = counters.turns.saturating_sub(1);
        counters.usage = minus(counters.usage, spent);
        return Recovered {
            messages,
            counters,
            usage: minus(usage, spent),
            steps,
            replay: Some(Replay {
                answer: ChatResponse {
                    message: answer,
                    usage: spent,
                    finish_reason: FinishReason::ToolCalls,
                    model,
                    id: None,
                },
                decided,
                verbatim,
                answers: Vec::new(),
            }),
        };
    }
    let steps = steps_since(&messages, info.run_start);
    // No answer in flight. A transcript with calls left unanswered (written elsewhere) is
    // repaired as a fresh run's history would be.
    history::answer_pending(&mut messages, &format!("Not run: {NOT_COMPLETED}."), true);
    Recovered {
        messages,
        counters: info.machine,
        usage,
        steps,
        replay: None,
    }
}

/// `a - b`, field by field, never below zero.
pub(crate) fn minus(a: Usage, b: Usage) -> Usage {
    Usage {
        input_tokens: a.input_tokens.saturating_sub(b.input_tokens),
        output_tokens: a.output_tokens.saturating_sub(b.output_tokens),
        cached_input_tokens: a.cached_input_tokens.saturating_sub(b.cached_input_tokens),
        cache_write_tokens: a.cache_write_tokens.saturating_sub(b.cache_write_tokens),
        reasoning_tokens: a.reasoning_tokens.saturating_sub(b.reasoning_tokens),
        requests: a.requests.saturating_sub(b.requests),
    }
}

/// A saved result as the call's step reads it (the model reads the saved message itself).
pub(crate) fn saved_result(
    call: &crate::message::ToolCall,
    saved: &crate::message::ToolResultMessage,
) -> Result<ToolOutput, ToolCallError> {
    if saved.is_error {
        let text: String = saved.content.iter().filter_map(|b| b.as_text()).collect();
        Err(ToolCallError::Failed {
            tool: call.name.clone(),
            source: ToolError::new(text),
        })
    } else {
        Ok(ToolOutput {
            content: saved.content.clone(),
            artifact: None,
        })
    }
}

/// The run's steps, rebuilt from its messages: each tool result with its call. Errors come
/// back as [`ToolCallError::Failed`] with the text the model read.
pub(crate) fn steps_since(messages: &[Message], run_start: usize) -> Vec<Step> {
    let mut steps = Vec::new();
    let mut turn = 0u32;
    let mut answer: Option<&AssistantMessage> = None;
    for message in messages.get(run_start..).unwrap_or_default() {
        match message {
            Message::Assistant(a) => {
                turn += 1;
                answer = Some(a);
            }
            Message::Tool(result) => {
                let Some(call) =
                    answer.and_then(|a| a.tool_calls.iter().find(|c| c.id == result.call_id))
                else {
                    continue;
                };
                let text = || {
                    result
                        .content
                        .iter()
                        .filter_map(|b| b.as_text())
                        .collect::<Vec<_>>()
                        .join("")
                };
                steps.push(Step {
                    turn,
                    call: call.clone(),
                    result: if result.is_error {
                        Err(ToolCallError::Failed {
                            tool: call.name.clone(),
                            source: ToolError::new(text()),
                        })
                    } else {
                        Ok(ToolOutput {
                            content: result.content.clone(),
                            artifact: None,
                        })
                    },
                });
            }
            _ => {}
        }
    }
    steps
}
