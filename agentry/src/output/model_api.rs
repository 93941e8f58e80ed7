//! Typed answers from a single model, no agent needed:
//! `model.structured::<Movie>().invoke(messages).await?`.

use std::sync::OnceLock;

use futures::future::BoxFuture;

use super::OutputSpec;
use super::error::{AnswerError, FailedAttempt, StructuredError};
use super::partial_output::PartialOutput;
use super::reask::{DEFAULT_MAX_RETRIES, correction_messages};
use super::strategy::{Interpretation, OutputMode, StructuredSpec};
use super::structured::StructuredOutput;
use crate::message::{AssistantMessage, Message};
use crate::messages::Messages;
use crate::model::{ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError};
use crate::usage::Usage;

mod stream;

/// Asking any [`ChatModel`] for a typed answer.
///
/// ```no_run
/// use agentry::output::StructuredExt;
/// use agentry::prelude::*;
/// # use agentry::StructuredOutput;
///
/// /// A film.
/// #[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
/// struct Movie { title: String, year: u16 }
///
/// # async fn demo(model: agentry::model::SharedModel) -> Result<(), agentry::output::StructuredError> {
/// let movie: Movie = model
///     .structured::<Movie>()
///     .max_retries(3)
///     .invoke(vec![Message::user("A film about dreams within dreams?")])
///     .await?;
/// # Ok(()) }
/// ```
pub trait StructuredExt: ChatModel {
    /// A typed view of this model that answers with `T`, in [`OutputMode::Auto`] with
    /// [`DEFAULT_MAX_RETRIES`] retries.
    ///
    /// `T` must be a [`StructuredOutput`]; the methods that ask the model say so, so a type
    /// without the derive is one error, at the call that asks.
    fn structured<T>(&self) -> StructuredModel<'_, T, Self> {
        StructuredModel {
            model: self,
            mode: OutputMode::Auto,
            spec: OnceLock::new(),
            max_retries: DEFAULT_MAX_RETRIES,
            template: ChatRequest::default(),
        }
    }
}

impl<M: ChatModel + ?Sized> StructuredExt for M {}

/// A model that answers with a `T`: see [`StructuredExt::structured`].
pub struct StructuredModel<'m, T, M: ?Sized = dyn ChatModel> {
    model: &'m M,
    mode: OutputMode,
    /// Built on first use (the schema, the final-answer tool), in `mode`.
    spec: OnceLock<StructuredSpec<T>>,
    max_retries: u32,
    template: ChatRequest,
}

/// The outcome of [`StructuredModel::invoke_with_raw`]: the value or why there is none,
/// beside the model's last raw answer.
#[derive(Debug)]
pub struct WithRaw<T> {
    /// The validated value, or why there is none.
    pub parsed: Result<T, ParseFailure>,
    /// The model's last answer, as it came.
    pub raw: ChatResponse,
    /// Every invalid answer before (and including, on failure) the last one.
    pub attempts: Vec<FailedAttempt>,
    /// Tokens spent on every attempt.
    pub usage: Usage,
}

/// Why [`WithRaw::parsed`] holds no value.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ParseFailure {
    /// The model refused.
    #[error("the model refused: {0}")]
    Refused(String),
    /// The last answer was invalid and the retry budget is spent.
    #[error(transparent)]
    Invalid(AnswerError),
}

/// An item of [`StructuredModel::stream`].
#[derive(Debug)]
pub enum StructuredEvent<T> {
    /// The value so far (the bare value, unwrapped): complete fields, strings so far, as JSON
    /// and, for a derived output, as its typed [`Partial<T>`](super::Partial) mirror with the
    /// constraints of its complete fields checked ([`PartialOutput::typed`],
    /// [`PartialOutput::check`]). Shared with the parser, not copied: see [`PartialOutput`].
    Partial(PartialOutput<T>),
    /// The answer was invalid and the model is being asked again; partial values start over.
    Retry(FailedAttempt),
    /// The final value, validated.
    Done {
        /// The value.
        value: T,
        /// Tokens spent on every attempt.
        usage: Usage,
    },
}

impl<'m, T, M: ChatModel + ?Sized> StructuredModel<'m, T, M> {
    /// Chooses how the answer is requested (default: [`OutputMode::Auto`]).
    pub fn mode(mut self, mode: OutputMode) -> Self {
        self.mode = mode;
        if let Some(spec) = self.spec.take() {
            let _ = self.spec.set(spec.with_mode(mode));
        }
        self
    }

    /// How many times the model is asked again after an invalid answer (default 2).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// Settings for every request (temperature, max tokens, ...). Its messages come before
    /// the ones passed to `invoke`.
    pub fn request(mut self, template: ChatRequest) -> Self {
        self.template = template;
        self
    }

    /// The output spec in use.
    pub fn spec(&self) -> &StructuredSpec<T>
    where
        T: StructuredOutput,
    {
        self.spec.get_or_init(|| StructuredSpec::new(self.mode))
    }

