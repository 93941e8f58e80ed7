//! Agents as typed tools of other agents: model, usage, events, limits, context and errors,
//! for `run` and `stream`, against scripted models.

use std::sync::Arc;
use std::time::Duration;

use agentry::agent::{AgentEvent, Input, RunErrorKind};
use agentry::multi::{AgentInput, SubAgentOptions};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::json;

#[path = "multi_agent/context_and_input.rs"]
mod context_and_input;
#[path = "multi_agent/nesting.rs"]
mod nesting;

/// Search the web.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    format!("results for {query}: Rust 1.0 shipped in May 2015")
}

/// What the researcher found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Notes {
    /// One fact per entry.
    facts: Vec<String>,
}

/// Finds facts with web searches.
///
/// Search first, then answer with the facts you found.
#[agent(tools(search), output = Notes, max_turns = 4)]
struct Researcher;

/// You plan the work and delegate research.
#[agent(tools(Researcher))]
struct Planner;

fn used(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        requests: 1,
        ..Usage::default()
    }
}

/// The whole exchange on one shared model: planner, researcher (twice), planner.
fn shared_script() -> Vec<Turn> {
    vec![
        Turn::tool_call("researcher", json!({ "prompt": "When did Rust 1.0 ship?" }))
            .with_usage(used(100, 10)),
        Turn::tool_call("search", json!({ "query": "rust 1.0" })).with_usage(used(20, 2)),
        Turn::tool_call(
            "Notes",
            json!({ "facts": ["Rust 1.0 shipped in May 2015"] }),
        )
        .with_usage(used(30, 3)),
        Turn::text("Rust 1.0 shipped in May 2015.").with_usage(used(200, 20)),
    ]
}

#[tokio::test]
async fn a_sub_agent_runs_on_the_parent_model_and_its_usage_rolls_up() {
    let model = Arc::new(ScriptedModel::new(shared_script()));
    let run = Planner::builder(model.clone())
        .build()
        .run("When did Rust 1.0 ship?", ())
        .await
        .unwrap();
    assert_eq!(run.output, "Rust 1.0 shipped in May 2015.");
    model.assert_complete();

    // The planner offered the researcher as a tool with a typed `prompt`.
    let planner_request = &model.requests()[0];
    let tool = planner_request
        .tools
        .iter()
        .find(|t| t.name == "researcher")
        .expect("the researcher is offered as a tool");
    assert_eq!(tool.description, "Finds facts with web searches.");
    assert_eq!(tool.parameters["required"], json!(["prompt"]));

    // The researcher ran with its own instructions, the prompt as its input, its own tools.
    let researcher_request = &model.requests()[1];
    assert_eq!(
        researcher_request.messages[0],
        Message::system(
            "Finds facts with web searches.\n\nSearch first, then answer with the facts you found."
        )
    );
    assert_eq!(
        researcher_request.messages[1],
        Message::user("When did Rust 1.0 ship?")
    );
    assert!(researcher_request.tools.iter().any(|t| t.name == "search"));

    // Its typed output reached the planner's model as JSON, and the program as an artifact.
    let step = &run.steps[0];
    let output = step.result.as_ref().unwrap();
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&output.text_content()).unwrap(),
        json!({ "facts": ["Rust 1.0 shipped in May 2015"] })
    );
    assert_eq!(
        output.artifact::<Notes>(),
        Some(&Notes {
            facts: vec!["Rust 1.0 shipped in May 2015".into()]
        })
    );

    // Usage: in total, and per agent.
    assert_eq!(run.usage.requests, 4);
    assert_eq!(run.usage.input_tokens, 350);
    assert_eq!(run.usage.output_tokens, 35);
    let by_agent = run.usage_by_agent();
    assert_eq!(by_agent[&None].requests, 2);
    assert_eq!(by_agent[&None].input_tokens, 300);
    assert_eq!(by_agent[&Some("researcher")].requests, 2);
    assert_eq!(by_agent[&Some("researcher")].input_tokens, 50);
}

