//! The same two runs over HTTP: a ReAct run and a native-tools run of `Adder`, each against
//! an OpenAI-compatible server (the SDK's `MockServer`) in another process, so the client's
//! instructions include what a user's program does for either protocol — the request's JSON,
//! the HTTP exchange, the answer's JSON — and not the server's.
//!
//! - `REACT_SERVE=1 <binary>` serves the model's part on a loopback port, prints
//!   `URL <base url>` and serves until its stdin closes;
//! - `REACT_URL=<base url> REACT_ONLY=native|react REACT_RUNS=N <binary>` makes N runs of one
//!   side against it (under callgrind: `benches/react_http.sh` differences two values of N).

use agentry::prelude::*;
use agentry::protocol::ToolProtocol;
use agentry::providers::openai::OpenAiModel;
use agentry::testing::{MockResponse, RecordedRequest};
use serde_json::Value;

use crate::Adder;
use crate::process_server::{messages, offers_tool, refuse};

/// The model's part for both protocols: a call of `add` for the question, the final answer
/// once the result is in. A request neither protocol would send gets a 400, so a client that
/// does the job wrong fails instead of being measured.
fn answer(request: &RecordedRequest) -> MockResponse {
    let native = offers_tool(request, "add");
    let Some(last) = messages(request).last() else {
        return refuse("the request has no messages");
    };
    match (native, last["role"].as_str()) {
        (true, Some("user")) => {
            MockResponse::tool_calls(vec![ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#)])
        }
        (true, Some("tool")) if text(last) == "5" => MockResponse::text("The sum is 5."),
        (false, Some("user")) if text(last).starts_with("Observation: 5") => {
            MockResponse::text("Thought: I now know the final answer.\nFinal Answer: The sum is 5.")
        }
        (false, Some("user")) if text(last) == "2 + 3?" => MockResponse::text(
            "Thought: I add them.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}",
        ),
        _ => refuse(&format!("unexpected last message {last}")),
    }
}

/// A message's text, whether its content is a string or a list of parts.
fn text(message: &Value) -> String {
    match &message["content"] {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// `REACT_SERVE`: serves until stdin closes.
pub fn serve() -> std::io::Result<()> {
    crate::process_server::serve(answer)
}

/// `REACT_URL`: `runs` runs of one side (`react` or `native`) against the server at `url`,
/// after one checked run of each.
pub fn client(url: &str, side: &str, runs: u32) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let model = || {
        OpenAiModel::builder("gpt-4o-mini")
            .base_url(url)
            .api_key("sk-bench")
            .build()
            .expect("a model for the bench server")
    };
    let native = Adder::builder(model()).build();
    let react = Adder::builder(model())
        .protocol(ToolProtocol::react())
        .build();
    for agent in [&native, &react] {
        let run = rt.block_on(agent.run("2 + 3?", ())).expect("a run");
        assert_eq!(run.output, "The sum is 5.");
        assert_eq!((run.steps.len(), run.usage.requests), (1, 2));
    }
    let agent = if side == "react" { &react } else { &native };
    rt.block_on(async {
        for _ in 0..runs {
            std::hint::black_box(agent.run("2 + 3?", ()).await.expect("a run"));
        }
    });
}