    /// Asks for a `T`, re-asking with a correction after each invalid answer while the budget
    /// lasts.
    ///
    /// `messages` is the conversation: a `Vec<Message>`, or a plain prompt (`&str`, `String`)
    /// as one user message. The future is boxed, so a `T` that is not a [`StructuredOutput`]
    /// is one error, here.
    pub fn invoke(&self, messages: impl Into<Messages>) -> BoxFuture<'_, Result<T, StructuredError>>
    where
        T: StructuredOutput,
    {
        let messages = messages.into().into_vec();
        Box::pin(async move {
            let outcome = self.raw(messages).await?;
            match outcome.parsed {
                Ok(value) => Ok(value),
                Err(ParseFailure::Refused(refusal)) => Err(StructuredError::Refused {
                    refusal,
                    usage: outcome.usage,
                }),
                Err(ParseFailure::Invalid(_)) => Err(StructuredError::RetriesExhausted {
                    attempts: outcome.attempts,
                    usage: outcome.usage,
                }),
            }
        })
    }

    /// Like [`invoke`](Self::invoke), but an invalid last answer or a refusal is reported
    /// beside the raw answer instead of as an error (LangChain's `include_raw`). Only a failed
    /// request is an `Err`.
    pub fn invoke_with_raw(
        &self,
        messages: impl Into<Messages>,
    ) -> BoxFuture<'_, Result<WithRaw<T>, ModelError>>
    where
        T: StructuredOutput,
    {
        let messages = messages.into().into_vec();
        Box::pin(self.raw(messages))
    }

    async fn raw(&self, messages: Vec<Message>) -> Result<WithRaw<T>, ModelError>
    where
        T: StructuredOutput,
    {
        let spec = self.spec();
        let mut request = self.base_request(messages);
        let profile = self.model.profile().clone();
        let mut usage = Usage::default();
        let mut attempts = Vec::new();
        loop {
            let mut prepared = request.clone();
            spec.prepare(&mut prepared, &profile, false);
            let closed = spec.sent_closed(&prepared);
            let response = self.model.invoke(prepared).await?;
            usage += response.usage;
            let step = step(
                spec,
                &response,
                closed,
                None,
                &mut attempts,
                self.max_retries,
            );
            match step {
                Step::Done(value) => return Ok(finish(Ok(value), response, attempts, usage)),
                Step::Refused(r) => {
                    return Ok(finish(
                        Err(ParseFailure::Refused(r)),
                        response,
                        attempts,
                        usage,
                    ));
                }
                Step::Exhausted(error) => {
                    return Ok(finish(
                        Err(ParseFailure::Invalid(error)),
                        response,
                        attempts,
                        usage,
                    ));
                }
                Step::Retry(feedback) => {
                    tracing::debug!(
                        output = %spec.name(),
                        attempt = attempts.len(),
                        error = %attempts.last().map(|a| a.error.to_string()).unwrap_or_default(),
                        "invalid structured answer; asking again"
                    );
                    request.messages.push(Message::Assistant(response.message));
                    request.messages.extend(feedback);
                }
            }
        }
    }

    fn base_request(&self, messages: Vec<Message>) -> ChatRequest {
        let mut request = self.template.clone();
        request.messages.extend(messages);
        request
    }
}

enum Step<T> {
    Done(T),
    Refused(String),
    Retry(Vec<Message>),
    Exhausted(AnswerError),
}

/// Interprets one complete answer, recording a failed attempt.
fn step<T: StructuredOutput>(
    spec: &StructuredSpec<T>,
    response: &ChatResponse,
    closed: bool,
    streamed: Option<(&str, &serde_json::Value)>,
    attempts: &mut Vec<FailedAttempt>,
    max_retries: u32,
) -> Step<T> {
    let (attempt, feedback) = match spec.interpret_streamed(&response.message, closed, streamed) {
        Interpretation::Done(value) => return Step::Done(value),
        Interpretation::Refused(refusal) => return Step::Refused(refusal),
        Interpretation::Continue => unexpected_tool(&response.message),
        Interpretation::Invalid { attempt, feedback } => {
            if response.finish_reason == FinishReason::Length {
                let error = AnswerError::Truncated(attempt.error.to_string());
                let feedback = correction_messages(&response.message, Some(spec.name()), &error);
                (
                    FailedAttempt {
                        raw: attempt.raw,
                        error,
                    },
                    feedback,
                )
            } else {
                (attempt, feedback)
            }
        }
    };
    let error = attempt.error.clone();
    attempts.push(attempt);
    if attempts.len() > max_retries as usize {
        Step::Exhausted(error)
    } else {
        Step::Retry(feedback)
    }
}

/// The answer called only tools that do not exist in a model-level call.
fn unexpected_tool(message: &AssistantMessage) -> (FailedAttempt, Vec<Message>) {
    let first = message.tool_calls.first();
    let name = first.map(|c| c.name.clone()).unwrap_or_default();
    let error = AnswerError::UnexpectedTool { name: name.clone() };
    let feedback = correction_messages(message, Some(&name), &error);
    let raw = first.map(|c| c.arguments.clone()).unwrap_or_default();
    (FailedAttempt { raw, error }, feedback)
}

fn finish<T>(
    parsed: Result<T, ParseFailure>,
    raw: ChatResponse,
    attempts: Vec<FailedAttempt>,
    usage: Usage,
) -> WithRaw<T> {
    WithRaw {
        parsed,
        raw,
        attempts,
        usage,
    }
}
