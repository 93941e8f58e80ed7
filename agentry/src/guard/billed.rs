//! What a request cancelled by an input guardrail is known to have cost.
//!
//! A provider reports a streamed request's usage in its stream: OpenAI's Chat Completions in
//! the last chunk only, Anthropic the prompt's tokens in its first event (`message_start`)
//! and the answer's at the end, Gemini with each chunk. A request cancelled in flight has
//! reported what it reported by then, which may be nothing; a request made with `invoke`
//! (not streamed) reports nothing until its answer arrives. The provider may still bill the
//! prompt of a request it had started on, so the usage a run reports for a cancelled request
//! is what the provider said, a lower bound of what it billed: the request is counted
//! (`requests: 1`), with the tokens its stream had reported, or none.

use std::sync::Mutex;

use crate::usage::Usage;

/// The usage a streamed request reported last, kept where the request's future does not own
/// it, so it outlives the request's cancellation. Boxed: it sits in every run's state, which
/// is kept small (`agent/future_size.rs`).
#[derive(Debug, Default)]
pub(crate) struct Reported(Box<Mutex<Option<Usage>>>);

impl Reported {
    /// Keeps `usage`, the stream's latest report (each replaces the one before: providers
    /// report running totals).
    pub(crate) fn record(&self, usage: Usage) {
        *self.lock() = Some(usage);
    }

    /// What a cancelled request is counted as: one request, with the tokens it reported.
    pub(crate) fn cancelled(&self) -> Usage {
        Usage {
            requests: 1,
            ..self.lock().take().unwrap_or_default()
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Usage>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }
}
