//! [`MockResponse`]: one scripted answer of the [`MockServer`](super::MockServer) and its
//! builders.

use std::time::Duration;

use axum::body::Bytes;
use serde_json::{Value, json};

use crate::message::ToolCall;
use crate::usage::Usage;

/// One scripted answer.
#[derive(Clone, Debug)]
pub struct MockResponse {
    pub(super) kind: Kind,
    pub(super) status: u16,
    pub(super) headers: Vec<(String, String)>,
    pub(super) split: Split,
    pub(super) delay: Option<Duration>,
    /// The pause between the pieces of a split body (default 2 ms).
    pub(super) pace: Option<Duration>,
}

#[derive(Clone, Debug)]
pub(super) enum Kind {
    Answer(Box<MockAnswer>),
    Json(Value),
    Sse { payloads: Vec<String>, done: bool },
    Raw(Bytes),
}

#[derive(Clone, Debug, Default)]
pub(super) struct MockAnswer {
    pub(super) text: Option<String>,
    pub(super) reasoning: Option<String>,
    pub(super) refusal: Option<String>,
    pub(super) tool_calls: Vec<ToolCall>,
    pub(super) finish_reason: Option<String>,
    pub(super) usage: Usage,
    pub(super) model: Option<String>,
    pub(super) stream_cut: bool,
}

#[derive(Clone, Debug, Default)]
pub(super) enum Split {
    #[default]
    Whole,
    Every(usize),
    At(Vec<usize>),
    /// One SSE event (up to and with its blank line) at a time, `pace` apart.
    Events,
}

impl MockResponse {
    fn answer(answer: MockAnswer) -> Self {
        MockResponse {
            kind: Kind::Answer(Box::new(answer)),
            status: 200,
            headers: Vec::new(),
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// A text answer (`finish_reason: stop`, usage 10 in / 5 out unless changed).
    pub fn text(text: impl Into<String>) -> Self {
        MockResponse::answer(MockAnswer {
            text: Some(text.into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// An answer calling tools (`finish_reason: tool_calls`).
    pub fn tool_calls(calls: Vec<ToolCall>) -> Self {
        MockResponse::answer(MockAnswer {
            tool_calls: calls,
            finish_reason: Some("tool_calls".into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// Adds text the model says before its tool calls (or before the text it already has),
    /// as a model that announces what it is about to do: `tool_calls(..).with_text("Let me
    /// check.")`. Other responses are left as they are.
    pub fn with_text(mut self, text: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            let text = text.into();
            a.text = Some(match a.text.take() {
                Some(rest) => text + &rest,
                None => text,
            });
        }
        self
    }

    /// A refusal (`refusal` set, `finish_reason: stop`).
    pub fn refusal(text: impl Into<String>) -> Self {
        MockResponse::answer(MockAnswer {
            refusal: Some(text.into()),
            usage: default_usage(),
            ..MockAnswer::default()
        })
    }

    /// An error answer with an OpenAI-style body `{"error": {"message", "type", "param", "code"}}`.
    pub fn error(
        status: u16,
        message: &str,
        kind: &str,
        param: Option<&str>,
        code: Option<&str>,
    ) -> Self {
        MockResponse::json(json!({
            "error": { "message": message, "type": kind, "param": param, "code": code }
        }))
        .status(status)
    }

    /// A JSON body, as is (status 200 unless changed).
    pub fn json(body: Value) -> Self {
        MockResponse {
            kind: Kind::Json(body),
            status: 200,
            headers: Vec::new(),
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// An SSE body of these chunks (each sent as `data: <json>\n\n`), then `data: [DONE]`.
    pub fn sse(chunks: Vec<Value>) -> Self {
        MockResponse::sse_data(chunks.iter().map(Value::to_string).collect())
    }

    /// An SSE body of these `data:` payloads, sent as they are, then `data: [DONE]`.
    pub fn sse_data(payloads: Vec<String>) -> Self {
        MockResponse {
            kind: Kind::Sse {
                payloads,
                done: true,
            },
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// A body of exactly these bytes, with `content-type: text/event-stream`.
    pub fn raw_sse(body: impl Into<Bytes>) -> Self {
        MockResponse {
            kind: Kind::Raw(body.into()),
            status: 200,
            headers: vec![("content-type".into(), "text/event-stream".into())],
            split: Split::Whole,
            delay: None,
            pace: None,
        }
    }

    /// The HTTP status.
    pub fn status(mut self, status: u16) -> Self {
        self.status = status;
        self
    }

    /// An extra response header, e.g. `retry-after`.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers
            .push((name.into().to_ascii_lowercase(), value.into()));
        self
    }

    /// The usage reported (answers only).
    pub fn usage(mut self, usage: Usage) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.usage = usage;
        }
        self
    }

    /// The `finish_reason` reported (answers only).
    pub fn finish_reason(mut self, reason: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.finish_reason = Some(reason.into());
        }
        self
    }

    /// Reasoning text, sent as `reasoning_content` (answers only).
    pub fn reasoning(mut self, text: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.reasoning = Some(text.into());
        }
        self
    }

    /// The model name reported (answers only).
    pub fn model(mut self, model: impl Into<String>) -> Self {
        if let Kind::Answer(a) = &mut self.kind {
            a.model = Some(model.into());
        }
        self
    }

    /// For a streamed answer or SSE chunks: end the body before the `finish_reason` and
    /// `[DONE]`, as a dropped connection would.
    pub fn cut_off(mut self) -> Self {
        match &mut self.kind {
            Kind::Answer(a) => a.stream_cut = true,
            Kind::Sse { done, .. } => *done = false,
            _ => {}
        }
        self
    }

    /// For SSE chunks: leave out the final `data: [DONE]`.
    pub fn without_done(mut self) -> Self {
        if let Kind::Sse { done, .. } = &mut self.kind {
            *done = false;
        }
        self
    }

    /// Waits this long before answering (to exercise client timeouts).
    pub fn delay(mut self, delay: Duration) -> Self {
        self.delay = Some(delay);
        self
    }

    /// Sends the body in pieces of `n` bytes (so boundaries fall inside lines and characters).
    pub fn split_every(mut self, n: usize) -> Self {
        self.split = Split::Every(n.max(1));
        self
    }

    /// Sends the body in pieces ending at these byte offsets, pausing between them.
    pub fn split_at(mut self, offsets: Vec<usize>) -> Self {
        self.split = Split::At(offsets);
        self
    }

    /// Pauses this long between the pieces of the body. With
    /// [`split_at`](MockResponse::split_at) or `split_every`, between those pieces (2 ms when
    /// not set); otherwise a streamed body goes one SSE event at a time: a model that types
    /// at a speed a person (or a browser test) can watch — a streamed text answer sends about
    /// four characters per event. The first piece goes at once. A client that hangs up before
    /// the last piece shows in [`MockServer::unfinished_bodies`](super::MockServer::unfinished_bodies).
    pub fn pace(mut self, pause: Duration) -> Self {
        self.pace = Some(pause);
        if matches!(self.split, Split::Whole) {
            self.split = Split::Events;
        }
        self
    }
}

pub(super) fn default_usage() -> Usage {
    Usage {
        input_tokens: 10,
        output_tokens: 5,
        requests: 1,
        ..Usage::default()
    }
}
