//! The agent loop against scripted models: every path of the loop, with a hand-written
//! `Toolset` (what `#[agent]` generates) so these tests do not depend on the macro.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use agentry::agent::{
    Agent, AgentBuilder, AgentEvent, FnTool, Input, Limit, LimitPolicy, RunErrorKind, StopReason,
    ToolErrorPolicy, Toolset,
};
use agentry::model::{ChatRequest, ModelError};
use agentry::prelude::*;
use agentry::testing::{FunctionModel, ScriptedModel, Turn};
use agentry::tool::{DefinitionRef, parse_arguments};
use agentry::{ToolCallError, ToolResultMessage};
use futures::StreamExt;
use serde_json::json;

#[path = "agent_loop/limits.rs"]
mod limits;
#[path = "agent_loop/streams_and_batches.rs"]
mod streams_and_batches;
#[path = "agent_loop/tool_errors.rs"]
mod tool_errors;

#[derive(Debug, Default)]
struct User {
    name: String,
    in_flight: AtomicUsize,
    max_in_flight: AtomicUsize,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Trip {
    cities: Vec<String>,
}

/// Look up the weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
async fn get_weather(
    city: String,
    user: Context<User>,
    trip: State<Trip>,
) -> Result<String, String> {
    if city == "Atlantis" {
        return Err(format!("no station in {city}"));
    }
    // Observe how many calls run at once.
    let now = user.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    user.max_in_flight.fetch_max(now, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(20)).await;
    user.in_flight.fetch_sub(1, Ordering::SeqCst);
    let seen = trip.cities.len();
    let c = city.clone();
    trip.update(move |t| t.cities.push(c));
    Ok(format!(
        "{city}: sunny (for {}, {seen} cities before)",
        user.name
    ))
}

/// Always panics.
#[tool]
fn explode() -> String {
    panic!("the tool blew up")
}

/// Book the trip; ends the run.
///
/// # Arguments
/// * `city` - Where.
#[tool(return_direct)]
fn book(city: String, writer: StreamWriter) -> String {
    writer.write(json!({ "progress": "booking", "city": city }));
    format!("Booked {city}")
}

/// Write the diary; runs alone.
///
/// # Arguments
/// * `entry` - The text.
#[tool(sequential)]
fn diary(entry: String, trip: State<Trip>) -> String {
    let entry_for_state = entry.clone();
    trip.update(move |t| t.cities.push(format!("diary:{entry_for_state}")));
    format!("noted after {} cities", trip.cities.len())
}

/// What `#[agent(tools(get_weather, explode, book, diary), context = User, state = Trip)]`
/// generates, written by hand.
struct Tools;

enum Call {
    GetWeather(<get_weather as Tool>::Args),
    Explode(<explode as Tool>::Args),
    Book(<book as Tool>::Args),
    Diary(<diary as Tool>::Args),
}

impl Toolset<User, Trip> for Tools {
    type Call = Call;
    type Event = serde_json::Value;

    fn definitions(&self) -> Vec<DefinitionRef> {
        vec![
            get_weather::definition().into(),
            explode::definition().into(),
            book::definition().into(),
            diary::definition().into(),
        ]
    }

    fn parse(&self, call: &ToolCall) -> Option<Result<Call, ToolCallError>> {
        fn p<T: Tool>(call: &ToolCall) -> Result<T::Args, ToolCallError> {
            parse_arguments::<T::Args>(T::NAME, &call.arguments, T::definition().strict)
        }
        Some(match call.name.as_str() {
            <get_weather as Tool>::NAME => p::<get_weather>(call).map(Call::GetWeather),
            <explode as Tool>::NAME => p::<explode>(call).map(Call::Explode),
            <book as Tool>::NAME => p::<book>(call).map(Call::Book),
            <diary as Tool>::NAME => p::<diary>(call).map(Call::Diary),
            _ => return None,
        })
    }

    fn is_sequential(&self, call: &Call) -> bool {
        matches!(call, Call::Diary(_))
    }

    fn is_return_direct(&self, call: &Call) -> bool {
        matches!(call, Call::Book(_))
    }

