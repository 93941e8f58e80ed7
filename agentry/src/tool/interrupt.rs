//! [`Interrupt`]: a tool parameter that asks a person a question in the middle of the tool's
//! work, pausing the whole run until the answer comes back.
//!
//! How it works (as LangGraph's `interrupt`): the first time a call asks, the call stops
//! there — its future is dropped — and the run ends in a [`Pause`](crate::agent::Pause) that
//! carries the question. Resuming with an answer runs **the tool again from its start** with
//! the answer supplied, so the same `ask` returns it at once. Code before an `ask` therefore
//! runs twice (once before the pause, once after): keep side effects after the last `ask`,
//! or make them idempotent. Several asks in one call are answered in order: the second ask
//! pauses the run again, and its resume supplies both answers.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context as TaskContext, Poll};

use futures::future::BoxFuture;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::interrupt_codec::{Codec, codec};
use super::invoke::ToolCallError;
use super::output::{ToolError, ToolOutput};
use super::runtime::{Inject, InjectError, ToolRuntime, lock};

/// What stopped a call: the question it asked, and the answers it had already been given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Question {
    /// The question, as JSON: the tool's `Q` serialized (`null` for an external tool, whose
    /// question is its call's arguments).
    pub question: Value,
    /// The answers to the call's earlier asks, in order: supplied again when it re-runs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answered: Vec<Value>,
    /// Who is asked: a person (an [`Interrupt`] in the tool) or the caller that runs an
    /// external tool.
    pub kind: QuestionKind,
}

/// Who answers a [`Question`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuestionKind {
    /// A tool asked through an [`Interrupt`] parameter; the answer is the interrupt's `A`.
    Ask,
    /// An external tool (`#[tool(external)]`, [`ExternalTool`](crate::agent::ExternalTool)):
    /// the caller runs it, and the answer is its result.
    External,
}

/// Why an ask did not return: set by the ask, read by the runtime after the call's future
/// stopped making progress.
#[derive(Debug)]
pub(crate) enum Stopped {
    /// The call asked; the run pauses.
    Asked(Question),
    /// The call cannot go on (its question did not serialize, or a supplied answer did not
    /// fit): the model reads this error.
    Failed(String),
}

/// One call's asks: the answers supplied for it, how many were used, and why it stopped.
#[derive(Debug, Default)]
pub(crate) struct AskSlot {
    inner: Mutex<AskState>,
}

#[derive(Debug, Default)]
struct AskState {
    answers: Vec<Value>,
    used: usize,
    stopped: Option<Stopped>,
}

impl AskSlot {
    pub(crate) fn new(answers: Vec<Value>) -> Self {
        AskSlot {
            inner: Mutex::new(AskState {
                answers,
                used: 0,
                stopped: None,
            }),
        }
    }

    /// The next supplied answer, or records `question` and returns `None`.
    fn next(
        &self,
        question: impl FnOnce() -> Result<Value, String>,
        kind: QuestionKind,
    ) -> Option<Value> {
        let mut state = lock(&self.inner);
        if state.stopped.is_some() {
            return None;
        }
        if let Some(answer) = state.answers.get(state.used).cloned() {
            state.used += 1;
            return Some(answer);
        }
        state.stopped = Some(match question() {
            Ok(question) => Stopped::Asked(Question {
                question,
                answered: state.answers.clone(),
                kind,
            }),
            Err(error) => Stopped::Failed(error),
        });
        None
    }

    fn fail(&self, error: String) {
        let mut state = lock(&self.inner);
        if state.stopped.is_none() {
            state.stopped = Some(Stopped::Failed(error));
        }
    }

    pub(crate) fn take_stopped(&self) -> Option<Stopped> {
        lock(&self.inner).stopped.take()
    }
}

