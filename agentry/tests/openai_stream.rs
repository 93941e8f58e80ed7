//! OpenAI Chat Completions, streamed: SSE split anywhere, interleaved tool calls, usage,
//! refusals, finish reasons, errors inside a 200 stream and cut-off streams.

use std::time::Duration;

use agentry::http::RateLimit;
use agentry::model::{ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, StreamEvent};
use agentry::providers::openai::decode_chat_stream;
use agentry::testing::{MockResponse, MockServer};
use agentry::{Message, ToolCall, Usage};
use bytes::Bytes;
use futures::{StreamExt, stream};
use serde_json::{Value, json};

fn ask() -> ChatRequest {
    ChatRequest::new(vec![Message::user("hi")])
}

fn chunk(delta: Value, finish: Option<&str>) -> Value {
    json!({ "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini",
            "choices": [{ "index": 0, "delta": delta, "logprobs": null, "finish_reason": finish }] })
}

fn usage_chunk(i: u64, o: u64) -> Value {
    json!({ "id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o-mini", "choices": [],
            "usage": { "prompt_tokens": i, "completion_tokens": o, "total_tokens": i + o,
                       "prompt_tokens_details": { "cached_tokens": 3, "cache_write_tokens": 7 }, "completion_tokens_details": { "reasoning_tokens": 2 } } })
}

/// Two tool calls whose argument fragments interleave by `index`, text with multi-byte
/// characters, and a usage chunk: a recorded-shape answer.
fn interleaved_body() -> String {
    let chunks = [
        chunk(json!({ "role": "assistant", "content": "" }), None),
        chunk(json!({ "content": "Voilà — " }), None),
        chunk(json!({ "content": "🌍 météo" }), None),
        chunk(
            json!({ "tool_calls": [{ "index": 0, "id": "call_A", "type": "function", "function": { "name": "get_weather", "arguments": "" } }] }),
            None,
        ),
        chunk(
            json!({ "tool_calls": [{ "index": 1, "id": "call_B", "type": "function", "function": { "name": "get_time", "arguments": "" } }] }),
            None,
        ),
        chunk(
            json!({ "tool_calls": [{ "index": 0, "function": { "arguments": "{\"city\":" } }] }),
            None,
        ),
        chunk(
            json!({ "tool_calls": [{ "index": 1, "function": { "arguments": "{\"tz\":\"Europe/" } }] }),
            None,
        ),
        chunk(
            json!({ "tool_calls": [{ "index": 0, "function": { "arguments": "\"Zürich\"}" } }] }),
            None,
        ),
        chunk(
            json!({ "tool_calls": [{ "index": 1, "function": { "arguments": "Paris\"}" } }] }),
            None,
        ),
        chunk(json!({}), Some("tool_calls")),
        usage_chunk(50, 20),
    ];
    let mut body = String::new();
    for c in chunks {
        body.push_str("data: ");
        body.push_str(&c.to_string());
        body.push_str("\n\n");
    }
    body.push_str("data: [DONE]\n\n");
    body
}

