//! The transcript a run builds: its messages, usage and steps.

use super::history;
use crate::message::{ContentBlock, Message, ToolCall, ToolResultMessage};
use crate::messages::Messages;
use crate::run::{PartialRun, RunError, RunErrorKind};
use crate::run::{RequestUsage, Step};
use crate::usage::Usage;

/// The transcript being built.
pub(super) struct Record {
    pub(super) messages: Messages,
    pub(super) usage: Usage,
    pub(super) request_usage: Vec<RequestUsage>,
    pub(super) steps: Vec<Step>,
    /// Results of the answer in flight whose calls completed before the rest of their group:
    /// saved with the run's bookkeeping (not in the transcript, which takes every result of a
    /// group at once, in the model's order), so a crash does not count them as lost.
    pub(super) completed: Vec<ToolResultMessage>,
    /// A compaction this turn's `before_model` hooks made, for the journal to save (boxed:
    /// the record is in every run's future, and a compaction is rare).
    pub(super) compacted: Option<Box<crate::middleware::Compacted>>,
}

impl Record {
    pub(super) fn fail(mut self, kind: RunErrorKind) -> RunError {
        tracing::debug!(error = %kind, "run failed");
        history::answer_pending(&mut self.messages, "Not run: the run stopped.", true);
        RunError::new(
            kind,
            PartialRun {
                messages: self.messages.into_vec(),
                usage: self.usage,
                request_usage: self.request_usage,
                steps: self.steps,
            },
        )
    }

    /// Answers calls that will not run, so the history stays valid for every provider.
    pub(super) fn skip(&mut self, calls: &[ToolCall], why: &str) {
        for call in calls {
            self.messages.push(Message::Tool(ToolResultMessage {
                call_id: call.id.clone(),
                name: call.name.clone(),
                content: vec![ContentBlock::text(format!("Not run: {why}."))],
                is_error: true,
            }));
        }
    }
}
