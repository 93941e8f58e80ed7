//! OpenAI Responses (`POST /v1/responses`).

use std::sync::Arc;

use agentry::ToolDefinition;
use agentry::http::ResponseLimits;
use agentry::model::SharedModel;
use agentry::providers::openai_responses::OpenAiResponsesModel;
use agentry::schema::{Dialect, lower};
use serde_json::{Value, json};

use super::scenarios::KEY;
use super::server::{Recorded, Reply, sse_event};
use super::wire::{Call, ErrorCase, Finish, SentResult, Turn, Wire, fast_retry, openai_error_body};

pub struct Responses;

fn usage(turn: &Turn) -> Value {
    json!({
        "input_tokens": turn.usage.input,
        "input_tokens_details": { "cached_tokens": turn.usage.cached },
        "output_tokens": turn.usage.output,
        "output_tokens_details": { "reasoning_tokens": 0 },
        "total_tokens": turn.usage.input + turn.usage.output
    })
}

fn message_item(text: &str) -> Value {
    json!({ "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
        "content": [{ "type": "output_text", "text": text, "annotations": [] }] })
}

fn call_item(i: usize, c: &Call, arguments: &str) -> Value {
    json!({ "type": "function_call", "id": format!("fc_{i}"), "call_id": c.id, "name": c.name, "arguments": arguments, "status": "completed" })
}

fn output(turn: &Turn) -> Vec<Value> {
    let mut items: Vec<Value> = turn.text.iter().map(|t| message_item(t)).collect();
    items.extend(
        turn.calls
            .iter()
            .enumerate()
            .map(|(i, c)| call_item(i, c, &c.args.to_string())),
    );
    items
}

fn response(turn: &Turn) -> Value {
    let mut r = json!({ "id": "resp_1", "object": "response", "model": "gpt-4.1", "status": "completed",
        "output": output(turn), "usage": usage(turn) });
    if turn.finish == Finish::Length {
        r["status"] = json!("incomplete");
        r["incomplete_details"] = json!({ "reason": "max_output_tokens" });
    }
    r
}

fn ev(data: Value) -> String {
    sse_event(data["type"].as_str().unwrap(), &data)
}

fn started() -> String {
    ev(json!({ "type": "response.created", "sequence_number": 0,
        "response": { "id": "resp_1", "object": "response", "model": "gpt-4.1", "status": "in_progress", "output": [] } }))
}

fn text_start() -> String {
    ev(
        json!({ "type": "response.output_item.added", "output_index": 0,
        "item": { "type": "message", "id": "msg_1", "role": "assistant", "status": "in_progress", "content": [] } }),
    )
}

fn text_delta(index: usize, delta: &str) -> String {
    ev(
        json!({ "type": "response.output_text.delta", "item_id": "msg_1", "output_index": index, "content_index": 0, "delta": delta }),
    )
}