    async fn call(
        &self,
        call: Call,
        rt: &ToolRuntime<User, Trip>,
    ) -> Result<ToolOutput, ToolCallError> {
        match call {
            Call::GetWeather(a) => get_weather {}.call(a, rt).await,
            Call::Explode(a) => explode {}.call(a, rt).await,
            Call::Book(a) => book {}.call(a, rt).await,
            Call::Diary(a) => diary {}.call(a, rt).await,
        }
    }
}

type TestAgent = Agent<Tools, agentry::output::TextOutput, User, Trip>;

fn agent(
    model: Arc<ScriptedModel>,
) -> AgentBuilder<Tools, agentry::output::TextOutput, User, Trip> {
    AgentBuilder::new(model, Tools).instructions("You plan trips.")
}

fn user() -> User {
    User {
        name: "Ada".into(),
        ..User::default()
    }
}

fn weather(id: &str, city: &str) -> ToolCall {
    ToolCall::new(id, "get_weather", json!({ "city": city }).to_string())
}

fn tool_results(messages: &[Message]) -> Vec<&ToolResultMessage> {
    messages
        .iter()
        .filter_map(|m| {
            if let Message::Tool(t) = m {
                Some(t)
            } else {
                None
            }
        })
        .collect()
}

#[tokio::test]
async fn a_full_run_returns_output_state_messages_usage_and_steps() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("get_weather", json!({ "city": "Paris" })).with_usage(Usage {
            input_tokens: 10,
            output_tokens: 3,
            ..Usage::default()
        }),
        Turn::text("Go to Paris.").with_usage(Usage {
            input_tokens: 20,
            output_tokens: 4,
            ..Usage::default()
        }),
    ]));
    let agent: TestAgent = agent(model.clone()).build();
    let run = agent.run("Where to?", user()).await.unwrap();

    assert_eq!(run.output, "Go to Paris.");
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    assert_eq!(
        run.state,
        Trip {
            cities: vec!["Paris".into()]
        }
    );
    assert_eq!(run.usage.input_tokens, 30);
    assert_eq!(run.usage.requests, 2);
    assert_eq!(
        run.request_usage
            .iter()
            .map(|r| r.usage.output_tokens)
            .collect::<Vec<_>>(),
        [3, 4]
    );
    assert_eq!(run.steps.len(), 1);
    assert_eq!(run.steps[0].call.name, "get_weather");
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "Paris: sunny (for Ada, 0 cities before)"
    );
    // system, user, assistant (call), tool, assistant (answer)
    assert_eq!(run.messages.len(), 5);
    assert_eq!(run.messages[0], Message::system("You plan trips."));
    model.assert_complete();

    // The second request carried the tool result after its call, and the tool definitions.
    let second = &model.requests()[1];
    assert_eq!(
        second
            .tools
            .iter()
            .map(|d| d.name.as_str())
            .collect::<Vec<_>>(),
        ["get_weather", "explode", "book", "diary"]
    );
    let Message::Tool(result) = &second.messages[3] else {
        panic!("expected a tool result")
    };
    assert_eq!(result.call_id, "call_get_weather");
    assert!(!result.is_error);
}

#[tokio::test]
async fn parallel_calls_run_concurrently_up_to_the_cap_and_results_keep_model_order() {
    let calls = || {
        Turn::tool_calls(
            ["Paris", "Rome", "Oslo", "Lima"]
                .iter()
                .enumerate()
                .map(|(i, c)| weather(&format!("c{i}"), c)),
        )
    };
    for (cap, expected_max) in [(8, 4), (2, 2), (1, 1)] {
        let model = Arc::new(ScriptedModel::new([calls(), Turn::text("ok")]));
        let agent: TestAgent = agent(model).max_parallel_tools(cap).build();
        let ctx = Arc::new(user());
        let run = agent.run("Weather?", Arc::clone(&ctx)).await.unwrap();
        assert_eq!(
            ctx.max_in_flight.load(Ordering::SeqCst),
            expected_max,
            "cap {cap}"
        );
        let ids: Vec<&str> = tool_results(&run.messages)
            .iter()
            .map(|r| r.call_id.as_str())
            .collect();
        assert_eq!(ids, ["c0", "c1", "c2", "c3"]);
        // Every call saw the same snapshot; updates applied in the model's order.
        assert_eq!(run.state.cities, ["Paris", "Rome", "Oslo", "Lima"]);
        assert!(run.steps.iter().all(|s| {
            s.result
                .as_ref()
                .unwrap()
                .text_content()
                .ends_with("0 cities before)")
        }));
    }
}

