//! Typed answers from a single model, no agent needed:
//! `model.structured::<Movie>().invoke(messages).await?`.

use std::sync::OnceLock;

use futures::StreamExt;
use futures::future::BoxFuture;
use futures::stream::BoxStream;

use super::OutputSpec;
use super::error::{AnswerError, FailedAttempt, StructuredError};
use super::partial::PartialJson;
use super::partial_output::PartialOutput;
use super::reask::{DEFAULT_MAX_RETRIES, correction_messages};
use super::strategy::{Interpretation, OutputMode, StructuredSpec};
use super::structured::StructuredOutput;
use crate::message::{AssistantMessage, Message};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, FinishReason, ModelError, ModelProfile,
    StreamEvent,
};
use crate::usage::Usage;

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
    /// The future is boxed, so a `T` that is not a [`StructuredOutput`] is one error, here.
    pub fn invoke(&self, messages: Vec<Message>) -> BoxFuture<'_, Result<T, StructuredError>>
    where
        T: StructuredOutput,
    {
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
        messages: Vec<Message>,
    ) -> BoxFuture<'_, Result<WithRaw<T>, ModelError>>
    where
        T: StructuredOutput,
    {
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

    /// Streams the answer: [`StructuredEvent::Partial`] values as the JSON arrives (parsed
    /// incrementally), a [`StructuredEvent::Retry`] when an answer is invalid and the model is
    /// asked again, and [`StructuredEvent::Done`] with the validated value.
    ///
    /// Each partial value shares the parser's value (nothing is copied per delta), so the
    /// whole stream costs time linear in the bytes received.
    pub fn stream(
        &self,
        messages: Vec<Message>,
    ) -> BoxStream<'m, Result<StructuredEvent<T>, StructuredError>>
    where
        T: StructuredOutput,
    {
        let run = StreamRun {
            model: self.model,
            spec: self.spec().clone(),
            profile: self.model.profile().clone(),
            request: self.base_request(messages),
            max_retries: self.max_retries,
            usage: Usage::default(),
            attempts: Vec::new(),
            events: None,
            mode: OutputMode::Auto,
            parser: PartialJson::skipping_prose(),
            fed: String::new(),
            broken: false,
            output_call: None,
            finished: false,
            closed: false,
        };
        futures::stream::unfold(run, |mut run| async move {
            let item = run.next().await?;
            Some((item, run))
        })
        .boxed()
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

/// The state of one [`StructuredModel::stream`].
struct StreamRun<'m, T, M: ?Sized> {
    model: &'m M,
    spec: StructuredSpec<T>,
    profile: ModelProfile,
    request: ChatRequest,
    max_retries: u32,
    usage: Usage,
    attempts: Vec<FailedAttempt>,
    /// The current attempt's events; `None` between attempts.
    events: Option<EventStream>,
    /// The mode of the current attempt.
    mode: OutputMode,
    /// Parses the text, or the final-answer tool's arguments once that call starts.
    parser: PartialJson,
    /// The text the parser read (while it reads text): when the parser found it to be one
    /// whole JSON value and it is the answer's text, the answer is not parsed again.
    fed: String,
    /// The partial JSON was invalid: no more partial values this attempt (the complete
    /// answer is still parsed and reported).
    broken: bool,
    /// The index of the final-answer tool call, once it started.
    output_call: Option<usize>,
    finished: bool,
    /// Whether the current request sent the schema in closed (strict) form.
    closed: bool,
}

impl<T: StructuredOutput, M: ChatModel + ?Sized> StreamRun<'_, T, M> {
    async fn next(&mut self) -> Option<Result<StructuredEvent<T>, StructuredError>> {
        loop {
            if self.finished {
                return None;
            }
            let events = match &mut self.events {
                Some(events) => events,
                None => {
                    let mut prepared = self.request.clone();
                    self.mode = self
                        .spec
                        .resolve(&self.profile, false, !prepared.tools.is_empty());
                    self.spec.prepare(&mut prepared, &self.profile, false);
                    self.closed = self.spec.sent_closed(&prepared);
                    self.parser = PartialJson::skipping_prose();
                    self.fed.clear();
                    self.broken = false;
                    self.output_call = None;
                    self.events.insert(self.model.stream(prepared))
                }
            };
            let event = match events.next().await {
                Some(Ok(event)) => event,
                Some(Err(e)) => return self.fail(e.into()),
                None => {
                    return self.fail(
                        ModelError::Incomplete("the stream ended without a complete answer".into())
                            .into(),
                    );
                }
            };
            match event {
                StreamEvent::TextDelta { text } if self.output_call.is_none() => {
                    if !self.broken {
                        self.fed.push_str(&text);
                    }
                    if let Some(partial) = self.feed(&text) {
                        return Some(Ok(StructuredEvent::Partial(partial)));
                    }
                }
                StreamEvent::ToolCallStart { index, name, .. }
                    if self.output_call.is_none() && self.spec.is_output_tool(&name) =>
                {
                    self.output_call = Some(index);
                    self.parser = PartialJson::new();
                    self.broken = false;
                }
                StreamEvent::ToolCallDelta { index, arguments }
                    if Some(index) == self.output_call =>
                {
                    if let Some(partial) = self.feed(&arguments) {
                        return Some(Ok(StructuredEvent::Partial(partial)));
                    }
                }
                StreamEvent::Completed { response } => {
                    self.events = None;
                    self.usage += response.usage;
                    let streamed = match (self.broken, self.output_call) {
                        (false, None) => self.parser.whole().map(|v| (self.fed.as_str(), v)),
                        _ => None,
                    };
                    match step(
                        &self.spec,
                        &response,
                        self.closed,
                        streamed,
                        &mut self.attempts,
                        self.max_retries,
                    ) {
                        Step::Done(value) => {
                            self.finished = true;
                            return Some(Ok(StructuredEvent::Done {
                                value,
                                usage: self.usage,
                            }));
                        }
                        Step::Refused(refusal) => {
                            return self.fail(StructuredError::Refused {
                                refusal,
                                usage: self.usage,
                            });
                        }
                        Step::Exhausted(_) => {
                            let attempts = std::mem::take(&mut self.attempts);
                            return self.fail(StructuredError::RetriesExhausted {
                                attempts,
                                usage: self.usage,
                            });
                        }
                        Step::Retry(feedback) => {
                            self.request
                                .messages
                                .push(Message::Assistant(response.message));
                            self.request.messages.extend(feedback);
                            let attempt = self.attempts.last().cloned()?;
                            return Some(Ok(StructuredEvent::Retry(attempt)));
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn fail(
        &mut self,
        error: StructuredError,
    ) -> Option<Result<StructuredEvent<T>, StructuredError>> {
        self.finished = true;
        self.events = None;
        Some(Err(error))
    }

    /// Feeds a delta; the unwrapped value so far when it changed.
    fn feed(&mut self, delta: &str) -> Option<PartialOutput<T>> {
        if self.broken {
            return None;
        }
        match self.parser.push(delta) {
            Ok(true) => {}
            Ok(false) => return None,
            Err(error) => {
                tracing::debug!(%error, "partial output is not valid JSON; waiting for the end");
                self.broken = true;
                return None;
            }
        }
        let unwrap = self.spec.is_wrapped() && self.mode != OutputMode::Prompted;
        PartialOutput::tapped(&self.parser, unwrap)
    }
}