#[tokio::test]
async fn a_streamed_run_nests_the_sub_agent_events_under_its_name() {
    let model = Arc::new(ScriptedModel::new(shared_script()));
    let planner = Planner::builder(model.clone()).build();
    let mut stream = planner.stream("When did Rust 1.0 ship?", ());
    let mut seen: Vec<String> = Vec::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            AgentEvent::SubAgent(nested) => {
                assert_eq!(nested.call_id, "call_researcher");
                let (path, event) = nested.path();
                let what = match event {
                    AgentEvent::TurnStart { turn } => format!("turn {turn}"),
                    AgentEvent::ToolResult(step) => format!("tool {}", step.call.name),
                    AgentEvent::Usage { .. } => "usage".to_string(),
                    _ => continue,
                };
                seen.push(format!("{}: {what}", path.join("/")));
            }
            AgentEvent::TurnStart { turn } => seen.push(format!("planner: turn {turn}")),
            AgentEvent::ToolResult(step) => seen.push(format!("planner: tool {}", step.call.name)),
            AgentEvent::Done { .. } => done = Some(()),
            _ => {}
        }
    }
    assert_eq!(
        seen,
        [
            "planner: turn 1",
            "researcher: turn 1",
            "researcher: usage",
            "researcher: tool search",
            "researcher: turn 2",
            "researcher: usage",
            "planner: tool researcher",
            "planner: turn 2",
        ]
    );
    done.expect("the stream ends with Done");
    let result = stream.result().await.unwrap();
    assert_eq!(result.usage.requests, 4);
    assert_eq!(
        result.usage_by_agent()[&Some("researcher")].output_tokens,
        5
    );
}

#[tokio::test]
async fn a_sub_agent_can_have_its_own_model_and_turn_limit() {
    let parent = Arc::new(ScriptedModel::new([
        Turn::tool_call("researcher", json!({ "prompt": "Rust?" })),
        Turn::text("The researcher gave up."),
    ]));
    // Its own model, and one turn: not enough to search and answer.
    let own = Arc::new(ScriptedModel::new([Turn::tool_call(
        "search",
        json!({ "query": "rust" }),
    )]));
    let run = Planner::builder(parent.clone())
        .sub_agent::<Researcher>(SubAgentOptions::new().model(own.clone()).max_turns(1))
        .build()
        .run("Rust?", ())
        .await
        .unwrap();
    parent.assert_complete();
    own.assert_complete();
    assert_eq!(run.output, "The researcher gave up.");
    // The failure reached the planner's model as a tool error.
    let error = run.steps[0].result.as_ref().unwrap_err();
    let message = error.model_message();
    assert!(
        message.contains("the `researcher` agent stopped at a limit before answering (turn limit (1 model requests))"),
        "{message}"
    );
    let told = &parent.requests()[1].messages;
    assert!(matches!(told.last(), Some(Message::Tool(t)) if t.is_error));
    // The failed run's request still counts.
    assert_eq!(run.usage.requests, 3);
    assert_eq!(run.usage_by_agent()[&Some("researcher")].requests, 1);
}

#[tokio::test]
async fn a_sub_agent_spends_the_parent_token_budget() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("researcher", json!({ "prompt": "Rust?" })).with_usage(used(80, 10)),
        // The researcher starts with 10 tokens left and spends 20 on its first request.
        Turn::tool_call("search", json!({ "query": "rust" })).with_usage(used(15, 5)),
    ]));
    let error = Planner::builder(model.clone())
        .max_total_tokens(100)
        .build()
        .run("Rust?", ())
        .await
        .unwrap_err();
    model.assert_complete();
    // The researcher stopped at the budget it inherited; the planner then stopped at its own,
    // which counts the researcher's tokens.
    match error.kind() {
        RunErrorKind::LimitExceeded(agentry::agent::Limit::Tokens { max, used }) => {
            assert_eq!((*max, *used), (100, 110));
        }
        other => panic!("expected the token limit, got {other:?}"),
    }
    assert_eq!(error.partial().usage.total_tokens(), 110);
    let message = error.partial().steps[0]
        .result
        .as_ref()
        .unwrap_err()
        .model_message();
    assert!(
        message.contains("token budget (20 of 10 tokens used)"),
        "{message}"
    );
}

