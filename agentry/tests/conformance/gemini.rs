//! Google Gemini (`:generateContent`, `:streamGenerateContent?alt=sse`).

use std::sync::Arc;

use agentry::ToolDefinition;
use agentry::http::ResponseLimits;
use agentry::model::SharedModel;
use agentry::providers::gemini::GeminiModel;
use agentry::schema::{Dialect, lower};
use serde_json::{Value, json};

use super::scenarios::KEY;
use super::server::{Recorded, Reply, sse_event};
use super::wire::{Call, ErrorCase, Finish, SentResult, Turn, Wire, fast_retry};

pub struct Gemini;

fn finish(f: Finish) -> &'static str {
    match f {
        // Gemini reports STOP after function calls too.
        Finish::Stop | Finish::ToolCalls => "STOP",
        Finish::Length => "MAX_TOKENS",
    }
}

fn usage(turn: &Turn) -> Value {
    json!({
        "promptTokenCount": turn.usage.input,
        "candidatesTokenCount": turn.usage.output,
        "totalTokenCount": turn.usage.input + turn.usage.output,
        "cachedContentTokenCount": turn.usage.cached
    })
}

fn response(parts: Vec<Value>, finish: Option<&str>, usage: Option<Value>) -> Value {
    let mut candidate = json!({ "content": { "role": "model", "parts": parts }, "index": 0 });
    if let Some(f) = finish {
        candidate["finishReason"] = json!(f);
    }
    let mut r = json!({ "candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "resp-1" });
    if let Some(u) = usage {
        r["usageMetadata"] = u;
    }
    r
}

fn call_parts(turn: &Turn) -> Vec<Value> {
    turn.calls
        .iter()
        .map(|c| json!({ "functionCall": { "name": c.name, "args": c.args } }))
        .collect()
}

fn error_body(code: u16, status: &str, message: &str, details: Value) -> Value {
    json!({ "error": { "code": code, "message": message, "status": status, "details": details } })
}

impl Wire for Gemini {
    fn name(&self) -> &'static str {
        "gemini"
    }

    fn model_with_limits(&self, base: &str, limits: ResponseLimits) -> SharedModel {
        Arc::new(
            GeminiModel::builder("gemini-2.5-flash")
                .base_url(base)
                .api_key(KEY)
                .retry_policy(fast_retry())
                .response_limits(limits)
                .build()
                .unwrap(),
        )
    }

    fn reply(&self, turn: &Turn, stream: bool) -> Reply {
        if !stream {
            let mut parts: Vec<Value> = turn.text.iter().map(|t| json!({ "text": t })).collect();
            parts.extend(call_parts(turn));
            return Reply::json(
                200,
                &response(parts, Some(finish(turn.finish)), Some(usage(turn))),
            );
        }
        let mut body = String::new();
        if let Some(text) = &turn.text {
            let mid = text
                .char_indices()
                .nth(text.chars().count() / 2)
                .map_or(0, |(i, _)| i);
            body += &sse_event(
                "",
                &response(vec![json!({ "text": &text[..mid] })], None, None),
            );
            body += &sse_event(
                "",
                &response(vec![json!({ "text": &text[mid..] })], None, None),
            );
        }
        let calls = call_parts(turn);
        if !calls.is_empty() {
            body += &sse_event("", &response(calls, None, None));
        }
        body += &sse_event(
            "",
            &response(
                vec![json!({ "text": "" })],
                Some(finish(turn.finish)),
                Some(usage(turn)),
            ),
        );
        Reply::sse(body)
    }

    fn cut_stream(&self, partial: &str) -> Reply {
        Reply::sse(sse_event(
            "",
            &response(vec![json!({ "text": partial })], None, None),
        ))
    }

    fn stream_error(&self, partial: &str, message: &str) -> Reply {
        let mut body = sse_event("", &response(vec![json!({ "text": partial })], None, None));
        body += &sse_event(
            "",
            &json!({ "error": { "code": 500, "message": message, "status": "INTERNAL" } }),
        );
        Reply::sse(body)
    }

    fn error_envelope(&self, message: &str, rate_limited: bool) -> Value {
        if rate_limited {
            error_body(429, "RESOURCE_EXHAUSTED", message, json!([]))
        } else {
            error_body(400, "INVALID_ARGUMENT", message, json!([]))
        }
    }

    fn sampling(&self, body: &Value) -> (Value, Value) {
        (
            body["generationConfig"]["temperature"].clone(),
            body["generationConfig"]["topP"].clone(),
        )
    }

    fn error(&self, case: ErrorCase) -> Reply {
        match case {
            // What Google answers for a wrong key: a 400 whose reason is API_KEY_INVALID.
            ErrorCase::Unauthorized => Reply::json(
                400,
                &error_body(
                    400,
                    "INVALID_ARGUMENT",
                    &format!("API key not valid: {KEY}"),
                    json!([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com" }]),
                ),
            ),
            ErrorCase::Forbidden => Reply::json(
                403,
                &error_body(
                    403,
                    "PERMISSION_DENIED",
                    "Method doesn't allow unregistered callers",
                    json!([]),
                ),
            ),
            ErrorCase::NotFound => Reply::json(
                404,
                &error_body(
                    404,
                    "NOT_FOUND",
                    "models/gemini-nope is not found for API version v1beta",
                    json!([]),
                ),
            ),
            ErrorCase::RateLimited(secs) => Reply::json(
                429,
                &error_body(
                    429,
                    "RESOURCE_EXHAUSTED",
                    "Resource has been exhausted (e.g. check quota).",
                    json!([]),
                ),
            )
            .header("retry-after", &secs.to_string()),
            ErrorCase::BadParam => Reply::json(
                400,
                &error_body(
                    400,
                    "INVALID_ARGUMENT",
                    "Invalid value at 'generation_config.temperature'",
                    json!([{ "@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": [{ "field": "generation_config.temperature", "description": "must be in [0, 2]" }] }]),
                ),
            ),
            ErrorCase::Server => Reply::json(
                503,
                &error_body(
                    503,
                    "UNAVAILABLE",
                    "The model is overloaded. Please try again later.",
                    json!([]),
                ),
            ),
            ErrorCase::ContextLength => Reply::json(
                400,
                &error_body(
                    400,
                    "INVALID_ARGUMENT",
                    "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
                    json!([]),
                ),
            ),
        }
    }

    fn bad_param(&self) -> &'static str {
        "generation_config.temperature"
    }

    fn is_stream(&self, request: &Recorded) -> bool {
        request.path.ends_with(":streamGenerateContent")
            && request.query.as_deref() == Some("alt=sse")
    }

    fn assert_endpoint(&self, request: &Recorded, stream: bool) {
        let method = if stream {
            "streamGenerateContent"
        } else {
            "generateContent"
        };
        assert_eq!(
            request.path,
            format!("/v1beta/models/gemini-2.5-flash:{method}")
        );
        assert_eq!(request.headers["x-goog-api-key"], KEY);
        assert!(
            !request
                .query
                .as_deref()
                .unwrap_or_default()
                .contains("key="),
            "the key is not in the URL"
        );
    }

    fn assert_tools(
        &self,
        body: &Value,
        tools: &[ToolDefinition],
        choice: &str,
        _parallel: Option<bool>,
    ) {
        let sent = body["tools"][0]["functionDeclarations"]
            .as_array()
            .expect("functionDeclarations");
        assert_eq!(sent.len(), tools.len());
        for (s, def) in sent.iter().zip(tools) {
            assert_eq!(s["name"], def.name.as_str());
            assert_eq!(s["description"], def.description.as_str());
            assert_eq!(
                &s["parameters"],
                def.parameters_for(Dialect::Gemini).unwrap()
            );
        }
        let want = match choice {
            "auto" => json!({ "mode": "AUTO" }),
            "none" => json!({ "mode": "NONE" }),
            "required" => json!({ "mode": "ANY" }),
            name => json!({ "mode": "ANY", "allowedFunctionNames": [name] }),
        };
        if !(choice == "auto" && body.get("toolConfig").is_none()) {
            assert_eq!(body["toolConfig"]["functionCallingConfig"], want);
        }
    }

    fn system(&self, body: &Value) -> Option<String> {
        assert!(
            body["contents"]
                .as_array()
                .unwrap()
                .iter()
                .all(|c| c["role"] == "user" || c["role"] == "model")
        );
        body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .map(str::to_owned)
    }

    fn sent_calls_and_results(&self, body: &Value) -> (Vec<Call>, Vec<SentResult>) {
        let contents = body["contents"].as_array().unwrap();
        let parts = |c: &Value| c["parts"].as_array().unwrap().clone();
        let at = contents
            .iter()
            .rposition(|c| {
                c["role"] == "model" && parts(c).iter().any(|p| p.get("functionCall").is_some())
            })
            .expect("a model turn with function calls");
        let calls = parts(&contents[at])
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .map(|fc| {
                assert!(
                    fc.get("id").is_none(),
                    "synthesized ids are not sent to Gemini"
                );
                Call {
                    id: String::new(),
                    name: fc["name"].as_str().unwrap().to_owned(),
                    args: fc["args"].clone(),
                }
            })
            .collect();
        assert_eq!(
            contents.len(),
            at + 2,
            "all function responses in one user turn"
        );
        assert_eq!(contents[at + 1]["role"], "user");
        let results = parts(&contents[at + 1])
            .iter()
            .map(|p| {
                let fr = &p["functionResponse"];
                SentResult {
                    id: None,
                    name: Some(fr["name"].as_str().unwrap().to_owned()),
                    output: fr["response"]["output"].as_str().unwrap().to_owned(),
                }
            })
            .collect();
        (calls, results)
    }

    fn assert_structured(&self, body: &Value, _name: &str, schema: &Value) {
        let config = &body["generationConfig"];
        assert_eq!(config["responseMimeType"], "application/json");
        assert_eq!(
            config["responseJsonSchema"],
            lower(schema, Dialect::Gemini).unwrap()
        );
    }

    fn has_call_ids(&self) -> bool {
        false
    }
}