/// Asks a person a typed question from inside a tool, pausing the run until the answer comes.
///
/// Take it as a parameter of an `async` tool (it is injected, like [`Context`](crate::Context)).
/// `Q` is the question (it serializes into the [`Pause`](crate::agent::Pause)), `A` the answer
/// (checked against `A` when the run is resumed: an answer of another shape is refused with
/// [`ResumeError::InvalidAnswer`](crate::agent::ResumeError::InvalidAnswer) and nothing runs).
///
/// **The tool runs again from its start** when the run is resumed, with the answer supplied:
/// the `ask` that paused returns it at once. Code before the `ask` runs twice; several asks
/// are answered in order (each one that has no answer yet pauses the run again). Await the
/// ask in the tool's own future (not in a spawned task): the runtime sees the question when
/// it polls the call.
///
/// ```
/// use agentry::prelude::*;
/// use agentry::Interrupt;
///
/// #[derive(Serialize)]
/// struct Confirm { amount: u64 }
///
/// /// Refund an order.
/// #[tool]
/// async fn refund(order: String, ask: Interrupt<Confirm, bool>) -> String {
///     // Runs again on resume: it only reads.
///     let amount = 42;
///     if ask.ask(Confirm { amount }).await {
///         format!("refunded {amount} on {order}")
///     } else {
///         "the refund was declined".to_string()
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// // Outside an agent, supply the answers by hand.
/// let rt = agentry::ToolRuntime::new().with_answers([serde_json::json!(true)]);
/// let call = agentry::ToolCall::new("c", "refund", r#"{"order":"o1"}"#);
/// let out = agentry::tool::invoke(&refund {}, &call, &rt).await.unwrap();
/// assert_eq!(out.text_content(), "refunded 42 on o1");
/// # });
/// ```
pub struct Interrupt<Q, A> {
    slot: Arc<AskSlot>,
    codec: Codec<Q, A>,
}

impl<Q, A> fmt::Debug for Interrupt<Q, A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Interrupt")
            .field("question", &std::any::type_name::<Q>())
            .field("answer", &std::any::type_name::<A>())
            .finish()
    }
}

impl<Q, A> Interrupt<Q, A> {
    pub(crate) fn new(slot: Arc<AskSlot>, codec: Codec<Q, A>) -> Self {
        Interrupt { slot, codec }
    }

    /// Asks `question`: returns the answer when the run was resumed with one, else pauses
    /// the run here (this future never completes; the runtime stops the call).
    pub async fn ask(&self, question: Q) -> A {
        self.ask_as(question, QuestionKind::Ask).await
    }

    pub(crate) async fn ask_as(&self, question: Q, kind: QuestionKind) -> A {
        let serialize = || (self.codec.question)(&question);
        if let Some(answer) = self.slot.next(serialize, kind) {
            match (self.codec.answer)(answer) {
                Ok(answer) => return answer,
                Err(error) => self.slot.fail(error),
            }
        }
        std::future::pending::<A>().await
    }
}

impl<C, S, Q: InterruptQuestion, A: InterruptAnswer> Inject<C, S> for Interrupt<Q, A> {
    fn inject(rt: &ToolRuntime<C, S>) -> Result<Self, InjectError> {
        Ok(Interrupt::new(Arc::clone(rt.ask_slot()), codec()))
    }
}

/// A type a tool can ask with an [`Interrupt`]: it is written into the pause as JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an interrupt's question: it needs `serde::Serialize`",
    label = "the question is written into the paused run as JSON",
    note = "add `#[derive(serde::Serialize)]` to `{Self}`"
)]
pub trait InterruptQuestion: Serialize + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<T: Serialize + Send + 'static> InterruptQuestion for T {}

/// A type an [`Interrupt`] is answered with: read from the resume's JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an interrupt's answer: it needs `serde::Deserialize`",
    label = "the answer is read from JSON when the run is resumed",
    note = "add `#[derive(serde::Deserialize)]` to `{Self}`"
)]
pub trait InterruptAnswer: DeserializeOwned + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + Send + 'static> InterruptAnswer for T {}

/// An injected parameter whose answers a resume checks: implemented for [`Interrupt`] whose
/// question serializes and whose answer deserializes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be resumed: an interrupt's question needs `serde::Serialize` and its answer `serde::Deserialize`",
    label = "the run pauses with this question and resumes with this answer",
    note = "derive `serde::Serialize` on the question type and `serde::Deserialize` on the answer type"
)]
pub trait InterruptTypes {
    /// Whether `answer` is a value of the answer type.
    fn check_answer(answer: &Value) -> Result<(), String>;
}

