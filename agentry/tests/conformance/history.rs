//! Continuing a conversation (the README's "Continuing a conversation"): a run's history,
//! passed back with a new question, must be a request the provider accepts. Run 1 calls a
//! tool (with the provider's reasoning attached where it has one) and answers through the
//! final-answer tool; run 2 continues from run 1's messages. The second run's request is
//! checked against the provider's rules: every tool call answered in place, roles alternating
//! where the provider requires it, reasoning (thinking blocks, thought signatures, reasoning
//! items) sent back where the provider requires it.

use agentry::agent::{Input, RunErrorKind};
use agentry::prelude::*;
use serde_json::{Value, json};

use super::server::{Reply, Server};
use super::wire::{Call, Finish, Turn, TurnUsage, Wire};

/// Current weather for a city.
///
/// # Arguments
/// * `city` - City name.
#[tool]
fn get_weather(city: String) -> String {
    format!("{city}: 18°C, clear")
}

/// A short forecast.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Forecast {
    /// The city.
    city: String,
    /// One sentence.
    summary: String,
}

/// You are a weather assistant.
#[agent(tools(get_weather), output = Forecast)]
struct Weather;

fn turn(calls: Vec<Call>) -> Turn {
    Turn {
        text: None,
        calls,
        usage: TurnUsage {
            input: 50,
            cached: 0,
            output: 10,
        },
        finish: Finish::ToolCalls,
    }
}

fn weather_call(id: &str, city: &str) -> Turn {
    turn(vec![Call {
        id: id.into(),
        name: "get_weather".into(),
        args: json!({ "city": city }),
    }])
}

fn forecast_call(id: &str, args: Value) -> Turn {
    turn(vec![Call {
        id: id.into(),
        name: "Forecast".into(),
        args,
    }])
}

/// The reasoning this test attaches to a provider's answer.
const THINKING: &str = "The user wants the weather; call the tool.";
const SIGNATURE: &str = "sig-thinking-1";
const CALL_SIGNATURE: &str = "sig-call-1";

/// `turn` as a reasoning model of this format sends it (non-streamed), or plain when the
/// format carries no reasoning.
fn with_reasoning(w: &dyn Wire, turn: &Turn) -> Reply {
    let mut reply = w.reply(turn, false);
    let mut body: Value = serde_json::from_slice(&reply.chunks[0]).unwrap();
    match w.name() {
        "anthropic" => body["content"].as_array_mut().unwrap().insert(
            0,
            json!({ "type": "thinking", "thinking": THINKING, "signature": SIGNATURE }),
        ),
        "gemini" => {
            let parts = body["candidates"][0]["content"]["parts"]
                .as_array_mut()
                .unwrap();
            for part in parts.iter_mut() {
                if part.get("functionCall").is_some() {
                    part["thoughtSignature"] = json!(CALL_SIGNATURE);
                }
            }
            parts.insert(
                0,
                json!({ "text": THINKING, "thought": true, "thoughtSignature": SIGNATURE }),
            );
        }
        "openai-responses" => body["output"].as_array_mut().unwrap().insert(
            0,
            json!({ "type": "reasoning", "id": "rs_1",
                    "summary": [{ "type": "summary_text", "text": THINKING }],
                    "encrypted_content": SIGNATURE }),
        ),
        _ => return reply,
    }
    reply.chunks = vec![body.to_string().into()];
    reply
}

/// Two turns: the history of a run that ended through the final-answer tool, continued.
pub async fn continue_after_a_final_answer(w: &dyn Wire) {
    let server = Server::start(vec![
        with_reasoning(w, &weather_call("call_1", "Paris")),
        w.reply(
            &forecast_call(
                "call_2",
                json!({ "city": "Paris", "summary": "Clear, 18°C." }),
            ),
            false,
        ),
        w.reply(&weather_call("call_3", "Rome"), false),
        w.reply(
            &forecast_call("call_4", json!({ "city": "Rome", "summary": "Sunny." })),
            false,
        ),
    ])
    .await;
    // What the README shows.
    let agent = Weather::builder(w.model(&server.url())).build();
    let first = agent
        .run("Weather in Paris?", ())
        .await
        .unwrap_or_else(|e| panic!("[{}] {e}", w.name()));
    assert_eq!(first.output.city, "Paris");
    let second = agent
        .run(Input::with_history(first.messages, "And in Rome?"), ())
        .await
        .unwrap_or_else(|e| panic!("[{}] {e}", w.name()));
    assert_eq!(second.output.city, "Rome");

    let requests = server.requests();
    assert_eq!(requests.len(), 4, "[{}]", w.name());
    // Run 2's first request carries run 1's whole history.
    assert_valid_history(w, &requests[2].body, true, 2);
    assert_valid_history(w, &requests[3].body, true, 3);
}