#[tokio::test]
async fn a_sub_agent_stops_at_the_parent_deadline() {
    let parent = Arc::new(ScriptedModel::new([
        Turn::tool_call("researcher", json!({ "prompt": "Rust?" })),
        Turn::text("never sent"),
    ]));
    // The researcher's model would take an hour.
    let slow = Arc::new(
        ScriptedModel::new([Turn::text("late"), Turn::text("never asked")])
            .with_delay(Duration::from_secs(3600)),
    );
    let error = Planner::builder(parent.clone())
        .max_execution_time(Duration::from_millis(300))
        .sub_agent::<Researcher>(SubAgentOptions::new().model(slow.clone()))
        .build()
        .run("Rust?", ())
        .await
        .unwrap_err();
    assert!(matches!(
        error.kind(),
        RunErrorKind::LimitExceeded(agentry::agent::Limit::Time { .. })
    ));
    assert_eq!(parent.request_count(), 1);
    assert_eq!(slow.request_count(), 1);
    // The researcher's one request was cut off at the deadline (the test would otherwise
    // wait an hour) and it asked nothing more.
    assert_eq!(slow.remaining(), 1);
}

#[tokio::test]
async fn a_tool_timeout_cancels_the_sub_agent() {
    let parent = Arc::new(ScriptedModel::new([
        Turn::tool_call("researcher", json!({ "prompt": "Rust?" })),
        Turn::text("Too slow."),
    ]));
    let slow = Arc::new(
        ScriptedModel::new([Turn::text("late"), Turn::text("never asked")])
            .with_delay(Duration::from_secs(3600)),
    );
    let run = Planner::builder(parent.clone())
        .tool_timeout(Duration::from_millis(200))
        .sub_agent::<Researcher>(SubAgentOptions::new().model(slow.clone()))
        .build()
        .run("Rust?", ())
        .await
        .unwrap();
    assert_eq!(run.output, "Too slow.");
    assert!(matches!(
        run.steps[0].result,
        Err(ToolCallError::TimedOut { .. })
    ));
    // The sub-agent's request was dropped mid-flight (the test would otherwise wait an
    // hour) and nothing more was asked.
    assert_eq!(slow.request_count(), 1);
    assert_eq!(slow.remaining(), 1);
}

#[tokio::test]
async fn a_failing_sub_agent_is_a_tool_error_within_the_parent_budget() {
    let parent = Arc::new(ScriptedModel::new([
        Turn::tool_call("researcher", json!({ "prompt": "Rust?" })),
        Turn::tool_call("researcher", json!({ "prompt": "Rust, again?" })),
    ]));
    let failing = Arc::new(ScriptedModel::new([
        Turn::error(agentry::model::ModelError::Incomplete("cut off".into())),
        Turn::error(agentry::model::ModelError::Incomplete("cut off".into())),
    ]));
    let error = Planner::builder(parent.clone())
        .max_tool_retries(1)
        .sub_agent::<Researcher>(SubAgentOptions::new().model(failing))
        .build()
        .run("Rust?", ())
        .await
        .unwrap_err();
    // The second failure in a row exceeds the planner's retry budget for the tool.
    assert!(
        matches!(error.kind(), RunErrorKind::ToolRetriesExhausted { .. }),
        "{:?}",
        error.kind()
    );
    let first = parent.requests()[1].messages.last().unwrap().text();
    assert!(
        first.contains("the `researcher` agent could not answer"),
        "{first}"
    );
}