impl<Q: InterruptQuestion, A: InterruptAnswer> InterruptTypes for Interrupt<Q, A> {
    fn check_answer(answer: &Value) -> Result<(), String> {
        serde_json::from_value::<A>(answer.clone())
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// The ask of an external tool's call (`#[tool(external)]`). Used by `#[tool]`; public as
/// `__private::external_ask`.
pub fn external_ask<C, S, A>(rt: &ToolRuntime<C, S>) -> Interrupt<(), A> {
    // Its codec is [`External::result`]'s, which knows the result type reads from JSON.
    Interrupt::new(Arc::clone(rt.ask_slot()), Codec::unfit())
}

/// A type an external tool returns (`#[tool(external)] fn f(..) -> T;`): the caller's result
/// is read from the resume's JSON.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an external tool's result: it needs `serde::Deserialize`",
    label = "the caller's result is read from JSON when the run is resumed",
    note = "add `#[derive(serde::Deserialize)]` to `{Self}`"
)]
pub trait ExternalResult: DeserializeOwned + Send + 'static {}

#[diagnostic::do_not_recommend]
impl<T: DeserializeOwned + Send + 'static> ExternalResult for T {}

/// How an external tool's result of type `A` is read and checked: made by [`external`], the
/// one place `#[tool]` requires `A: ExternalResult` (each use asks it again, at the same
/// span, so a type that is not one is one error).
pub struct External<A> {
    result: fn(Interrupt<(), A>) -> BoxFuture<'static, A>,
    check: fn(&Value) -> Result<(), String>,
}

/// The reader of an external tool's result. Used by `#[tool]`; public as `__private::external`.
pub fn external<A: ExternalResult>() -> External<A> {
    External {
        result: |ask| {
            let ask = Interrupt::new(ask.slot, codec::<(), A>());
            Box::pin(async move { ask.ask_as((), QuestionKind::External).await })
        },
        check: <Interrupt<(), A> as InterruptTypes>::check_answer,
    }
}

impl<A> External<A> {
    /// The answer the call was resumed with, or (the first time) a pause at the call.
    pub fn result(&self, ask: Interrupt<(), A>) -> BoxFuture<'static, A> {
        (self.result)(ask)
    }

    /// Whether `answer` reads as the result.
    pub fn check_answer(&self, answer: &Value) -> Result<(), String> {
        (self.check)(answer)
    }
}

/// Runs a call's future until it completes, or until it stops at an ask (the question is
/// then an [`ToolCallError::Interrupted`]).
pub(crate) fn until_asked<F>(slot: &OnceLock<Arc<AskSlot>>, work: F) -> UntilAsked<'_, F>
where
    F: Future<Output = Result<ToolOutput, ToolCallError>>,
{
    UntilAsked { slot, work }
}

pin_project_lite::pin_project! {
    /// The future of [`until_asked`].
    pub(crate) struct UntilAsked<'a, F> {
        slot: &'a OnceLock<Arc<AskSlot>>,
        #[pin]
        work: F,
    }
}

impl<F> Future for UntilAsked<'_, F>
where
    F: Future<Output = Result<ToolOutput, ToolCallError>>,
{
    type Output = Result<ToolOutput, ToolCallError>;

    fn poll(self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let polled = this.work.poll(cx);
        if polled.is_ready() {
            return polled;
        }
        // The ask records its question while it is polled, in this same poll.
        match this.slot.get() {
            Some(slot) => match slot.take_stopped() {
                Some(Stopped::Asked(question)) => Poll::Ready(Err(ToolCallError::Interrupted {
                    tool: String::new(),
                    question: Box::new(question),
                })),
                Some(Stopped::Failed(error)) => {
                    Poll::Ready(Err(ToolCallError::failed("", ToolError::new(error))))
                }
                None => Poll::Pending,
            },
            None => Poll::Pending,
        }
    }
}
