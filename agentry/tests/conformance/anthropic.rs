//! Anthropic Messages (`POST /v1/messages`).

use std::sync::Arc;

use agentry::ToolDefinition;
use agentry::http::ResponseLimits;
use agentry::model::SharedModel;
use agentry::providers::anthropic::AnthropicModel;
use agentry::schema::{Dialect, lower};
use serde_json::{Value, json};

use super::scenarios::KEY;
use super::server::{Recorded, Reply, sse_event};
use super::wire::{Call, ErrorCase, Finish, SentResult, Turn, Wire, fast_retry};

pub struct Anthropic;

fn stop_reason(f: Finish) -> &'static str {
    match f {
        Finish::Stop => "end_turn",
        Finish::ToolCalls => "tool_use",
        Finish::Length => "max_tokens",
    }
}

/// Anthropic's `input_tokens` excludes cache reads.
fn usage(turn: &Turn) -> Value {
    json!({
        "input_tokens": turn.usage.input - turn.usage.cached,
        "output_tokens": turn.usage.output,
        "cache_read_input_tokens": turn.usage.cached,
        "cache_creation_input_tokens": 0
    })
}

fn message_start(turn_usage: Value) -> String {
    sse_event(
        "message_start",
        &json!({
            "type": "message_start",
            "message": {
                "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                "content": [], "stop_reason": null, "stop_sequence": null, "usage": turn_usage
            }
        }),
    )
}

fn delta(index: usize, delta: Value) -> String {
    sse_event(
        "content_block_delta",
        &json!({ "type": "content_block_delta", "index": index, "delta": delta }),
    )
}

fn block_start(index: usize, block: Value) -> String {
    sse_event(
        "content_block_start",
        &json!({ "type": "content_block_start", "index": index, "content_block": block }),
    )
}

fn block_stop(index: usize) -> String {
    sse_event(
        "content_block_stop",
        &json!({ "type": "content_block_stop", "index": index }),
    )
}

fn error_body(kind: &str, message: &str) -> Value {
    json!({ "type": "error", "error": { "type": kind, "message": message } })
}

