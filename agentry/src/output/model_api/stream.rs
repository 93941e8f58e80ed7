//! [`StructuredModel::stream`]: a typed answer streamed as partial values parsed while the JSON
//! arrives, with retries, and the state of one such stream.

use futures::StreamExt;
use futures::stream::BoxStream;

use super::super::OutputSpec;
use super::super::error::{FailedAttempt, StructuredError};
use super::super::partial::PartialJson;
use super::super::partial_feed::PartialFeed;
use super::super::partial_output::PartialOutput;
use super::super::strategy::{OutputMode, StructuredSpec};
use super::super::structured::StructuredOutput;
use super::{Step, StructuredEvent, StructuredModel, step};
use crate::message::Message;
use crate::messages::Messages;
use crate::model::{ChatModel, ChatRequest, EventStream, ModelError, ModelProfile, StreamEvent};
use crate::usage::Usage;

impl<'m, T, M: ChatModel + ?Sized> StructuredModel<'m, T, M> {
    /// Streams the answer: [`StructuredEvent::Partial`] values as the JSON arrives (parsed
    /// incrementally), a [`StructuredEvent::Retry`] when an answer is invalid and the model is
    /// asked again, and [`StructuredEvent::Done`] with the validated value.
    ///
    /// Each partial value shares the parser's value (nothing is copied per delta), so the
    /// whole stream costs time linear in the bytes received.
    pub fn stream(
        &self,
        messages: impl Into<Messages>,
    ) -> BoxStream<'m, Result<StructuredEvent<T>, StructuredError>>
    where
        T: StructuredOutput,
    {
        let messages = messages.into().into_vec();
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
            partial: PartialFeed::new(PartialJson::skipping_prose()),
            fed: String::new(),
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
    /// Parses the text, or the final-answer tool's arguments once that call starts; once
    /// the partial JSON is invalid, no more partial values this attempt (the complete answer
    /// is still parsed and reported).
    partial: PartialFeed,
    /// The text the parser read (while it reads text): when the parser found it to be one
    /// whole JSON value and it is the answer's text, the answer is not parsed again.
    fed: String,
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
                    self.partial.restart(PartialJson::skipping_prose());
                    self.fed.clear();
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
                    if !self.partial.is_broken() {
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
                    self.partial.restart(PartialJson::new());
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
                    let streamed = match (self.partial.is_broken(), self.output_call) {
                        (false, None) => self
                            .partial
                            .parser()
                            .whole()
                            .map(|v| (self.fed.as_str(), v)),
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
        let unwrap = self.spec.is_wrapped() && self.mode != OutputMode::Prompted;
        self.partial.feed(delta, unwrap)
    }
}
