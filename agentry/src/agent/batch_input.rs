//! [`BatchInput`]: one input of [`Agent::batch`](super::Agent::batch), with its context.

use std::sync::Arc;

use super::context::IntoContext;
use super::input::{Input, IntoInput};

/// One input of [`Agent::batch`](super::Agent::batch): `(input, context)`, or, for an agent
/// without a context, the input alone.
///
/// The input is anything a run takes (`&str`, `String`, [`Input`], ...); the context is the
/// agent's context type or an `Arc` of it.
///
/// ```
/// use agentry::agent::{AgentBuilder, NoTools};
/// use agentry::testing::{ScriptedModel, Turn};
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let model = ScriptedModel::new([Turn::text("A trait."), Turn::text("A crate.")]);
/// let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools).build();
/// // Without a context, the inputs alone; `[("What is a trait?", ()), ..]` is the same.
/// let results = agent.batch(["What is a trait?", "What is a crate?"], 1).await;
/// assert_eq!(results[1].as_ref().unwrap().output, "A crate.");
/// # });
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not one input of a batch for an agent with context `{C}`",
    label = "each input of `batch` is `(input, context)`",
    note = "write `agent.batch([(\"first question\", context.clone()), (\"second question\", context)], concurrency)`; an agent without a context (`()`) takes the inputs alone, `agent.batch([\"first question\", \"second question\"], concurrency)`"
)]
pub trait BatchInput<C> {
    /// The run's input and context.
    fn into_parts(self) -> (Input, Arc<C>);
}

impl<I: Into<Input>, X: IntoContext<C>, C> BatchInput<C> for (I, X) {
    fn into_parts(self) -> (Input, Arc<C>) {
        (self.0.into(), self.1.into_context())
    }
}

impl<I: IntoInput> BatchInput<()> for I {
    fn into_parts(self) -> (Input, Arc<()>) {
        (self.into(), Arc::new(()))
    }
}
