//! OpenAI Chat Completions (`POST /v1/chat/completions`), the format of Models I.

use std::sync::Arc;

use agentry::ToolDefinition;
use agentry::http::ResponseLimits;
use agentry::model::SharedModel;
use agentry::providers::openai::OpenAiModel;
use agentry::schema::{Dialect, lower};
use serde_json::{Value, json};

use super::scenarios::KEY;
use super::server::{Recorded, Reply, sse_event};
use super::wire::{Call, ErrorCase, Finish, SentResult, Turn, Wire, fast_retry, openai_error_body};

pub struct OpenAiChat;

fn finish(f: Finish) -> &'static str {
    match f {
        Finish::Stop => "stop",
        Finish::ToolCalls => "tool_calls",
        Finish::Length => "length",
    }
}

fn usage(turn: &Turn) -> Value {
    json!({
        "prompt_tokens": turn.usage.input,
        "completion_tokens": turn.usage.output,
        "total_tokens": turn.usage.input + turn.usage.output,
        "prompt_tokens_details": { "cached_tokens": turn.usage.cached }
    })
}

fn chunk(delta: Value, finish: Option<&str>) -> String {
    sse_event(
        "",
        &json!({
            "id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-4o-mini",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
        }),
    )
}

fn halves(s: &str) -> (String, String) {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    (s[..mid].to_owned(), s[mid..].to_owned())
}

