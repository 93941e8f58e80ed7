//! The output spec of `#[agent(output = T)]`, made so that a `T` that is not a structured
//! output is one compile error: `(&&OutputProbe::<T>::new()).structured_spec()` picks, by
//! auto-ref, [`StructuredSpec::default`] for a structured output and a stand-in for anything
//! else, which `#[agent]` reports on the user's `output = ..` (with `AgentOutput`'s message)
//! and which never runs. An output type no answer fills (a tuple, a reference) gets that
//! stand-in directly ([`rejected_spec`]). Used by `#[agent]`; public under `__private::agent`.

use std::marker::PhantomData;

use super::output::AgentOutput;
use crate::output::derive_bounds::Derived;
use crate::output::{StructuredOutput, StructuredSpec};

/// Probes an agent's output type: `(&&OutputProbe::<T>::new()).structured_spec()` is the
/// output's spec for a structured output, and for anything else a stand-in that `#[agent]`
/// reports on the user's `output = ..`.
pub struct OutputProbe<T>(PhantomData<fn() -> T>);

impl<T> OutputProbe<T> {
    /// A probe for `T`.
    pub const fn new() -> Self {
        OutputProbe(PhantomData)
    }
}

impl<T> Default for OutputProbe<T> {
    fn default() -> Self {
        OutputProbe::new()
    }
}

/// Chosen first: a structured output.
pub trait ProbeStructured<T> {
    /// The output's spec.
    fn structured_spec(&self) -> StructuredSpec<T>;
}

impl<T: StructuredOutput> ProbeStructured<T> for &OutputProbe<T> {
    fn structured_spec(&self) -> StructuredSpec<T> {
        StructuredSpec::default()
    }
}

/// Chosen otherwise: a type `#[agent]` reports as not a structured output.
pub trait ProbeRejected<T> {
    /// A spec that refuses every answer (never run: the crate does not compile).
    fn structured_spec(&self) -> StructuredSpec<T>;
}

impl<T> ProbeRejected<T> for OutputProbe<T> {
    fn structured_spec(&self) -> StructuredSpec<T> {
        rejected_spec()
    }
}

/// Checks an agent's output type: `(&&&OutputProbe::<T>::new()).output_check().check()` is
/// nothing for a structured output, nothing for a type `#[derive(StructuredOutput)]` was
/// written on (which reports what the type lacks itself), and for anything else an error at
/// the user's `output = ..` with `AgentOutput`'s message.
pub trait CheckStructured {
    /// Nothing to report.
    fn output_check(&self) -> OutputOk;
}

impl<T: StructuredOutput> CheckStructured for &&OutputProbe<T> {
    fn output_check(&self) -> OutputOk {
        OutputOk
    }
}

/// Chosen second: a derived output missing a companion derive, reported by the derive.
pub trait CheckDerived {
    /// Nothing to report.
    fn output_check(&self) -> OutputOk;
}

impl<T: Derived> CheckDerived for &OutputProbe<T> {
    fn output_check(&self) -> OutputOk {
        OutputOk
    }
}

/// Chosen last: a type that is not a structured output.
pub trait CheckRejected<T> {
    /// The error to report.
    fn output_check(&self) -> NotStructured<T>;
}

impl<T> CheckRejected<T> for OutputProbe<T> {
    fn output_check(&self) -> NotStructured<T> {
        NotStructured(PhantomData)
    }
}

/// Nothing to report.
pub struct OutputOk;

impl OutputOk {
    /// Nothing to report.
    pub fn check(self) {}
}

/// An output type that is not a structured output.
pub struct NotStructured<T>(PhantomData<fn() -> T>);

impl<T> NotStructured<T> {
    /// Reports, with `AgentOutput`'s message, that `T` is not a structured output.
    pub fn check(self)
    where
        T: AgentOutput,
    {
    }
}

/// The spec of an output type `#[agent]` rejected with an error of its own: one no answer
/// fills (a tuple, a reference, an array, `Option`, `Result`), or one that is not a structured
/// output. The agent's uses (`Critic::builder(..).build()`, `run.output`) type-check and add
/// no second error; a crate containing it does not compile, so it never runs, and were it
/// run it would refuse every answer.
pub fn rejected_spec<T>() -> StructuredSpec<T> {
    StructuredSpec::rejected()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::OutputSpec;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Answer {
        #[allow(dead_code)]
        n: u32,
    }

    impl StructuredOutput for Answer {}

    struct NotStructured;

    #[test]
    // The borrows pick the impl, as in the `#[agent]` expansion.
    #[allow(clippy::needless_borrow)]
    fn a_structured_output_gets_its_spec_and_anything_else_a_spec_refusing_every_answer() {
        let spec = (&&OutputProbe::<Answer>::new()).structured_spec();
        assert_eq!(spec.name(), "Answer");
        let rejected = (&&OutputProbe::<NotStructured>::new()).structured_spec();
        let answer = crate::message::AssistantMessage {
            content: vec![crate::message::ContentBlock::text("{}")],
            ..Default::default()
        };
        assert!(matches!(
            rejected.parse(&answer),
            crate::output::OutputParse::Retry { .. }
        ));
    }
}
