//! Streaming the typed output of a run as it arrives: the final-answer tool's arguments (tool
//! mode) or the answer's JSON text (native mode) are parsed incrementally into
//! [`AgentEvent::PartialOutput`](super::AgentEvent::PartialOutput)s, in time linear in the
//! bytes received (the partial value is shared, not copied, per delta).

use crate::model::ChatRequest;
use crate::output::partial_feed::PartialFeed;
use crate::output::{OutputSpec, PartialJson, PartialOutput};

/// The partial-output parser of one model request.
pub(crate) struct OutputTap {
    native: bool,
    wrapped: bool,
    /// The stream index of the final-answer tool's call, once it started.
    output_call: Option<usize>,
    /// Stops at the JSON's first error: the whole answer is then parsed (and re-asked).
    partial: PartialFeed,
}

impl OutputTap {
    /// The tap for `request`, as `output` prepared it.
    pub(crate) fn new<O: OutputSpec>(output: &O, request: &ChatRequest) -> Self {
        OutputTap {
            native: output.streams_native(request),
            wrapped: output.is_wrapped(),
            output_call: None,
            partial: PartialFeed::new(PartialJson::skipping_prose()),
        }
    }

    /// A tool call started: whether it is the final answer (then its deltas go to
    /// [`feed_call`](Self::feed_call) and it is not reported as a tool call).
    pub(crate) fn start_call(&mut self, index: usize, is_output_tool: bool) -> bool {
        if !is_output_tool || self.output_call.is_some() {
            return false;
        }
        self.output_call = Some(index);
        self.partial.restart(PartialJson::new());
        true
    }

    /// Whether the call at `index` is the final answer being tapped.
    pub(crate) fn is_output_call(&self, index: usize) -> bool {
        self.output_call == Some(index)
    }

    /// A piece of the final-answer call's arguments; the output so far when it changed.
    pub(crate) fn feed_call(&mut self, arguments: &str) -> Option<PartialOutput> {
        self.feed(arguments)
    }

    /// A piece of answer text; the output so far when the text is the native JSON answer and
    /// the value changed.
    pub(crate) fn feed_text(&mut self, text: &str) -> Option<PartialOutput> {
        if !self.native || self.output_call.is_some() {
            return None;
        }
        self.feed(text)
    }

    fn feed(&mut self, delta: &str) -> Option<PartialOutput> {
        self.partial.feed(delta, self.wrapped)
    }
}
