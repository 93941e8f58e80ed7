//! Several choices of one Chat Completions request (`n`), whole or streamed.
//!
//! This is a model-level API of [`OpenAiModel`]: an agent asks for one answer and uses
//! [`ChatModel`](crate::model::ChatModel); a caller who wants several candidates to pick from
//! asks here.

use std::collections::VecDeque;

use futures::stream::BoxStream;
use futures::{StreamExt, TryFutureExt};

use super::OpenAiModel;
use super::errors::stream_error_message;
use super::request;
use super::response::convert_all;
use super::stream::Accumulator;
use super::wire::{WireChunk, WireResponse};
use crate::http::ResponseLimits;
use crate::http::sse::SseEventRef;
use crate::model::{ChatRequest, ChatResponse, ModelError, StreamEvent};
use crate::providers::answer_guard::{CallGuard, check_response};
use crate::providers::driver::encode;
use crate::providers::stream::{DecodedEvent, SseDecoder, drive, events_of, guard_for};
use crate::providers::transport::Opened;
use crate::usage::Usage;

/// Every choice of one answer.
#[derive(Clone, Debug, PartialEq)]
pub struct ChatChoices {
    /// The choices in index order, each a whole answer (with the request's `usage`, id and
    /// model).
    pub choices: Vec<ChatResponse>,
    /// Tokens spent by the request, all choices together.
    pub usage: Usage,
}

/// An event of a streamed multi-choice answer.
#[derive(Clone, Debug, PartialEq)]
pub enum ChoiceEvent {
    /// A delta (text, reasoning, refusal, tool call) of choice `choice`.
    Delta {
        /// The choice's index.
        choice: usize,
        /// The delta; never `Completed` or `Usage`.
        event: StreamEvent,
    },
    /// Usage of the whole request.
    Usage {
        /// The usage.
        usage: Usage,
    },
    /// The answer is complete: every choice, assembled.
    Completed {
        /// The choices.
        response: ChatChoices,
    },
}

impl DecodedEvent for ChoiceEvent {
    fn is_completed(&self) -> bool {
        matches!(self, ChoiceEvent::Completed { .. })
    }

    fn check(
        &mut self,
        limits: &ResponseLimits,
        guards: &mut Vec<CallGuard>,
    ) -> Result<(), ModelError> {
        match self {
            ChoiceEvent::Delta { choice, event } => {
                guard_for(guards, *choice).on_event(limits, event)
            }
            ChoiceEvent::Completed { response } => {
                for (i, choice) in response.choices.iter_mut().enumerate() {
                    guard_for(guards, i).complete(limits, choice)?;
                }
                Ok(())
            }
            ChoiceEvent::Usage { .. } => Ok(()),
        }
    }
}

impl OpenAiModel {
    /// Asks for `n` choices (`n` in the request body) and returns all of them.
    ///
    /// ```no_run
    /// # async fn run(model: agentry::providers::openai::OpenAiModel) -> Result<(), agentry::model::ModelError> {
    /// use agentry::model::ChatRequest;
    /// use agentry::Message;
    ///
    /// let answers = model.invoke_choices(ChatRequest::new(vec![Message::user("A name for a cat?")]), 3).await?;
    /// for choice in &answers.choices {
    ///     println!("{}", choice.message.text());
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn invoke_choices(
        &self,
        request: ChatRequest,
        n: u32,
    ) -> Result<ChatChoices, ModelError> {
        let parts = self.driver.parts();
        let body = self.choices_body(&request, n, false)?;
        let limits = parts.transport.limits;
        let answer = parts
            .post_with(body, |bytes| {
                let wire: WireResponse = parts.parse(bytes)?;
                if let Some(err) =
                    crate::providers::driver::WireFormat::error_envelope(&parts.format, &wire)
                {
                    return Err(err);
                }
                let mut choices = convert_all(wire, &parts.model)?;
                for choice in &mut choices {
                    check_response(&limits, choice)?;
                }
                Ok(choices)
            })
            .await?;
        let usage = answer.first().map(|c| c.usage).unwrap_or_default();
        if let Some(t) = &parts.tracker {
            t.record(&parts.model, usage);
        }
        Ok(ChatChoices {
            choices: answer,
            usage,
        })
    }