impl Wire for Anthropic {
    fn name(&self) -> &'static str {
        "anthropic"
    }

    fn model_with_limits(&self, base: &str, limits: ResponseLimits) -> SharedModel {
        Arc::new(
            AnthropicModel::builder("claude-sonnet-4-5")
                .base_url(base)
                .api_key(KEY)
                .retry_policy(fast_retry())
                .response_limits(limits)
                .build()
                .unwrap(),
        )
    }

    fn reply(&self, turn: &Turn, stream: bool) -> Reply {
        let mut blocks = Vec::new();
        if let Some(text) = &turn.text {
            blocks.push(json!({ "type": "text", "text": text }));
        }
        for c in &turn.calls {
            blocks.push(json!({ "type": "tool_use", "id": c.id, "name": c.name, "input": c.args }));
        }
        if !stream {
            return Reply::json(
                200,
                &json!({
                    "id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                    "content": blocks, "stop_reason": stop_reason(turn.finish), "stop_sequence": null,
                    "usage": usage(turn)
                }),
            );
        }
        let mut start_usage = usage(turn);
        start_usage["output_tokens"] = json!(1);
        let mut body = message_start(start_usage);
        body += &sse_event("ping", &json!({ "type": "ping" }));
        for (i, block) in blocks.iter().enumerate() {
            match block["type"].as_str().unwrap() {
                "text" => {
                    body += &block_start(i, json!({ "type": "text", "text": "" }));
                    let text = block["text"].as_str().unwrap();
                    let mid = text
                        .char_indices()
                        .nth(text.chars().count() / 2)
                        .map_or(0, |(i, _)| i);
                    body += &delta(i, json!({ "type": "text_delta", "text": &text[..mid] }));
                    body += &delta(i, json!({ "type": "text_delta", "text": &text[mid..] }));
                }
                _ => {
                    body += &block_start(
                        i,
                        json!({ "type": "tool_use", "id": block["id"], "name": block["name"], "input": {} }),
                    );
                    let args = block["input"].to_string();
                    let mid = args.len() / 2;
                    body += &delta(i, json!({ "type": "input_json_delta", "partial_json": "" }));
                    body += &delta(
                        i,
                        json!({ "type": "input_json_delta", "partial_json": &args[..mid] }),
                    );
                    body += &delta(
                        i,
                        json!({ "type": "input_json_delta", "partial_json": &args[mid..] }),
                    );
                }
            }
            body += &block_stop(i);
        }
        body += &sse_event(
            "message_delta",
            &json!({
                "type": "message_delta",
                "delta": { "stop_reason": stop_reason(turn.finish), "stop_sequence": null },
                "usage": { "output_tokens": turn.usage.output }
            }),
        );
        body += &sse_event("message_stop", &json!({ "type": "message_stop" }));
        Reply::sse(body)
    }

    fn cut_stream(&self, partial: &str) -> Reply {
        let mut body = message_start(json!({ "input_tokens": 10, "output_tokens": 1 }));
        body += &block_start(0, json!({ "type": "text", "text": "" }));
        body += &delta(0, json!({ "type": "text_delta", "text": partial }));
        Reply::sse(body)
    }

    fn stream_error(&self, partial: &str, message: &str) -> Reply {
        let mut body = message_start(json!({ "input_tokens": 10, "output_tokens": 1 }));
        body += &block_start(0, json!({ "type": "text", "text": "" }));
        body += &delta(0, json!({ "type": "text_delta", "text": partial }));
        body += &sse_event("error", &error_body("overloaded_error", message));
        Reply::sse(body)
    }

    fn error_envelope(&self, message: &str, rate_limited: bool) -> Value {
        let kind = if rate_limited {
            "rate_limit_error"
        } else {
            "invalid_request_error"
        };
        error_body(kind, message)
    }

    fn sampling(&self, body: &Value) -> (Value, Value) {
        (body["temperature"].clone(), body["top_p"].clone())
    }

    fn error(&self, case: ErrorCase) -> Reply {
        match case {
            ErrorCase::Unauthorized => Reply::json(
                401,
                &error_body("authentication_error", &format!("invalid x-api-key: {KEY}")),
            ),
            ErrorCase::Forbidden => Reply::json(
                403,
                &error_body(
                    "permission_error",
                    "Your API key does not have permission to use the specified resource.",
                ),
            ),
            ErrorCase::NotFound => {
                Reply::json(404, &error_body("not_found_error", "model: claude-nope"))
            }
            ErrorCase::RateLimited(secs) => Reply::json(
                429,
                &error_body(
                    "rate_limit_error",
                    "Number of request tokens has exceeded your per-minute rate limit",
                ),
            )
            .header("retry-after", &secs.to_string()),
            ErrorCase::BadParam => Reply::json(
                400,
                &error_body(
                    "invalid_request_error",
                    "max_tokens: Input should be a valid integer",
                ),
            ),
            ErrorCase::Server => Reply::json(529, &error_body("overloaded_error", "Overloaded")),
            ErrorCase::ContextLength => Reply::json(
                400,
                &error_body(
                    "invalid_request_error",
                    "prompt is too long: 215000 tokens > 200000 maximum",
                ),
            ),
        }
    }

    fn bad_param(&self) -> &'static str {
        "max_tokens"
    }

    fn is_stream(&self, request: &Recorded) -> bool {
        request.body["stream"] == true
    }

    fn assert_endpoint(&self, request: &Recorded, _stream: bool) {
        assert_eq!(request.path, "/v1/messages");
        assert_eq!(request.headers["x-api-key"], KEY);
        assert_eq!(request.headers["anthropic-version"], "2023-06-01");
        assert!(request.headers.get("authorization").is_none());
        assert!(
            request.body["max_tokens"].as_u64().is_some(),
            "max_tokens is required"
        );
    }

    fn assert_tools(
        &self,
        body: &Value,
        tools: &[ToolDefinition],
        choice: &str,
        parallel: Option<bool>,
    ) {
        let sent = body["tools"].as_array().expect("tools");
        assert_eq!(sent.len(), tools.len());
        for (s, def) in sent.iter().zip(tools) {
            assert_eq!(s["name"], def.name.as_str());
            assert_eq!(s["description"], def.description.as_str());
            assert_eq!(
                &s["input_schema"],
                def.parameters_for(Dialect::Anthropic).unwrap()
            );
        }
        let mut want = match choice {
            "auto" => json!({ "type": "auto" }),
            "none" => json!({ "type": "none" }),
            "required" => json!({ "type": "any" }),
            name => json!({ "type": "tool", "name": name }),
        };
        if parallel == Some(false) {
            want["disable_parallel_tool_use"] = json!(true);
        }
        if !(choice == "auto" && parallel.is_none() && body.get("tool_choice").is_none()) {
            assert_eq!(body["tool_choice"], want, "tool_choice");
        }
    }

    fn system(&self, body: &Value) -> Option<String> {
        assert!(
            body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .all(|m| m["role"] != "system")
        );
        body["system"].as_str().map(str::to_owned)
    }

    fn sent_calls_and_results(&self, body: &Value) -> (Vec<Call>, Vec<SentResult>) {
        let messages = body["messages"].as_array().unwrap();
        let at = messages
            .iter()
            .rposition(|m| {
                m["role"] == "assistant"
                    && m["content"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|b| b["type"] == "tool_use")
            })
            .expect("an assistant turn with tool_use blocks");
        let calls = messages[at]["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| Call {
                id: b["id"].as_str().unwrap().to_owned(),
                name: b["name"].as_str().unwrap().to_owned(),
                args: b["input"].clone(),
            })
            .collect();
        // Every result in the one user turn that follows, and that turn is the last.
        assert_eq!(messages.len(), at + 2, "all results in one user turn");
        let turn = &messages[at + 1];
        assert_eq!(turn["role"], "user");
        let results = turn["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| {
                assert_eq!(b["type"], "tool_result");
                SentResult {
                    id: Some(b["tool_use_id"].as_str().unwrap().to_owned()),
                    name: None,
                    output: b["content"].as_str().unwrap().to_owned(),
                }
            })
            .collect();
        (calls, results)
    }

    fn assert_structured(&self, body: &Value, _name: &str, schema: &Value) {
        assert_eq!(
            body["output_config"]["format"],
            json!({ "type": "json_schema", "schema": lower(schema, Dialect::Anthropic).unwrap() })
        );
    }
}
