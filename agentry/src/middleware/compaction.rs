//! [`Compacted`]: a `before_model` hook that replaced the older part of the transcript with
//! a summary says so, and a run in a thread saves a compaction checkpoint instead of stopping
//! with [`ThreadError::Rewritten`](crate::run::ThreadError::Rewritten).

use super::BeforeModel;
use crate::message::Message;

/// A compaction of the transcript made in a `before_model` hook: the messages `start..end`
/// replaced by one summary message at `start`.
///
/// A thread saves it as a compaction checkpoint: the saved history keeps every original
/// message (for audit, [`Thread::messages`](crate::agent::Thread::messages)), and the next run
/// starts from the compacted view, the summary then the messages after the compacted part
/// ([`Thread::view`](crate::agent::Thread::view)). A thread accepts a compaction of the
/// oldest messages (`start` right after the system message) of messages it saved already.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Compacted {
    /// Where the summary is (the first replaced message).
    pub start: usize,
    /// Where the replaced messages ended (exclusive), before the compaction.
    pub end: usize,
}

impl BeforeModel {
    /// Replaces the transcript's messages `start..end` with `summary` and records the
    /// compaction ([`BeforeModel::compacted`]), so a thread saves it as a compaction
    /// checkpoint. Nothing happens for an empty or out-of-bounds range.
    ///
    /// ```
    /// use agentry::Message;
    /// use agentry::middleware::BeforeModel;
    ///
    /// fn compact(request: &mut BeforeModel) {
    ///     let end = request.messages.len().saturating_sub(2);
    ///     request.compact(1, end, Message::user("Summary: the user asked about Paris."));
    /// }
    /// # let _ = compact;
    /// ```
    pub fn compact(&mut self, start: usize, end: usize, summary: Message) {
        if start >= end || end > self.messages.len() {
            return;
        }
        self.messages.splice(start..end, [summary]);
        self.compacted = Some(Compacted { start, end });
    }

    /// The compaction made in this turn's `before_model` hooks, if any.
    pub fn compacted(&self) -> Option<Compacted> {
        self.compacted
    }
}
