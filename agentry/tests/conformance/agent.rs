//! A multi-turn agent run with parallel tool calls, unchanged on every wire format: the
//! model calls two tools at once, the runtime runs them and sends the results back in the
//! provider's format, and the model answers.

use agentry::agent::StopReason;
use agentry::{agent, tool};
use futures::StreamExt;
use serde_json::json;

use super::server::Server;
use super::wire::{Call, Finish, Turn, TurnUsage, Wire};

/// Current weather for a city.
///
/// # Arguments
/// * `city` - City name.
#[tool]
fn get_weather(city: String) -> String {
    format!("{city}: 18°C, clear")
}

/// Local time in a city.
///
/// # Arguments
/// * `city` - City name.
/// * `format` - `12h` or `24h`.
#[tool]
fn local_time(city: String, format: Option<String>) -> String {
    match format.as_deref() {
        Some("12h") => format!("{city}: 2:05 pm"),
        _ => format!("{city}: 14:05"),
    }
}

/// You answer travel questions. Use the tools.
#[agent(tools(get_weather, local_time))]
struct Concierge;

fn script() -> (Turn, Turn) {
    let calls = Turn {
        text: None,
        calls: vec![
            Call {
                id: "call_paris".into(),
                name: "get_weather".into(),
                args: json!({ "city": "Paris" }),
            },
            Call {
                id: "call_rome".into(),
                name: "local_time".into(),
                args: json!({ "city": "Rome", "format": "24h" }),
            },
        ],
        usage: TurnUsage {
            input: 80,
            cached: 0,
            output: 20,
        },
        finish: Finish::ToolCalls,
    };
    let answer = Turn {
        text: Some("Paris is 18°C and clear; it is 14:05 in Rome.".into()),
        calls: vec![],
        usage: TurnUsage {
            input: 140,
            cached: 64,
            output: 16,
        },
        finish: Finish::Stop,
    };
    (calls, answer)
}

fn check_second_request(w: &dyn Wire, server: &Server) {
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "[{}] two model requests", w.name());
    let (calls, results) = w.sent_calls_and_results(&requests[1].body);
    let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["get_weather", "local_time"], "[{}]", w.name());
    let outputs: Vec<&str> = results.iter().map(|r| r.output.as_str()).collect();
    assert_eq!(
        outputs,
        ["Paris: 18°C, clear", "Rome: 14:05"],
        "[{}] results in call order",
        w.name()
    );
}

pub async fn agent_run(w: &dyn Wire) {
    let (calls, answer) = script();
    let server = Server::start(vec![w.reply(&calls, false), w.reply(&answer, false)]).await;
    let run = Concierge::builder(w.model(&server.url()))
        .max_turns(4)
        .build()
        .run("Weather in Paris and the time in Rome?", ())
        .await
        .unwrap_or_else(|e| panic!("[{}] {e}", w.name()));
    assert_eq!(
        run.output,
        "Paris is 18°C and clear; it is 14:05 in Rome.",
        "[{}]",
        w.name()
    );
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    assert_eq!(run.steps.len(), 2, "[{}] both calls ran", w.name());
    assert!(
        run.steps.iter().all(|s| s.result.is_ok()),
        "[{}] {:?}",
        w.name(),
        run.steps
    );
    assert_eq!(run.usage.requests, 2);
    assert_eq!(run.usage.input_tokens, 220, "[{}]", w.name());
    assert_eq!(run.usage.cached_input_tokens, 64, "[{}]", w.name());
    assert_eq!(run.usage.output_tokens, 36, "[{}]", w.name());
    check_second_request(w, &server);
}

pub async fn agent_stream(w: &dyn Wire) {
    let (calls, answer) = script();
    let server = Server::start(vec![w.reply(&calls, true), w.reply(&answer, true)]).await;
    let agent = Concierge::builder(w.model(&server.url()))
        .max_turns(4)
        .build();
    let mut events = agent.stream("Weather in Paris and the time in Rome?", ());
    let mut text = String::new();
    let mut tool_results = 0;
    while let Some(event) = events.next().await {
        match event.unwrap_or_else(|e| panic!("[{}] {e}", w.name())) {
            agentry::agent::AgentEvent::TextDelta { text: t } => text.push_str(&t),
            agentry::agent::AgentEvent::ToolResult(_) => tool_results += 1,
            _ => {}
        }
    }
    assert_eq!(
        text,
        "Paris is 18°C and clear; it is 14:05 in Rome.",
        "[{}]",
        w.name()
    );
    assert_eq!(tool_results, 2, "[{}]", w.name());
    check_second_request(w, &server);
}
