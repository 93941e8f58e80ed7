//! The end of a turn whose calls stopped at questions (an [`Interrupt`](crate::Interrupt) ask,
//! an external tool): the run pauses, holding the questions and the results of the calls
//! that ran, and goes on from them when it is resumed with the answers
//! ([`Agent::resume`](super::Agent::resume)).
//!
//! Every call of the answer runs before the pause (a call that asks stops at its question;
//! the others finish). The pause is the run before the answer, like a review's: resuming
//! replays the answer without asking the model again; a call that ran keeps its saved result
//! and does not run again, and a call that asked runs again from its start with its answers.

use std::sync::Arc;

use super::core::RunCore;
use super::hooks;
use super::machine::Counters;
use super::toolset::Toolset;
use crate::message::Message;
use crate::model::{ChatResponse, FinishReason};
use crate::output::OutputSpec;
use crate::run::{
    Outcome, PAUSE_FORMAT_VERSION, Pause, PausedAnswer, PendingCall, RunError, RunErrorKind,
    RunSnapshot,
};
use crate::tool::Question;
use crate::usage::Usage;

use super::thread::minus;

/// The run just before an answer was taken in: what a pause at the answer's questions
/// restores.
pub(super) struct AnswerMark {
    /// The machine's counters before the answer.
    pub(super) counters: Counters,
    /// Where the answer's usage entry is in `request_usage`.
    pub(super) usage_at: usize,
    /// How many steps the run had.
    pub(super) steps_at: usize,
}

/// The calls of the current answer that stopped at a question, by call id.
pub(super) type Asked = Vec<(String, Question)>;

impl<T, O, C, S> RunCore<'_, T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Ends the run in a pause at the questions the calls of request `turn` asked.
    pub(super) fn paused_at_questions(
        mut self,
        turn: u32,
    ) -> Result<Outcome<O::Output, S>, RunError> {
        let asked = std::mem::take(&mut self.asked);
        let Some(mark) = self.mark.take() else {
            return Err(self.fail(RunErrorKind::StateInUse));
        };
        let record = &mut self.record;
        let mut messages = std::mem::take(&mut record.messages).into_vec();
        let at = messages
            .iter()
            .rposition(|m| matches!(m, Message::Assistant(a) if !a.tool_calls.is_empty()))
            .unwrap_or(messages.len());
        let results = messages.split_off(at.min(messages.len()));
        let mut results = results.into_iter();
        let Some(Message::Assistant(mut answer)) = results.next() else {
            // Unreachable: the calls that asked are the last answer's.
            return Err(self.fail(RunErrorKind::StateInUse));
        };
        let entry = (mark.usage_at < record.request_usage.len())
            .then(|| record.request_usage.remove(mark.usage_at));
        let (spent, model) =
            entry.map_or((Usage::default(), String::new()), |e| (e.usage, e.model));
        record.steps.truncate(mark.steps_at);
        let mut saved: Vec<_> = results
            .filter_map(|m| match m {
                Message::Tool(result) => Some(result),
                _ => None,
            })
            .collect();
        let calls: Vec<PendingCall> = std::mem::take(&mut answer.tool_calls)
            .into_iter()
            .map(|call| {
                let question = asked
                    .iter()
                    .find(|(id, _)| *id == call.id)
                    .map(|(_, q)| q.clone());
                let result = saved
                    .iter()
                    .position(|r| r.call_id == call.id)
                    .map(|i| saved.swap_remove(i));
                PendingCall {
                    call,
                    review: None,
                    question,
                    result,
                }
            })
            .collect();
        let mut counters = mark.counters;
        // The snapshot is the run before this request: replaying the answer counts it again.
        counters.turns = turn.saturating_sub(1);
        counters.usage = minus(self.machine.usage(), spent);
        let usage = minus(record.usage, spent);
        tracing::debug!(
            turn,
            questions = asked.len(),
            calls = calls.len(),
            "run paused at tool questions"
        );
        let state = match Arc::try_unwrap(self.state) {
            Ok(state) => state,
            Err(_) => {
                record.messages = messages.into();
                return Err(self.record.fail(RunErrorKind::StateInUse));
            }
        };
        let record = self.record;
        let pause = Pause {
            format_version: PAUSE_FORMAT_VERSION,
            id: hooks::new_pause_id(self.agent),
            snapshot: RunSnapshot {
                messages,
                state,
                usage,
                request_usage: record.request_usage,
                steps: record.steps,
                counters,
            },
            answer: PausedAnswer {
                turn,
                response: ChatResponse {
                    message: answer,
                    usage: spent,
                    finish_reason: FinishReason::ToolCalls,
                    model,
                    id: None,
                },
            },
            calls,
            seal: None,
        };
        hooks::sealed(self.agent, pause)
    }
}
