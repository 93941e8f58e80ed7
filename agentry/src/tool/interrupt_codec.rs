//! How an [`Interrupt`]'s question is written and its answer read: two function pointers,
//! chosen where the question and answer types are known to serialize, so that `ask` itself
//! asks nothing of them.
//!
//! `#[tool]` makes a tool's `Interrupt<Q, A>` through [`InterruptProbe`]: when `Q` serializes
//! and `A` deserializes it gets the real codec; when not, the tool's one check
//! ([`InterruptTypes`](super::interrupt::InterruptTypes), at the parameter's type) fails the
//! build, and the probe's fallback keeps the tool's body (its `ask(..)`) free of a second
//! error.

use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::Value;

use super::interrupt::{Interrupt, InterruptAnswer, InterruptQuestion};
use super::runtime::{Inject, InjectError, ToolRuntime};

/// Writes an interrupt's question as JSON and reads its answer back.
pub(crate) struct Codec<Q, A> {
    pub(crate) question: fn(&Q) -> Result<Value, String>,
    pub(crate) answer: fn(Value) -> Result<A, String>,
}

impl<Q, A> Clone for Codec<Q, A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<Q, A> Copy for Codec<Q, A> {}

/// The codec of question type `Q` and answer type `A`.
pub(crate) fn codec<Q: InterruptQuestion, A: InterruptAnswer>() -> Codec<Q, A> {
    Codec {
        question: |question| {
            serde_json::to_value(question)
                .map_err(|e| format!("the tool's question does not serialize: {e}"))
        },
        answer: |answer| {
            serde_json::from_value::<A>(answer).map_err(|e| {
                format!(
                    "the answer supplied to the tool's question does not fit `{}`: {e}",
                    std::any::type_name::<A>()
                )
            })
        },
    }
}

/// The codec of types that do not serialize: only ever in a program that does not build
/// (see the module's docs); each use fails the call with an error the model reads.
impl<Q, A> Codec<Q, A> {
    pub(crate) fn unfit() -> Codec<Q, A> {
        Codec {
            question: |_| Err("the tool's question type does not serialize".to_string()),
            answer: |_| Err("the tool's answer type does not deserialize".to_string()),
        }
    }
}

/// Makes a tool's `Interrupt` (`T` is the parameter's type). Used by `#[tool]`; public as
/// `__private::InterruptProbe`.
pub struct InterruptProbe<T>(PhantomData<T>);

impl<T> InterruptProbe<T> {
    /// The probe of parameter type `T`.
    pub fn new() -> Self {
        InterruptProbe(PhantomData)
    }
}

impl<T> Default for InterruptProbe<T> {
    fn default() -> Self {
        Self::new()
    }
}

/// The probe's first choice, `(&&probe).make(rt)`: the interrupt as [`Inject`] makes it,
/// with its codec.
pub trait ProbeInterrupt<Q, A> {
    /// This call's interrupt.
    fn make<C, S>(&self, rt: &ToolRuntime<C, S>) -> Result<Interrupt<Q, A>, InjectError>;
}

impl<Q: InterruptQuestion, A: InterruptAnswer> ProbeInterrupt<Q, A>
    for &InterruptProbe<Interrupt<Q, A>>
{
    fn make<C, S>(&self, rt: &ToolRuntime<C, S>) -> Result<Interrupt<Q, A>, InjectError> {
        <Interrupt<Q, A> as Inject<C, S>>::inject(rt)
    }
}

/// The probe's fallback, for types that do not serialize (see the module's docs).
pub trait ProbeInterruptUnfit<Q, A> {
    /// This call's interrupt, which fails at its first ask.
    fn make<C, S>(&self, rt: &ToolRuntime<C, S>) -> Result<Interrupt<Q, A>, InjectError>;
}

impl<Q, A> ProbeInterruptUnfit<Q, A> for InterruptProbe<Interrupt<Q, A>> {
    fn make<C, S>(&self, rt: &ToolRuntime<C, S>) -> Result<Interrupt<Q, A>, InjectError> {
        Ok(Interrupt::new(Arc::clone(rt.ask_slot()), Codec::unfit()))
    }
}