/// Two turns: the history of a run that failed (the final answer stayed invalid) continued.
pub async fn continue_after_an_output_error(w: &dyn Wire) {
    let bad = json!({ "city": "Paris" });
    let server = Server::start(vec![
        with_reasoning(w, &weather_call("call_1", "Paris")),
        w.reply(&forecast_call("call_2", bad.clone()), false),
        w.reply(&forecast_call("call_3", bad), false),
        w.reply(
            &forecast_call("call_4", json!({ "city": "Paris", "summary": "Clear." })),
            false,
        ),
    ])
    .await;
    let agent = Weather::builder(w.model(&server.url()))
        .max_output_retries(1)
        .build();
    let err = agent.run("Weather in Paris?", ()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::OutputRetriesExhausted { .. }),
        "[{}] {err}",
        w.name()
    );
    let history = err.messages().to_vec();
    agent
        .run(Input::with_history(history, "Try again, briefly."), ())
        .await
        .unwrap_or_else(|e| panic!("[{}] {e}", w.name()));
    let requests = server.requests();
    assert_valid_history(w, &requests[3].body, true, 3);
}

/// Asserts the provider's rules on a request body whose history holds `calls` tool calls.
fn assert_valid_history(w: &dyn Wire, body: &Value, reasoning: bool, calls: usize) {
    let name = w.name();
    match name {
        "openai-chat" => openai_chat(body, calls),
        "anthropic" => anthropic(body, reasoning, calls),
        "gemini" => gemini(body, reasoning, calls),
        "openai-responses" => responses(body, reasoning, calls),
        other => panic!("no history rules for wire `{other}`"),
    }
}

/// Chat Completions: each assistant message's `tool_calls` are answered by `tool` messages
/// right after it, one per id; no `tool` message answers nothing.
fn openai_chat(body: &Value, calls: usize) {
    let messages = body["messages"].as_array().unwrap();
    let mut seen = 0;
    let mut i = 0;
    while i < messages.len() {
        let m = &messages[i];
        assert_ne!(
            m["role"], "tool",
            "a tool message answers no call: {body:#}"
        );
        i += 1;
        let Some(tool_calls) = m.get("tool_calls").and_then(Value::as_array) else {
            continue;
        };
        let mut ids: Vec<&str> = tool_calls
            .iter()
            .map(|c| c["id"].as_str().unwrap())
            .collect();
        seen += ids.len();
        while i < messages.len() && messages[i]["role"] == "tool" {
            let id = messages[i]["tool_call_id"].as_str().unwrap();
            let at = ids.iter().position(|x| *x == id);
            assert!(at.is_some(), "result for unknown call `{id}`: {body:#}");
            ids.remove(at.unwrap());
            i += 1;
        }
        assert!(ids.is_empty(), "unanswered calls {ids:?}: {body:#}");
    }
    assert_eq!(seen, calls, "{body:#}");
}

