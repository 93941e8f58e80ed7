//! Running a builder: `MyAgent::builder(model).run(..)` (the `.build()` forgotten) is one
//! error that says to build first. Without these methods rustc says "no method named `run`
//! found for struct `AgentBuilder`", and nothing about `.build()`.

use super::builder::AgentBuilder;
use super::context::IntoContext;
use super::run_future::RunFuture;
use super::stream::AgentStream;
use super::toolset::Toolset;
use crate::agent::IntoInput;
use crate::output::OutputSpec;

/// Implemented by no type: the bound of the builder's `run` and `stream`, which exist only to
/// be refused with this message. Not nameable outside the crate, so never implemented.
#[diagnostic::on_unimplemented(
    message = "an agent's builder cannot run: call `.build()` first",
    label = "this is the builder, not the agent",
    note = "build the agent once and run it as often as you like: `let agent = MyAgent::builder(model).build();`, then `agent.run(\"..\", context)`"
)]
pub trait Built {
    /// Never called: no type implements `Built`.
    fn absurd(&self) -> !;
}

impl<T, O, C, S> AgentBuilder<T, O, C, S>
where
    T: Toolset<C, S>,
    O: OutputSpec,
    C: Send + Sync + 'static,
    S: Send + Sync + 'static,
{
    /// Refused at compile time: call [`build`](Self::build) first.
    #[doc(hidden)]
    pub fn run(
        &self,
        _input: impl IntoInput,
        _context: impl IntoContext<C>,
    ) -> RunFuture<'_, O::Output, S>
    where
        Self: Built,
    {
        self.absurd()
    }

    /// Refused at compile time: call [`build`](Self::build) first.
    #[doc(hidden)]
    pub fn stream(
        &self,
        _input: impl IntoInput,
        _context: impl IntoContext<C>,
    ) -> AgentStream<'_, O::Output, S, T::Event>
    where
        Self: Built,
    {
        self.absurd()
    }
}