fn check_interleaved(response: &ChatResponse) {
    assert_eq!(response.message.text(), "Voilà — 🌍 météo");
    assert_eq!(
        response.message.tool_calls,
        vec![
            ToolCall::new("call_A", "get_weather", r#"{"city":"Zürich"}"#),
            ToolCall::new("call_B", "get_time", r#"{"tz":"Europe/Paris"}"#),
        ]
    );
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        response.usage,
        Usage {
            input_tokens: 50,
            output_tokens: 20,
            cached_input_tokens: 3,
            cache_write_tokens: 7,
            reasoning_tokens: 2,
            requests: 1,
        }
    );
}

async fn decode_pieces(pieces: Vec<Bytes>) -> Vec<Result<StreamEvent, ModelError>> {
    decode_chat_stream(stream::iter(pieces.into_iter().map(Ok)), "gpt-4o-mini")
        .collect()
        .await
}

fn completed(events: &[Result<StreamEvent, ModelError>]) -> &ChatResponse {
    match events.last() {
        Some(Ok(StreamEvent::Completed { response })) => response,
        other => panic!("the stream did not complete: {other:?}"),
    }
}

#[tokio::test]
async fn bytes_after_the_completing_event_are_not_decoded() {
    // Found by the `stream_openai_responses` fuzz target: a line that is not UTF-8 after the
    // completing event, in the same read, ended the stream with an error after `Completed`
    // (and split into two reads, it did not).
    let mut body = format!(
        "data: {}\n\ndata: [DONE]\n\n",
        chunk(json!({ "content": "hi" }), Some("stop"))
    )
    .into_bytes();
    let done = body.len();
    body.extend_from_slice(b"data: \xff\xfe\n\n");
    let whole = decode_pieces(vec![Bytes::from(body.clone())]).await;
    assert_eq!(completed(&whole).message.text(), "hi");
    assert!(whole.iter().all(Result::is_ok), "{whole:?}");
    let split = decode_pieces(vec![
        Bytes::copy_from_slice(&body[..done]),
        Bytes::copy_from_slice(&body[done..]),
    ])
    .await;
    assert_eq!(split, whole);
}

#[tokio::test]
async fn every_two_way_split_decodes_the_same() {
    let body = Bytes::from(interleaved_body());
    let whole = decode_pieces(vec![body.clone()]).await;
    check_interleaved(completed(&whole));
    // Splits fall inside `data:` prefixes, inside JSON, inside multi-byte characters
    // (é, à, —, 🌍, ü) and between the two newlines ending an event.
    let mut inside_char = 0;
    for at in 1..body.len() {
        if std::str::from_utf8(&body[..at]).is_err() {
            inside_char += 1;
        }
        let events = decode_pieces(vec![body.slice(..at), body.slice(at..)]).await;
        assert_eq!(events, whole, "split at byte {at}");
    }
    assert!(
        inside_char >= 8,
        "the body has splits inside characters ({inside_char})"
    );
}

#[tokio::test]
async fn one_byte_pieces_and_crlf_line_ends_decode_the_same() {
    let body = interleaved_body();
    let whole = decode_pieces(vec![Bytes::from(body.clone())]).await;
    let bytes = Bytes::from(body.clone());
    let singles = (0..bytes.len()).map(|i| bytes.slice(i..i + 1)).collect();
    assert_eq!(decode_pieces(singles).await, whole);
    let crlf = Bytes::from(body.replace('\n', "\r\n"));
    let pieces = (0..crlf.len())
        .step_by(7)
        .map(|i| crlf.slice(i..(i + 7).min(crlf.len())))
        .collect();
    assert_eq!(decode_pieces(pieces).await, whole);
}

#[tokio::test]
async fn interleaved_tool_calls_emit_events_per_index() {
    let events = decode_pieces(vec![Bytes::from(interleaved_body())]).await;
    let events: Vec<StreamEvent> = events.into_iter().map(Result::unwrap).collect();
    let starts: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::ToolCallStart { index, id, name } => {
                Some((*index, id.as_str(), name.as_str()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        starts,
        [(0, "call_A", "get_weather"), (1, "call_B", "get_time")]
    );
    let mut args = [String::new(), String::new()];
    for e in &events {
        if let StreamEvent::ToolCallDelta { index, arguments } = e {
            args[*index].push_str(arguments);
        }
    }
    assert_eq!(args, [r#"{"city":"Zürich"}"#, r#"{"tz":"Europe/Paris"}"#]);
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, "Voilà — 🌍 météo");
    assert!(
        matches!(events[events.len() - 2], StreamEvent::Usage { usage } if usage.input_tokens == 50)
    );
}

#[tokio::test]
async fn streamed_over_http_split_every_byte() {
    let server = MockServer::with_script([
        MockResponse::raw_sse(interleaved_body()).split_every(1),
        MockResponse::raw_sse(interleaved_body()).split_at(vec![3, 9, 40, 100, 101, 102, 400]),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    for _ in 0..2 {
        let events: Vec<_> = model.stream(ask()).collect().await;
        check_interleaved(completed(&events));
    }
}

#[tokio::test]
async fn stream_request_asks_for_usage_and_answers_in_the_documented_shape() {
    let usage = Usage {
        input_tokens: 9,
        output_tokens: 4,
        requests: 1,
        ..Usage::default()
    };
    let server = MockServer::with_script([MockResponse::text("Hello, wörld!").usage(usage)]).await;
    let model = server.openai_model("gpt-4o-mini");
    let events: Vec<StreamEvent> = model.stream(ask()).map(Result::unwrap).collect().await;
    let body = &server.requests()[0].body;
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({ "include_usage": true }));

    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert!(deltas.len() > 1, "the answer arrives in pieces: {deltas:?}");
    assert_eq!(deltas.concat(), "Hello, wörld!");
    let StreamEvent::Completed { response } = events.last().unwrap() else {
        panic!()
    };
    assert_eq!(response.message.text(), "Hello, wörld!");
    assert_eq!(response.usage, usage);
    assert_eq!(response.finish_reason, FinishReason::Stop);

    // A server without streaming usage: no stream_options, usage defaults to one request.
    let compat = agentry::providers::openai::OpenAiModel::compatible("llama", server.url())
        .build()
        .unwrap();
    server.push(MockResponse::text("hi"));
    let events: Vec<_> = compat.stream(ask()).collect().await;
    assert!(server.requests()[1].body.get("stream_options").is_none());
    assert_eq!(
        completed(&events).usage,
        Usage {
            requests: 1,
            ..Usage::default()
        }
    );
}

#[tokio::test]
async fn refusals_and_every_finish_reason() {
    let server = MockServer::with_script([
        MockResponse::refusal("I can't help with that."),
        MockResponse::text("cut").finish_reason("length"),
        MockResponse::text("").finish_reason("content_filter"),
        MockResponse::tool_calls(vec![ToolCall::new("", "noop", "{}")]),
        MockResponse::text("x").finish_reason("function_call"),
        MockResponse::text("x").finish_reason("brand_new_reason"),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let events: Vec<_> = model.stream(ask()).collect().await;
    let refusal: String = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::RefusalDelta { text }) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(refusal, "I can't help with that.");
    let r = completed(&events);
    assert_eq!(r.finish_reason, FinishReason::Refusal);
    assert_eq!(
        r.message.refusal.as_deref(),
        Some("I can't help with that.")
    );

    let mut reasons = Vec::new();
    for _ in 0..5 {
        let events: Vec<_> = model.stream(ask()).collect().await;
        reasons.push(completed(&events).finish_reason.clone());
        if let Some(call) = completed(&events).message.tool_calls.first() {
            assert!(
                call.id.starts_with("call_") && call.name == "noop",
                "an empty id is replaced by a unique one: {call:?}"
            );
        }
    }
    assert_eq!(
        reasons,
        [
            FinishReason::Length,
            FinishReason::ContentFilter,
            FinishReason::ToolCalls,
            FinishReason::ToolCalls,
            FinishReason::Other("brand_new_reason".into())
        ]
    );
}

#[tokio::test]
async fn an_error_inside_a_200_stream_is_an_error() {
    let server = MockServer::with_script([
        MockResponse::sse(vec![
            chunk(json!({ "content": "Par" }), None),
            json!({ "error": { "message": "The server had an error while processing your request.", "type": "server_error" } }),
        ]),
        MockResponse::raw_sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\nevent: error\ndata: {\"message\":\"overloaded\"}\n\n"),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(matches!(events[0], Ok(StreamEvent::TextDelta { .. })));
    match events.last().unwrap() {
        Err(ModelError::Stream { message }) => {
            assert!(message.contains("server had an error"), "{message}")
        }
        other => panic!("{other:?}"),
    }
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::Completed { .. })))
    );
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(events.last().unwrap(), Err(ModelError::Stream { message }) if message == "overloaded")
    );
}

#[tokio::test]
async fn a_cut_off_stream_is_incomplete_not_short() {
    let server = MockServer::with_script([
        MockResponse::text("The answer is forty").cut_off(),
        // [DONE] without a finish_reason.
        MockResponse::sse(vec![chunk(json!({ "content": "Half" }), None)]),
        // finish_reason but no [DONE]: complete.
        MockResponse::sse(vec![chunk(json!({ "content": "Whole" }), Some("stop"))]).without_done(),
        // A truncated JSON line at the end of the body.
        MockResponse::raw_sse("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"}}]}\n\ndata: {\"choices\":[{\"ind"),
    ])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(events.last().unwrap(), Err(ModelError::Incomplete(_))),
        "{:?}",
        events.last()
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::TextDelta { .. })))
    );
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(events.last().unwrap(), Err(ModelError::Incomplete(m)) if m.contains("[DONE]"))
    );
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert_eq!(completed(&events).message.text(), "Whole");
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(matches!(
        events.last().unwrap(),
        Err(ModelError::Incomplete(_))
    ));
    assert_eq!(server.request_count(), 4, "stream errors are not retried");
}

