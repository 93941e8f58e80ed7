#![allow(dead_code)] // Shared helpers; not every test uses each.

//! The four wire formats for the cassette tests: a model of each through a cassette, and an
//! in-process server answering in each format (`MockServer` for OpenAI chat, the
//! conformance suite's raw server for the others).

#[path = "../conformance/server.rs"]
pub mod server;

use std::path::Path;
use std::sync::Arc;

use agentry::Message;
use agentry::cassette::Cassette;
use agentry::model::{ChatModel, ChatRequest, ChatResponse, ModelError, StreamEvent};
use agentry::providers::anthropic::AnthropicModel;
use agentry::providers::gemini::GeminiModel;
use agentry::providers::openai::OpenAiModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::testing::{MockResponse, MockServer};
use futures::StreamExt;
use serde_json::{Value, json};
use server::{Reply, Server, sse_event};

/// A fake key: it must never reach a cassette.
pub const KEY: &str = "sk-fake-cassette-key-0123456789";
/// Where nothing listens: a replay that sent a request would fail to connect.
pub const DEAD: &str = "http://127.0.0.1:9";
pub const ANSWER: &str = "Sunny, 18°C in Paris.";

#[derive(Clone, Copy, Debug)]
pub enum Format {
    Chat,
    Anthropic,
    Gemini,
    Responses,
}

/// A server of one format, kept alive while recording.
pub enum Running {
    Mock(MockServer),
    Raw(Server),
}

impl Running {
    pub fn origin(&self) -> String {
        match self {
            Running::Mock(s) => format!("http://{}", s.addr()),
            Running::Raw(s) => s.url(),
        }
    }
}

impl Format {
    /// The model, at `origin` (the format's API path is added), through `cassette`.
    pub fn model(self, origin: &str, cassette: Cassette) -> Arc<dyn ChatModel> {
        match self {
            Format::Chat => Arc::new(
                OpenAiModel::builder("gpt-4o-mini")
                    .base_url(format!("{origin}/v1"))
                    .api_key(KEY)
                    .cassette(cassette)
                    .build()
                    .unwrap(),
            ),
            Format::Anthropic => Arc::new(
                AnthropicModel::builder("claude-sonnet-4-5")
                    .base_url(origin)
                    .api_key(KEY)
                    .cassette(cassette)
                    .build()
                    .unwrap(),
            ),
            Format::Gemini => Arc::new(
                GeminiModel::builder("gemini-2.5-flash")
                    .base_url(origin)
                    .api_key(KEY)
                    .cassette(cassette)
                    .build()
                    .unwrap(),
            ),
            Format::Responses => Arc::new(
                OpenAiResponsesModel::builder("gpt-4.1")
                    .base_url(format!("{origin}/v1"))
                    .api_key(KEY)
                    .cassette(cassette)
                    .build()
                    .unwrap(),
            ),
        }
    }

    /// A server answering [`ANSWER`] once, in this format.
    pub async fn serve(self, stream: bool) -> Running {
        let reply = match self {
            Format::Chat => {
                return Running::Mock(
                    MockServer::with_script([MockResponse::text(ANSWER).usage(usage())]).await,
                );
            }
            Format::Anthropic if !stream => Reply::json(
                200,
                &json!({"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": [{"type": "text", "text": ANSWER}], "stop_reason": "end_turn",
                    "usage": {"input_tokens": 12, "output_tokens": 7}}),
            ),
            Format::Anthropic => Reply::sse(
                [
                    ("message_start", json!({"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "content": [], "usage": {"input_tokens": 12, "output_tokens": 1}}})),
                    ("content_block_start", json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})),
                    ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Sunny, 18°C"}})),
                    ("content_block_delta", json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " in Paris."}})),
                    ("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
                    ("message_delta", json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 7}})),
                    ("message_stop", json!({"type": "message_stop"})),
                ]
                .iter()
                .map(|(name, data)| sse_event(name, data))
                .collect(),
            ),
            Format::Gemini if !stream => Reply::json(
                200,
                &json!({"candidates": [{"content": {"role": "model", "parts": [{"text": ANSWER}]}, "finishReason": "STOP"}],
                    "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 7}, "responseId": "r1"}),
            ),
            Format::Gemini => Reply::sse(
                [
                    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Sunny, 18°C"}]}}], "responseId": "r1"}),
                    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": " in Paris."}]}, "finishReason": "STOP"}],
                        "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 7}, "responseId": "r1"}),
                ]
                .iter()
                .map(|data| sse_event("", data))
                .collect(),
            ),
            Format::Responses => {
                let item = json!({"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                    "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]});
                let done = json!({"id": "resp_1", "object": "response", "model": "gpt-4.1", "status": "completed",
                    "output": [item], "usage": {"input_tokens": 12, "output_tokens": 7, "total_tokens": 19}});
                if stream {
                    Reply::sse(
                        [
                            json!({"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1", "object": "response", "model": "gpt-4.1", "status": "in_progress", "output": []}}),
                            json!({"type": "response.output_item.added", "output_index": 0, "item": {"type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": []}}),
                            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Sunny, 18°C"}),
                            json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": " in Paris."}),
                            json!({"type": "response.output_item.done", "output_index": 0, "item": item}),
                            json!({"type": "response.completed", "response": done}),
                        ]
                        .iter()
                        .map(|data| sse_event(data["type"].as_str().unwrap(), data))
                        .collect(),
                    )
                } else {
                    Reply::json(200, &done)
                }
            }
        };
        Running::Raw(Server::start(vec![reply]).await)
    }
}

pub fn usage() -> agentry::Usage {
    agentry::Usage {
        input_tokens: 12,
        output_tokens: 7,
        ..Default::default()
    }
}

pub fn question(city: &str) -> ChatRequest {
    ChatRequest::new(vec![
        Message::system("Answer briefly."),
        Message::user(format!("Weather in {city}?")),
    ])
}

/// What a call produced: the whole answer, or every event of the stream.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    Whole(ChatResponse),
    Streamed(Vec<StreamEvent>),
}

impl Outcome {
    pub fn text(&self) -> String {
        let response = match self {
            Outcome::Whole(r) => r,
            Outcome::Streamed(events) => events
                .iter()
                .find_map(|e| match e {
                    StreamEvent::Completed { response } => Some(response),
                    _ => None,
                })
                .expect("a completed event"),
        };
        response.message.text()
    }
}

pub async fn call(
    model: &dyn ChatModel,
    request: ChatRequest,
    stream: bool,
) -> Result<Outcome, ModelError> {
    if stream {
        let events: Vec<_> = model.stream(request).collect().await;
        events
            .into_iter()
            .collect::<Result<_, _>>()
            .map(Outcome::Streamed)
    } else {
        model.invoke(request).await.map(Outcome::Whole)
    }
}

pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