#[tokio::test]
async fn a_sequential_tool_runs_alone_and_sees_the_updates_before_it() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            weather("a", "Paris"),
            weather("b", "Rome"),
            ToolCall::new("d", "diary", r#"{"entry":"day one"}"#),
            weather("c", "Oslo"),
        ]),
        Turn::text("ok"),
    ]));
    let agent: TestAgent = agent(model).build();
    let ctx = Arc::new(user());
    let run = agent.run("Plan", Arc::clone(&ctx)).await.unwrap();
    assert_eq!(run.state.cities, ["Paris", "Rome", "diary:day one", "Oslo"]);
    assert_eq!(
        run.steps[2].result.as_ref().unwrap().text_content(),
        "noted after 2 cities"
    );
    assert_eq!(
        run.steps[3].result.as_ref().unwrap().text_content(),
        "Oslo: sunny (for Ada, 3 cities before)"
    );
    assert_eq!(ctx.max_in_flight.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_return_direct_tool_ends_the_run_and_later_calls_are_answered() {
    let model = Arc::new(ScriptedModel::new([Turn::tool_calls([
        ToolCall::new("b", "book", r#"{"city":"Rome"}"#),
        ToolCall::new("d", "diary", r#"{"entry":"never"}"#),
    ])]));
    let agent: TestAgent = agent(model.clone()).build();
    let run = agent.run("Book Rome", user()).await.unwrap();
    assert_eq!(run.output, "Booked Rome");
    assert_eq!(
        run.stop_reason,
        StopReason::ReturnDirect {
            tool: "book".into()
        }
    );
    let results = tool_results(&run.messages);
    assert_eq!(results.len(), 2, "each call has a result");
    assert!(
        results[1].is_error
            && Message::Tool(results[1].clone())
                .text()
                .starts_with("Not run")
    );
    assert_eq!(run.steps.len(), 1);
    model.assert_complete();
}

#[tokio::test]
async fn prior_messages_continue_a_conversation_after_a_reload() {
    let model = Arc::new(ScriptedModel::new([
        Turn::text("Hello Ada."),
        Turn::text("You said hi."),
    ]));
    let agent: TestAgent = agent(model.clone()).build();
    let first = agent.run("hi", user()).await.unwrap();
    let saved = serde_json::to_string(&first.messages).unwrap();
    let history: Vec<Message> = serde_json::from_str(&saved).unwrap();
    let second = agent
        .run(Input::with_history(history, "What did I say?"), user())
        .await
        .unwrap();
    assert_eq!(second.output, "You said hi.");
    let texts: Vec<String> = model.requests()[1]
        .messages
        .iter()
        .map(Message::text)
        .collect();
    assert_eq!(
        texts,
        ["You plan trips.", "hi", "Hello Ada.", "What did I say?"]
    );
}

#[tokio::test]
async fn dynamic_instructions_see_the_current_state() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([weather("c", "Paris")]),
        Turn::text("ok"),
    ]));
    let agent: TestAgent = agent(model.clone())
        .dynamic_instructions(|user: &User, trip: &Trip| {
            format!("Help {}; visited: {:?}", user.name, trip.cities)
        })
        .build();
    agent.run("Go", user()).await.unwrap();
    let systems: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.messages[0].text())
        .collect();
    assert_eq!(
        systems,
        [
            r#"Help Ada; visited: []"#,
            r#"Help Ada; visited: ["Paris"]"#
        ]
    );
}

#[tokio::test]
async fn dynamic_tools_run_beside_static_ones() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("e", "echo", r#"{"text":"hey"}"#),
            weather("w", "Paris"),
        ]),
        Turn::text("ok"),
    ]));
    let echo = FnTool::new(
        agentry::ToolDefinition::new(
            "echo",
            "Echo.",
            json!({ "type": "object", "properties": { "text": { "type": "string" } } }),
            false,
        ),
        |args: serde_json::Value, rt: &ToolRuntime<User, Trip>| {
            let out = format!(
                "{} says {}",
                rt.context().name,
                args["text"].as_str().unwrap_or("?")
            );
            async move { Ok(ToolOutput::text(out)) }
        },
    );
    let agent: TestAgent = agent(model.clone()).dyn_tool(echo).build();
    let run = agent.run("Go", user()).await.unwrap();
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "Ada says hey"
    );
    assert_eq!(model.requests()[0].tools.last().unwrap().name, "echo");
}
