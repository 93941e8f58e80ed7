//! Which output types an agent can produce: [`AgentOutput`].

use crate::output::{OutputSpec, StructuredOutput, StructuredSpec};

/// A type that `#[agent(output = T)]` accepts: it names the [`OutputSpec`] that asks the model
/// for a `T` and parses it.
///
/// Every [`StructuredOutput`] is one, asked for with [`StructuredSpec`] in
/// [`OutputMode::Auto`](crate::output::OutputMode::Auto). An agent without `output` answers
/// in plain text ([`TextOutput`](crate::output::TextOutput)), and so does `output = String`.
/// To choose a strategy explicitly, pass a spec to
/// [`AgentBuilder::output`](super::AgentBuilder::output).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the output of an agent: it is not a structured output",
    label = "not a structured output",
    note = "add `#[derive(Deserialize, JsonSchema, StructuredOutput)]` to `{Self}` (for a type of another crate, to a struct of yours holding it), or remove `output = ...` for a plain-text answer"
)]
pub trait AgentOutput: Send + 'static {
    /// The spec that produces `Self`.
    type Spec: OutputSpec<Output = Self>;

    /// The default spec.
    fn output_spec() -> Self::Spec;

    /// The name of the final-answer tool, when known at compile time.
    #[doc(hidden)]
    const FINAL_ANSWER_NAME: Option<&'static str> = None;
}

impl<T: StructuredOutput> AgentOutput for T {
    type Spec = StructuredSpec<T>;
    const FINAL_ANSWER_NAME: Option<&'static str> = T::OUTPUT_NAME;

    fn output_spec() -> StructuredSpec<T> {
        StructuredSpec::default()
    }
}
