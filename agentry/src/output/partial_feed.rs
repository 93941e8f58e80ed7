//! [`PartialFeed`]: the partial-JSON parser of one streamed answer, fed its deltas until its
//! first error. Both streams of typed output use it: [`StructuredModel::stream`]
//! (`model.structured::<T>().stream(..)`) and an agent's
//! [`AgentEvent::PartialOutput`](crate::run::AgentEvent::PartialOutput)s.
//!
//! [`StructuredModel::stream`]: super::StructuredModel::stream

use super::partial::PartialJson;
use super::partial_output::PartialOutput;

/// A parser and whether it failed. After its first error it reads nothing more: the partial
/// values stop, and the whole answer is parsed (and re-asked if invalid) when it ends.
pub(crate) struct PartialFeed {
    parser: PartialJson,
    broken: bool,
}

impl PartialFeed {
    /// Feeds `parser`.
    pub(crate) fn new(parser: PartialJson) -> Self {
        PartialFeed {
            parser,
            broken: false,
        }
    }

    /// Starts again with `parser` (a new attempt, or the final-answer tool's arguments).
    pub(crate) fn restart(&mut self, parser: PartialJson) {
        *self = PartialFeed::new(parser);
    }

    /// Whether the JSON went wrong.
    pub(crate) fn is_broken(&self) -> bool {
        self.broken
    }

    /// The parser.
    pub(crate) fn parser(&self) -> &PartialJson {
        &self.parser
    }

    /// Feeds a delta; the value so far (under the wrapper key of a `wrapped` output) when it
    /// changed.
    pub(crate) fn feed<T>(&mut self, delta: &str, wrapped: bool) -> Option<PartialOutput<T>> {
        if self.broken {
            return None;
        }
        match self.parser.push(delta) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(error) => {
                tracing::debug!(%error, "streamed output is not valid JSON; waiting for the whole answer");
                self.broken = true;
                return None;
            }
        }
        PartialOutput::tapped(&self.parser, wrapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_error_stops_the_partial_values_until_a_restart() {
        let mut feed = PartialFeed::new(PartialJson::new());
        let first: Option<PartialOutput<()>> = feed.feed(r#"{"a": 1"#, false);
        assert!(first.is_some());
        assert!(feed.feed::<()>("}}", false).is_none());
        assert!(feed.is_broken());
        assert!(
            feed.feed::<()>(r#"{"b": 2}"#, false).is_none(),
            "nothing after the error"
        );
        feed.restart(PartialJson::new());
        assert!(!feed.is_broken());
        assert!(feed.feed::<()>(r#"{"b": 2}"#, false).is_some());
        assert!(feed.parser().is_complete());
    }
}