impl Wire for OpenAiChat {
    fn name(&self) -> &'static str {
        "openai-chat"
    }

    fn model_with_limits(&self, base: &str, limits: ResponseLimits) -> SharedModel {
        Arc::new(
            OpenAiModel::builder("gpt-4o-mini")
                .base_url(format!("{base}/v1"))
                .api_key(KEY)
                .retry_policy(fast_retry())
                .response_limits(limits)
                .build()
                .unwrap(),
        )
    }

    fn reply(&self, turn: &Turn, stream: bool) -> Reply {
        if !stream {
            let calls: Vec<Value> = turn
                .calls
                .iter()
                .map(|c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.args.to_string() } }))
                .collect();
            let mut message = json!({ "role": "assistant", "content": turn.text });
            if !calls.is_empty() {
                message["tool_calls"] = Value::Array(calls);
            }
            return Reply::json(
                200,
                &json!({
                    "id": "chatcmpl-1", "object": "chat.completion", "model": "gpt-4o-mini",
                    "choices": [{ "index": 0, "message": message, "finish_reason": finish(turn.finish) }],
                    "usage": usage(turn)
                }),
            );
        }
        let mut body = chunk(json!({ "role": "assistant", "content": "" }), None);
        if let Some(text) = &turn.text {
            let (a, b) = halves(text);
            body += &chunk(json!({ "content": a }), None);
            body += &chunk(json!({ "content": b }), None);
        }
        for (i, c) in turn.calls.iter().enumerate() {
            body += &chunk(
                json!({ "tool_calls": [{ "index": i, "id": c.id, "type": "function", "function": { "name": c.name, "arguments": "" } }] }),
                None,
            );
            let (a, b) = halves(&c.args.to_string());
            for part in [a, b] {
                body += &chunk(
                    json!({ "tool_calls": [{ "index": i, "function": { "arguments": part } }] }),
                    None,
                );
            }
        }
        body += &chunk(json!({}), Some(finish(turn.finish)));
        body += &sse_event(
            "",
            &json!({ "id": "chatcmpl-1", "choices": [], "usage": usage(turn) }),
        );
        body += "data: [DONE]\n\n";
        Reply::sse(body)
    }

    fn cut_stream(&self, partial: &str) -> Reply {
        Reply::sse(chunk(
            json!({ "role": "assistant", "content": partial }),
            None,
        ))
    }

    fn stream_error(&self, partial: &str, message: &str) -> Reply {
        let mut body = chunk(json!({ "role": "assistant", "content": partial }), None);
        body += &sse_event(
            "",
            &json!({ "error": { "message": message, "type": "server_error" } }),
        );
        Reply::sse(body)
    }

    fn error_envelope(&self, message: &str, rate_limited: bool) -> Value {
        if rate_limited {
            openai_error_body(message, "requests", None, Some("rate_limit_exceeded"))
        } else {
            openai_error_body(
                message,
                "invalid_request_error",
                None,
                Some("invalid_value"),
            )
        }
    }

    fn sampling(&self, body: &Value) -> (Value, Value) {
        (body["temperature"].clone(), body["top_p"].clone())
    }

    fn error(&self, case: ErrorCase) -> Reply {
        match case {
            ErrorCase::Unauthorized => Reply::json(
                401,
                &openai_error_body(
                    &format!("Incorrect API key provided: {KEY}."),
                    "invalid_request_error",
                    None,
                    Some("invalid_api_key"),
                ),
            ),
            ErrorCase::Forbidden => Reply::json(
                403,
                &openai_error_body(
                    "You are not allowed to sample from this model",
                    "invalid_request_error",
                    None,
                    None,
                ),
            ),
            ErrorCase::NotFound => Reply::json(
                404,
                &openai_error_body(
                    "The model `gpt-5-nope` does not exist",
                    "invalid_request_error",
                    None,
                    Some("model_not_found"),
                ),
            ),
            ErrorCase::RateLimited(secs) => Reply::json(
                429,
                &openai_error_body(
                    "Rate limit reached",
                    "requests",
                    None,
                    Some("rate_limit_exceeded"),
                ),
            )
            .header("retry-after", &secs.to_string()),
            ErrorCase::BadParam => Reply::json(
                400,
                &openai_error_body(
                    "Invalid value for 'temperature'",
                    "invalid_request_error",
                    Some("temperature"),
                    None,
                ),
            ),
            ErrorCase::Server => Reply::json(
                500,
                &openai_error_body("The server had an error", "server_error", None, None),
            ),
            ErrorCase::ContextLength => Reply::json(
                400,
                &openai_error_body(
                    "This model's maximum context length is 128000 tokens.",
                    "invalid_request_error",
                    Some("messages"),
                    Some("context_length_exceeded"),
                ),
            ),
        }
    }

    fn bad_param(&self) -> &'static str {
        "temperature"
    }

    fn is_stream(&self, request: &Recorded) -> bool {
        request.body["stream"] == true
    }

    fn assert_endpoint(&self, request: &Recorded, _stream: bool) {
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.headers["authorization"], format!("Bearer {KEY}"));
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
            assert_eq!(s["type"], "function");
            assert_eq!(s["function"]["name"], def.name.as_str());
            assert_eq!(
                &s["function"]["parameters"],
                def.parameters_for(Dialect::OpenAi).unwrap()
            );
        }
        let want = match choice {
            "auto" | "none" | "required" => json!(choice),
            name => json!({ "type": "function", "function": { "name": name } }),
        };
        if !(choice == "auto" && body.get("tool_choice").is_none()) {
            assert_eq!(body["tool_choice"], want, "tool_choice");
        }
        if let Some(p) = parallel {
            assert_eq!(body["parallel_tool_calls"], p);
        }
    }

    fn system(&self, body: &Value) -> Option<String> {
        let first = &body["messages"][0];
        (first["role"] == "system").then(|| first["content"].as_str().unwrap().to_owned())
    }

    fn sent_calls_and_results(&self, body: &Value) -> (Vec<Call>, Vec<SentResult>) {
        let messages = body["messages"].as_array().unwrap();
        let at = messages
            .iter()
            .rposition(|m| m["role"] == "assistant" && m.get("tool_calls").is_some())
            .expect("an assistant turn with calls");
        let calls = messages[at]["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| Call {
                id: c["id"].as_str().unwrap().to_owned(),
                name: c["function"]["name"].as_str().unwrap().to_owned(),
                args: serde_json::from_str(c["function"]["arguments"].as_str().unwrap()).unwrap(),
            })
            .collect();
        let results = messages[at + 1..]
            .iter()
            .take_while(|m| m["role"] == "tool")
            .map(|m| SentResult {
                id: Some(m["tool_call_id"].as_str().unwrap().to_owned()),
                name: None,
                output: m["content"].as_str().unwrap().to_owned(),
            })
            .collect();
        (calls, results)
    }

    fn assert_structured(&self, body: &Value, name: &str, schema: &Value) {
        let format = &body["response_format"];
        assert_eq!(format["type"], "json_schema");
        assert_eq!(format["json_schema"]["name"], name);
        assert_eq!(format["json_schema"]["strict"], true);
        assert_eq!(
            format["json_schema"]["schema"],
            lower(schema, Dialect::OpenAiStrict).unwrap()
        );
    }
}