/// Messages: roles alternate starting with `user`; each `tool_use` is answered by a
/// `tool_result` at the start of the next (user) message; thinking blocks with their
/// signature stay first in the assistant message that used tools.
fn anthropic(body: &Value, reasoning: bool, calls: usize) {
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "user", "{body:#}");
    for pair in messages.windows(2) {
        assert_ne!(
            pair[0]["role"], pair[1]["role"],
            "roles alternate: {body:#}"
        );
    }
    let mut seen = 0;
    for (i, m) in messages.iter().enumerate() {
        if m["role"] != "assistant" {
            continue;
        }
        let blocks = m["content"].as_array().unwrap();
        let ids: Vec<&str> = blocks
            .iter()
            .filter(|b| b["type"] == "tool_use")
            .map(|b| b["id"].as_str().unwrap())
            .collect();
        if ids.is_empty() {
            continue;
        }
        seen += ids.len();
        let next = messages.get(i + 1).expect("a user turn answers the calls");
        let results: Vec<&str> = next["content"]
            .as_array()
            .unwrap()
            .iter()
            .take_while(|b| b["type"] == "tool_result")
            .map(|b| b["tool_use_id"].as_str().unwrap())
            .collect();
        let mut sorted = results.clone();
        sorted.sort();
        let mut expected = ids.clone();
        expected.sort();
        assert_eq!(
            sorted, expected,
            "tool results lead the next turn: {body:#}"
        );
    }
    assert_eq!(seen, calls, "{body:#}");
    if reasoning {
        let first_tool_turn = messages.iter().find(|m| m["role"] == "assistant").unwrap();
        assert_eq!(
            first_tool_turn["content"][0],
            json!({ "type": "thinking", "thinking": THINKING, "signature": SIGNATURE }),
            "the thinking block is kept: {body:#}"
        );
    }
}

/// generateContent: roles alternate starting with `user`; each turn's `functionCall`s are
/// answered by as many `functionResponse`s, same names in order, in the next (user) turn;
/// thought signatures stay on their parts.
fn gemini(body: &Value, reasoning: bool, calls: usize) {
    let contents = body["contents"].as_array().unwrap();
    assert_eq!(contents[0]["role"], "user", "{body:#}");
    for pair in contents.windows(2) {
        assert_ne!(
            pair[0]["role"], pair[1]["role"],
            "roles alternate: {body:#}"
        );
    }
    let mut seen = 0;
    for (i, c) in contents.iter().enumerate() {
        let parts = c["parts"].as_array().unwrap();
        let names: Vec<&str> = parts
            .iter()
            .filter_map(|p| p.get("functionCall"))
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        if names.is_empty() {
            continue;
        }
        seen += names.len();
        let next = contents.get(i + 1).expect("a user turn answers the calls");
        let answered: Vec<&str> = next["parts"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|p| p.get("functionResponse"))
            .map(|f| f["name"].as_str().unwrap())
            .collect();
        assert_eq!(answered, names, "every call answered, in order: {body:#}");
    }
    assert_eq!(seen, calls, "{body:#}");
    if reasoning {
        let first = contents.iter().find(|c| c["role"] == "model").unwrap();
        let parts = first["parts"].as_array().unwrap();
        assert!(
            parts
                .iter()
                .any(|p| p.get("functionCall").is_some() && p["thoughtSignature"] == CALL_SIGNATURE),
            "the function call keeps its thought signature: {body:#}"
        );
    }
}

/// Responses: every `function_call` has one `function_call_output` with its `call_id`, after
/// it; a reasoning item is sent back in place, before the call it led to.
fn responses(body: &Value, reasoning: bool, calls: usize) {
    let items = body["input"].as_array().unwrap();
    let mut seen = 0;
    for (i, item) in items.iter().enumerate() {
        if item["type"] == "function_call_output" {
            let id = &item["call_id"];
            assert!(
                items[..i]
                    .iter()
                    .any(|c| c["type"] == "function_call" && c["call_id"] == *id),
                "an output answers no earlier call: {body:#}"
            );
        }
        if item["type"] != "function_call" {
            continue;
        }
        seen += 1;
        let outputs = items[i + 1..]
            .iter()
            .filter(|o| o["type"] == "function_call_output" && o["call_id"] == item["call_id"])
            .count();
        assert_eq!(
            outputs, 1,
            "call {} answered once: {body:#}",
            item["call_id"]
        );
    }
    assert_eq!(seen, calls, "{body:#}");
    if reasoning {
        let at = items
            .iter()
            .position(|i| i["type"] == "reasoning")
            .expect("the reasoning item is kept");
        assert_eq!(items[at]["id"], "rs_1", "{body:#}");
        assert_eq!(items[at + 1]["type"], "function_call", "in place: {body:#}");
    }
}