impl Wire for Responses {
    fn name(&self) -> &'static str {
        "openai-responses"
    }

    fn model_with_limits(&self, base: &str, limits: ResponseLimits) -> SharedModel {
        Arc::new(
            OpenAiResponsesModel::builder("gpt-4.1")
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
            return Reply::json(200, &response(turn));
        }
        let mut body = started();
        let mut index = 0;
        if let Some(text) = &turn.text {
            body += &text_start();
            let mid = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(0, |(i, _)| i);
            body += &text_delta(0, &text[..mid]);
            body += &text_delta(0, &text[mid..]);
            body += &ev(
                json!({ "type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0, "text": text }),
            );
            body += &ev(
                json!({ "type": "response.output_item.done", "output_index": 0, "item": message_item(text) }),
            );
            index += 1;
        }
        for (i, c) in turn.calls.iter().enumerate() {
            let args = c.args.to_string();
            body += &ev(
                json!({ "type": "response.output_item.added", "output_index": index, "item": call_item(i, c, "") }),
            );
            let mid = args.len() / 2;
            for part in [&args[..mid], &args[mid..]] {
                body += &ev(
                    json!({ "type": "response.function_call_arguments.delta", "item_id": format!("fc_{i}"), "output_index": index, "delta": part }),
                );
            }
            body += &ev(
                json!({ "type": "response.function_call_arguments.done", "item_id": format!("fc_{i}"), "output_index": index, "arguments": args }),
            );
            body += &ev(
                json!({ "type": "response.output_item.done", "output_index": index, "item": call_item(i, c, &args) }),
            );
            index += 1;
        }
        let end = if turn.finish == Finish::Length {
            "response.incomplete"
        } else {
            "response.completed"
        };
        body += &ev(json!({ "type": end, "response": response(turn) }));
        Reply::sse(body)
    }

    fn cut_stream(&self, partial: &str) -> Reply {
        Reply::sse(started() + &text_start() + &text_delta(0, partial))
    }

    fn stream_error(&self, partial: &str, message: &str) -> Reply {
        let error = ev(
            json!({ "type": "error", "code": "server_error", "message": message, "param": null }),
        );
        Reply::sse(started() + &text_start() + &text_delta(0, partial) + &error)
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
                    "The model `gpt-nope` does not exist",
                    "invalid_request_error",
                    Some("model"),
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
                    "Unsupported parameter: 'temperature'",
                    "invalid_request_error",
                    Some("temperature"),
                    Some("unsupported_parameter"),
                ),
            ),
            ErrorCase::Server => Reply::json(
                500,
                &openai_error_body("The server had an error", "server_error", None, None),
            ),
            ErrorCase::ContextLength => Reply::json(
                400,
                &openai_error_body(
                    "Your input exceeds the context window of this model.",
                    "invalid_request_error",
                    Some("input"),
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
        assert_eq!(request.path, "/v1/responses");
        assert_eq!(request.headers["authorization"], format!("Bearer {KEY}"));
        assert_eq!(request.body["store"], false);
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
            assert_eq!(s["name"], def.name.as_str());
            assert_eq!(s["description"], def.description.as_str());
            assert_eq!(
                &s["parameters"],
                def.parameters_for(Dialect::OpenAi).unwrap()
            );
        }
        let want = match choice {
            "auto" | "none" | "required" => json!(choice),
            name => json!({ "type": "function", "name": name }),
        };
        if !(choice == "auto" && body.get("tool_choice").is_none()) {
            assert_eq!(body["tool_choice"], want);
        }
        if let Some(p) = parallel {
            assert_eq!(body["parallel_tool_calls"], p);
        }
    }

    fn system(&self, body: &Value) -> Option<String> {
        let first = &body["input"][0];
        (first["role"] == "system").then(|| first["content"].as_str().unwrap().to_owned())
    }

    fn sent_calls_and_results(&self, body: &Value) -> (Vec<Call>, Vec<SentResult>) {
        let items = body["input"].as_array().unwrap();
        let first = items
            .iter()
            .position(|i| i["type"] == "function_call")
            .expect("function_call items");
        let calls: Vec<Call> = items[first..]
            .iter()
            .take_while(|i| i["type"] == "function_call")
            .map(|i| Call {
                id: i["call_id"].as_str().unwrap().to_owned(),
                name: i["name"].as_str().unwrap().to_owned(),
                args: serde_json::from_str(i["arguments"].as_str().unwrap()).unwrap(),
            })
            .collect();
        let results = items[first + calls.len()..]
            .iter()
            .map(|i| {
                assert_eq!(i["type"], "function_call_output");
                SentResult {
                    id: Some(i["call_id"].as_str().unwrap().to_owned()),
                    name: None,
                    output: i["output"].as_str().unwrap().to_owned(),
                }
            })
            .collect();
        (calls, results)
    }

    fn assert_structured(&self, body: &Value, name: &str, schema: &Value) {
        assert_eq!(
            body["text"]["format"],
            json!({ "type": "json_schema", "name": name, "schema": lower(schema, Dialect::OpenAiStrict).unwrap(), "strict": true })
        );
    }
}
