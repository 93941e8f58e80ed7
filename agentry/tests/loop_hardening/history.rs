//! Every history a run returns is valid input for the next run: each tool call of an
//! assistant message is answered by a tool result right after it, however the run ended.

use agentry::agent::{Input, LimitPolicy, RunErrorKind, StopReason};
use agentry::output::{OutputMode, StructuredSpec};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// A city's weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn weather(city: String) -> String {
    format!("{city}: sunny")
}

/// Books a room and ends the run with the booking.
///
/// # Arguments
/// * `city` - The city.
#[tool(return_direct)]
fn book(city: String) -> String {
    format!("Booked in {city}")
}

#[agent(tools(weather, book))]
struct Planner;

/// A forecast.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Forecast {
    /// The city.
    city: String,
    /// Degrees.
    celsius: i32,
}

/// Asserts that every tool call is answered by the tool results right after its message.
pub fn assert_every_call_answered(messages: &[Message]) {
    for (i, message) in messages.iter().enumerate() {
        let Message::Assistant(answer) = message else {
            continue;
        };
        let results: Vec<&str> = messages[i + 1..]
            .iter()
            .map_while(|m| match m {
                Message::Tool(t) => Some(t.call_id.as_str()),
                _ => None,
            })
            .collect();
        for call in &answer.tool_calls {
            let n = results.iter().filter(|id| **id == call.id).count();
            assert_eq!(
                n, 1,
                "call `{}` ({}) answered {n} times in {messages:#?}",
                call.id, call.name
            );
        }
    }
}

/// Runs a second turn on `history` and checks the request it sends.
async fn continue_with(history: Vec<Message>) {
    assert_every_call_answered(&history);
    let model = std::sync::Arc::new(ScriptedModel::new([Turn::text("and so on")]));
    let run = Planner::builder(model.clone())
        .build()
        .run(Input::with_history(history, "And tomorrow?"), ())
        .await
        .unwrap();
    assert_eq!(run.output, "and so on");
    assert_every_call_answered(&model.requests()[0].messages);
}

fn forecast_spec() -> StructuredSpec<Forecast> {
    StructuredSpec::new(OutputMode::Tool)
}

#[tokio::test]
async fn a_final_answer_through_the_output_tool_leaves_no_call_unanswered() {
    let model = ScriptedModel::new([
        Turn::tool_call("weather", json!({ "city": "Oslo" })),
        Turn::tool_call("Forecast", json!({ "city": "Oslo", "celsius": 4 })),
    ]);
    let run = Planner::builder(model)
        .output(forecast_spec())
        .build()
        .run("Oslo?", ())
        .await
        .unwrap();
    assert_eq!(run.output.celsius, 4);
    let Some(Message::Tool(last)) = run.messages.last() else {
        panic!("the output call is answered: {:#?}", run.messages);
    };
    assert_eq!(last.name, "Forecast");
    assert!(!last.is_error);
    continue_with(run.messages.into_vec()).await;
}

#[tokio::test]
async fn an_output_call_beside_other_calls_leaves_none_unanswered() {
    let model = ScriptedModel::new([Turn::tool_calls([
        ToolCall::new("w", "weather", r#"{"city":"Oslo"}"#),
        ToolCall::new("f", "Forecast", r#"{"city":"Oslo","celsius":4}"#),
    ])]);
    let run = Planner::builder(model)
        .output(forecast_spec())
        .build()
        .run("Oslo?", ())
        .await
        .unwrap();
    continue_with(run.messages.into_vec()).await;
}

#[tokio::test]
async fn an_exhausted_output_retry_budget_leaves_no_call_unanswered() {
    let model = ScriptedModel::new([
        Turn::tool_call("Forecast", json!({ "city": "Oslo" })),
        Turn::tool_call("Forecast", json!({ "city": "Oslo" })),
    ]);
    let err = Planner::builder(model)
        .output(forecast_spec())
        .max_output_retries(1)
        .build()
        .run("Oslo?", ())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::OutputRetriesExhausted { .. }),
        "{err:?}"
    );
    continue_with(err.messages().to_vec()).await;
}

#[tokio::test]
async fn tool_calls_in_the_final_request_of_a_limit_leave_none_unanswered() {
    let model = ScriptedModel::new([
        Turn::tool_call("weather", json!({ "city": "Oslo" })),
        Turn::tool_call("weather", json!({ "city": "Bergen" })),
    ]);
    let err = Planner::builder(model)
        .max_turns(1)
        .on_limit(LimitPolicy::FinalAnswer)
        .build()
        .run("Oslo?", ())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::LimitExceeded(_)),
        "{err:?}"
    );
    continue_with(err.messages().to_vec()).await;
}

#[tokio::test]
async fn the_turn_limit_leaves_no_call_unanswered() {
    let model = ScriptedModel::new([Turn::tool_call("weather", json!({ "city": "Oslo" }))]);
    let err = Planner::builder(model)
        .max_turns(1)
        .build()
        .run("Oslo?", ())
        .await
        .unwrap_err();
    continue_with(err.messages().to_vec()).await;
}

#[tokio::test]
async fn return_direct_leaves_no_call_unanswered() {
    let model = ScriptedModel::new([Turn::tool_calls([
        ToolCall::new("b", "book", r#"{"city":"Oslo"}"#),
        ToolCall::new("w", "weather", r#"{"city":"Oslo"}"#),
    ])]);
    let run = Planner::builder(model)
        .build()
        .run("Book Oslo", ())
        .await
        .unwrap();
    assert_eq!(
        run.stop_reason,
        StopReason::ReturnDirect {
            tool: "book".into()
        }
    );
    continue_with(run.messages.into_vec()).await;
}

#[tokio::test]
async fn a_given_history_with_an_unanswered_call_is_repaired_before_the_request() {
    let history = vec![
        Message::user("Oslo?"),
        Message::assistant_tool_calls(vec![ToolCall::new("x", "weather", r#"{"city":"Oslo"}"#)]),
    ];
    let model = std::sync::Arc::new(ScriptedModel::new([Turn::text("ok")]));
    Planner::builder(model.clone())
        .build()
        .run(Input::with_history(history, "Well?"), ())
        .await
        .unwrap();
    assert_every_call_answered(&model.requests()[0].messages);
}