#[tokio::test]
async fn malformed_chunks_and_compatible_variants() {
    let server = MockServer::with_script([
        MockResponse::raw_sse("data: {not json}\n\n"),
        // Ollama-style: no index on tool calls, arguments as an object, `reasoning` deltas,
        // a comment line and `null` choices in the usage chunk.
        MockResponse::raw_sse(concat!(
            ": keep-alive\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"hmm\"}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"id\":\"c1\",\"function\":{\"name\":\"add\",\"arguments\":{\"a\":1}}}]}}]}\n\n",
            "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n",
            "data: {\"choices\":null,\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":null}}\n\n",
            "data: [DONE]\n\n"
        )),
    ])
    .await;
    let model = server.openai_model("llama3.2");
    let events: Vec<_> = model.stream(ask()).collect().await;
    assert!(
        matches!(events.last().unwrap(), Err(ModelError::Decode(m)) if m.contains("{not json}"))
    );

    let events: Vec<_> = model.stream(ask()).collect().await;
    let r = completed(&events);
    assert_eq!(
        r.message.tool_calls,
        vec![ToolCall::new("c1", "add", r#"{"a":1}"#)]
    );
    assert_eq!(
        r.message.content[0],
        agentry::ContentBlock::Reasoning {
            text: "hmm".into(),
            signature: None
        }
    );
    assert_eq!(r.usage.input_tokens, 5);

    // A server that ignores `stream: true` and answers with one JSON body.
    let json_answer = json!({ "choices": [{ "index": 0, "message": { "role": "assistant", "content": "not streamed" }, "finish_reason": "stop" }] });
    let server = MockServer::with_script([MockResponse::json(json_answer)]).await;
    let events: Vec<_> = server.openai_model("m").stream(ask()).collect().await;
    assert_eq!(completed(&events).message.text(), "not streamed");
}

#[tokio::test]
async fn concurrency_limit_holds_while_a_stream_is_open() {
    // Sent in two pieces: the stream stays open until the consumer reads past the first.
    let server = MockServer::with_handler(|_| {
        MockResponse::text("a fairly long answer").split_at(vec![700])
    })
    .await;
    let model = server
        .openai_builder("gpt-4o-mini")
        .rate_limit(RateLimit::default().max_concurrent(1))
        .build()
        .unwrap();
    let mut first = model.stream(ask());
    assert!(matches!(
        first.next().await,
        Some(Ok(StreamEvent::TextDelta { .. }))
    ));
    let clone = model.clone();
    let second = tokio::spawn(async move { clone.invoke(ask()).await });
    // The clone shares the limiter: its request cannot start while the stream is open.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(server.request_count(), 1);
    assert!(!second.is_finished());
    drop(first);
    let answer = second.await.unwrap().unwrap();
    assert_eq!(answer.message.text(), "a fairly long answer");
    assert_eq!(server.request_count(), 2);
}

#[tokio::test]
async fn a_paced_answer_arrives_event_by_event_with_its_text_before_the_calls() {
    let pace = Duration::from_millis(20);
    let server = MockServer::with_script([MockResponse::tool_calls(vec![ToolCall::new(
        "call_1",
        "look_up",
        r#"{"q":"x"}"#,
    )])
    .with_text("Let me look that up.")
    .pace(pace)])
    .await;
    let model = server.openai_model("gpt-4o-mini");
    let mut stream = model.stream(ask());
    let mut text_arrivals = Vec::new();
    let mut completed = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            StreamEvent::TextDelta { text } => {
                text_arrivals.push((std::time::Instant::now(), text));
            }
            StreamEvent::Completed { response } => completed = Some(response),
            _ => {}
        }
    }
    // Four characters an event: each piece was sent after its own pause, so the pieces
    // arrive apart (a sleep lasts at least its time; nothing here bounds it from above).
    let texts: Vec<&str> = text_arrivals.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(texts.concat(), "Let me look that up.");
    assert_eq!(texts.len(), 5, "{texts:?}");
    let spread = text_arrivals[4].0 - text_arrivals[0].0;
    assert!(
        spread >= pace * 4,
        "five paced events arrived within {spread:?}"
    );
    let response = completed.expect("the stream completes");
    assert_eq!(response.message.text(), "Let me look that up.");
    assert_eq!(response.message.tool_calls[0].name, "look_up");
    assert_eq!(response.finish_reason, FinishReason::ToolCalls);
}