    /// Streams `n` choices: the deltas of each choice tagged with its index, then all of them
    /// assembled in [`ChoiceEvent::Completed`].
    pub fn stream_choices(
        &self,
        request: ChatRequest,
        n: u32,
    ) -> BoxStream<'static, Result<ChoiceEvent, ModelError>> {
        let model = self.clone();
        let tracker = self.driver.parts().tracker.clone();
        let name = self.driver.parts().model.clone();
        async move {
            let body = model.choices_body(&request, n, true)?;
            let driver = &model.driver;
            let parts = driver.parts();
            Ok(match parts.open(body).await? {
                Opened::Json(bytes) => {
                    let choices = model.invoke_from_json(&bytes)?;
                    futures::stream::iter(replay(choices).into_iter().map(Ok)).boxed()
                }
                Opened::Sse { body, guard } => drive(
                    body,
                    MultiDecoder::new(parts.model.clone()),
                    guard,
                    parts.stream_policy(),
                )
                .boxed(),
            })
        }
        .try_flatten_stream()
        .inspect(move |event| {
            if let (Some(t), Ok(ChoiceEvent::Completed { response })) = (&tracker, event) {
                t.record(&name, response.usage);
            }
        })
        .boxed()
    }

    fn invoke_from_json(&self, bytes: &[u8]) -> Result<ChatChoices, ModelError> {
        let parts = self.driver.parts();
        let wire: WireResponse = parts.parse(bytes)?;
        if let Some(err) =
            crate::providers::driver::WireFormat::error_envelope(&parts.format, &wire)
        {
            return Err(parts.redact_error(err));
        }
        let mut choices = convert_all(wire, &parts.model)?;
        for choice in &mut choices {
            check_response(&parts.transport.limits, choice).map_err(|e| parts.redact_error(e))?;
        }
        let usage = choices.first().map(|c| c.usage).unwrap_or_default();
        Ok(ChatChoices { choices, usage })
    }

    fn choices_body(
        &self,
        request: &ChatRequest,
        n: u32,
        stream: bool,
    ) -> Result<bytes::Bytes, ModelError> {
        let parts = self.driver.parts();
        if n == 0 {
            return Err(ModelError::InvalidRequest {
                message: "n must be at least 1".into(),
                param: Some("n".into()),
            });
        }
        let opts = request::LowerOptions {
            model: &parts.model,
            profile: &parts.profile,
            max_tokens_field: parts.format.max_tokens_field,
            reasoning_effort: parts.format.reasoning_effort.as_deref(),
        };
        let mut wire = request::lower(request, &opts, stream)?;
        wire.n = Some(n);
        encode(&wire, parts.body_size.buffer())
    }
}

/// The events a stream of `answer` would have produced.
fn replay(answer: ChatChoices) -> Vec<ChoiceEvent> {
    let mut out = Vec::new();
    for (choice, response) in answer.choices.iter().enumerate() {
        for event in events_of(response.clone()) {
            if !matches!(
                event,
                StreamEvent::Completed { .. } | StreamEvent::Usage { .. }
            ) {
                out.push(ChoiceEvent::Delta { choice, event });
            }
        }
    }
    out.push(ChoiceEvent::Usage {
        usage: answer.usage,
    });
    out.push(ChoiceEvent::Completed { response: answer });
    out
}

/// One accumulator per choice, and one for what the chunks share (ids, usage).
struct MultiDecoder {
    model: String,
    meta: Accumulator,
    choices: Vec<Accumulator>,
}

impl MultiDecoder {
    fn new(model: String) -> Self {
        MultiDecoder {
            meta: Accumulator::new(model.clone()),
            model,
            choices: Vec::new(),
        }
    }

    fn complete(&mut self, out: &mut VecDeque<ChoiceEvent>) -> Result<(), ModelError> {
        let mut choices = Vec::with_capacity(self.choices.len());
        for (i, mut acc) in std::mem::take(&mut self.choices).into_iter().enumerate() {
            acc.take_meta_from(&self.meta);
            choices.push(acc.into_response().map_err(|e| match e {
                ModelError::Incomplete(m) => ModelError::Incomplete(format!("choice {i}: {m}")),
                other => other,
            })?);
        }
        if choices.is_empty() {
            return Err(ModelError::Incomplete(
                "the stream ended without any choice".into(),
            ));
        }
        let usage = choices[0].usage;
        out.push_back(ChoiceEvent::Completed {
            response: ChatChoices { choices, usage },
        });
        Ok(())
    }
}

impl SseDecoder for MultiDecoder {
    type Event = ChoiceEvent;

    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<ChoiceEvent>,
    ) -> Result<(), ModelError> {
        let data = event.data.trim();
        if data == "[DONE]" {
            return self.complete(out);
        }
        if event.event == "error" {
            return Err(ModelError::Stream {
                message: stream_error_message(data),
            });
        }
        if event.event != "message" {
            return Ok(());
        }
        let mut chunk: WireChunk = serde_json::from_str(data).map_err(|e| {
            ModelError::Decode(format!(
                "stream chunk is not valid JSON ({e}): {}",
                crate::http::status::truncate(data, 200)
            ))
        })?;
        let wire_choices = std::mem::take(&mut chunk.choices);
        let usage = self.meta.on_meta(chunk)?;
        let mut events = VecDeque::new();
        for choice in wire_choices {
            let index = choice.index;
            if self.choices.len() <= index {
                // Bounded: a server cannot make a choice index allocate more than the chunk's size.
                if index > self.choices.len() + 1024 {
                    return Err(ModelError::Decode(format!(
                        "choice index {index} is out of range"
                    )));
                }
                let model = self.model.clone();
                self.choices
                    .resize_with(index + 1, || Accumulator::new(model.clone()));
            }
            self.choices[index].on_choice(choice, &mut events);
            out.extend(events.drain(..).map(|event| ChoiceEvent::Delta {
                choice: index,
                event,
            }));
        }
        if let Some(usage) = usage {
            out.push_back(ChoiceEvent::Usage { usage });
            self.meta.set_usage(usage);
        }
        Ok(())
    }

    fn on_end(&mut self, out: &mut VecDeque<ChoiceEvent>) -> Result<(), ModelError> {
        if !self.choices.is_empty() && self.choices.iter().all(Accumulator::finished) {
            return self.complete(out);
        }
        Err(ModelError::Incomplete(format!(
            "the body ended before every choice had a finish_reason ({} choice(s) begun)",
            self.choices.len()
        )))
    }
}
