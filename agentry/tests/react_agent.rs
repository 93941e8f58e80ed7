//! The ReAct protocol in the agent loop: the same typed tools, state, limits, review and
//! output parsing as native calls, over text only; `run` and `stream`, against scripted
//! text-only models and over real HTTP against a server that refuses `tools`.

use std::sync::Arc;

use agentry::agent::{Agent, AgentEvent, LimitPolicy, Outcome, RunErrorKind, StopReason};
use agentry::middleware::{Decision, DecisionKind::*, HumanInTheLoop};
use agentry::model::{ChatRequest, ModelError, ModelProfile};
use agentry::output::{StructuredSpec, TextOutput};
use agentry::prelude::*;
use agentry::protocol::ToolProtocol;
use agentry::testing::{MockResponse, MockServer, ScriptedModel, Turn};
use futures::StreamExt;

#[derive(Debug, Default)]
struct User {
    name: String,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
struct Trip {
    cities: Vec<String>,
}

/// Look up the weather in a city.
///
/// # Arguments
/// * `city` - The city.
#[tool]
fn get_weather(city: String, user: Context<User>, trip: State<Trip>) -> String {
    let c = city.clone();
    trip.update(move |t| t.cities.push(c));
    format!("{city}: sunny (asked by {})", user.name)
}

/// Convert an amount of euros.
///
/// # Arguments
/// * `amount` - How many euros.
/// * `to` - The target currency.
#[tool]
fn convert(amount: f64, to: String) -> String {
    format!("{:.2} {to}", amount * 1.1)
}

/// You plan trips.
#[agent(tools(get_weather, convert), context = User, state = Trip)]
struct Planner;

/// You plan trips, through ReAct whatever the model.
#[agent(tools(get_weather, convert), context = User, state = Trip, protocol = react)]
struct ReactPlanner;

fn text_only(turns: impl IntoIterator<Item = Turn>) -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::new(turns).with_profile(ModelProfile::text_only()))
}

fn ada() -> User {
    User { name: "Ada".into() }
}

fn user_texts(request: &ChatRequest) -> Vec<String> {
    request
        .messages
        .iter()
        .filter(|m| matches!(m, Message::User(_)))
        .map(Message::text)
        .collect()
}

const WEATHER: &str =
    "Thought: I need the weather first.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}";
const ANSWER: &str =
    "Thought: I now know the final answer.\nFinal Answer: Go to Paris, it is sunny.";

#[tokio::test]
async fn a_text_only_model_gets_react_and_runs_the_typed_tools() {
    let model = text_only([Turn::text(WEATHER), Turn::text(ANSWER)]);
    let agent: PlannerAgent = Planner::builder(model.clone()).build();
    assert!(matches!(agent.protocol(), ToolProtocol::React(_)));
    let run = agent.run("Where to?", ada()).await.unwrap();

    assert_eq!(run.output, "Go to Paris, it is sunny.");
    assert_eq!(run.stop_reason, StopReason::FinalAnswer);
    assert_eq!(run.state.cities, ["Paris"]);
    assert_eq!(run.steps.len(), 1);
    // The transcript keeps the native shape: a call, its result, the answer.
    let call = &run.steps[0].call;
    assert_eq!(
        (call.id.as_str(), call.name.as_str()),
        ("react_1", "get_weather")
    );
    assert_eq!(
        call.arguments, r#"{"city": "Paris"}"#,
        "the object as the model wrote it"
    );

    let steps = run.intermediate_steps();
    assert_eq!(steps.len(), 1);
    assert_eq!(steps[0].tool, "get_weather");
    assert_eq!(steps[0].log, "I need the weather first.");
    assert_eq!(steps[0].observation, "Paris: sunny (asked by Ada)");

    let requests = model.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(
            request.tools.is_empty(),
            "no tools field in a ReAct request"
        );
        assert_eq!(request.stop, ["\nObservation:"]);
        let Message::System { content } = &request.messages[0] else {
            panic!("the system prompt comes first: {:?}", request.messages[0])
        };
        assert!(content.starts_with("You plan trips."), "{content}");
        assert!(
            content.contains("get_weather: Look up the weather in a city.\n  Action Input: {\"city\": string (The city.)}"),
            "{content}"
        );
        assert!(content.contains("Action: the tool to use, one of [get_weather, convert]"));
    }
    // The step goes back as the model's own text and an observation.
    let second = &requests[1].messages;
    assert_eq!(second.len(), 4, "{second:#?}");
    assert_eq!(
        second[2].text(),
        "Thought: I need the weather first.\nAction: get_weather\nAction Input: {\"city\": \"Paris\"}"
    );
    assert_eq!(second[3].text(), "Observation: Paris: sunny (asked by Ada)");
}

#[tokio::test]
async fn the_protocol_is_chosen_per_agent_by_builder_or_attribute() {
    // A model with native tool calling stays native unless asked.
    let native: PlannerAgent = Planner::builder(ScriptedModel::new([])).build();
    assert_eq!(native.protocol(), &ToolProtocol::Native);
    let forced: PlannerAgent = Planner::builder(ScriptedModel::new([]))
        .protocol(ToolProtocol::react())
        .build();
    assert!(matches!(forced.protocol(), ToolProtocol::React(_)));
    let back: PlannerAgent = Planner::builder(text_only([]))
        .protocol(ToolProtocol::Native)
        .build();
    assert_eq!(back.protocol(), &ToolProtocol::Native);

    // `#[agent(protocol = react)]` on a model with native tools: the request is text.
    let model = Arc::new(ScriptedModel::new([
        Turn::text(WEATHER),
        Turn::text(ANSWER),
    ]));
    let agent: Agent<ReactPlanner, TextOutput, User, Trip> =
        ReactPlanner::builder(model.clone()).build();
    assert!(matches!(agent.protocol(), ToolProtocol::React(_)));
    let run = agent.run("Where to?", ada()).await.unwrap();
    assert_eq!(run.state.cities, ["Paris"]);
    assert!(model.requests().iter().all(|r| r.tools.is_empty()));
}

#[tokio::test]
async fn malformed_replies_get_a_precise_correction_within_the_retry_budget() {
    let both = "Thought: hm\nAction: get_weather\nFinal Answer: sunny";
    let neither = "I think Paris is nice.";
    let model = text_only([
        Turn::text(both),
        Turn::text(neither),
        Turn::text(WEATHER),
        Turn::text(ANSWER),
    ]);
    let agent: PlannerAgent = Planner::builder(model.clone())
        .max_output_retries(2)
        .build();
    let run = agent.run("Where to?", ada()).await.unwrap();
    assert_eq!(run.output, "Go to Paris, it is sunny.");
    assert_eq!(run.state.cities, ["Paris"]);

    let requests = model.requests();
    let second = &requests[1].messages;
    // The malformed reply goes back as written, then the correction.
    assert_eq!(second[2].text(), both);
    assert!(
        user_texts(&requests[1])[1].contains("both an `Action:` and a `Final Answer:`"),
        "{:?}",
        user_texts(&requests[1])
    );
    assert!(user_texts(&requests[2])[2].contains("neither `Action:` nor `Final Answer:`"));

    // Past the budget the run stops with a typed error.
    let model = text_only([Turn::text(neither), Turn::text(neither)]);
    let agent: PlannerAgent = Planner::builder(model).max_output_retries(1).build();
    let err = agent.run("Where to?", ada()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::OutputRetriesExhausted { attempts: 2, error } if error.contains("ReAct format")),
        "{err:?}"
    );
}

/// The tool result a native run sends for `call`.
async fn native_observation(call: ToolCall) -> String {
    let model = ScriptedModel::new([Turn::tool_calls([call]), Turn::text("ok")]);
    let agent: PlannerAgent = Planner::builder(model).build();
    let run = agent.run("Go", ada()).await.unwrap();
    run.intermediate_steps()[0].observation.clone()
}

#[tokio::test]
async fn unknown_tools_and_bad_arguments_get_the_messages_native_calls_get() {
    let model = text_only([
        Turn::text("Action: get_wether\nAction Input: {\"city\": \"Paris\"}"),
        Turn::text("Action: convert\nAction Input: {\"amount\": \"ten\", \"to\": \"USD\"}"),
        Turn::text("Action: convert\nAction Input: ten euros to dollars"),
        Turn::text("Action: convert\nAction Input: {\"amount\": 10, \"to\": \"USD\"}"),
        Turn::text("Final Answer: 11.00 USD"),
    ]);
    let agent: PlannerAgent = Planner::builder(model.clone()).build();
    let run = agent.run("Convert 10 EUR", ada()).await.unwrap();
    assert_eq!(run.output, "11.00 USD");
    let steps = run.intermediate_steps();
    assert_eq!(steps.len(), 3, "{steps:#?}");
    let unknown =
        native_observation(ToolCall::new("x", "get_wether", r#"{"city": "Paris"}"#)).await;
    assert_eq!(steps[0].observation, unknown);
    assert!(unknown.contains("get_weather"), "{unknown}");
    let bad = native_observation(ToolCall::new(
        "x",
        "convert",
        r#"{"amount": "ten", "to": "USD"}"#,
    ))
    .await;
    assert_eq!(steps[1].observation, bad);
    assert_eq!(steps[2].observation, "11.00 USD");
    // Plain text for a tool with two arguments is a format correction, not a call.
    let fourth = model.requests()[3].clone();
    assert!(
        user_texts(&fourth)
            .last()
            .unwrap()
            .contains("The Action Input for `convert` must be a JSON object"),
        "{:?}",
        user_texts(&fourth)
    );
}

/// A day plan.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Plan {
    /// The city.
    city: String,
    /// How many days.
    #[output(range(min = 1))]
    days: u32,
}

#[tokio::test]
async fn a_typed_final_answer_is_prompted_validated_and_re_asked() {
    let model = text_only([
        Turn::text(WEATHER),
        Turn::text("Final Answer: {\"city\": \"Paris\", \"days\": 0}"),
        Turn::text(
            "Thought: fix it\nFinal Answer: ```json\n{\"city\": \"Paris\", \"days\": 2}\n```",
        ),
    ]);
    let agent = Planner::builder(model.clone())
        .output(StructuredSpec::<Plan>::default())
        .build();
    let run = agent.run("Plan", ada()).await.unwrap();
    assert_eq!(
        run.output,
        Plan {
            city: "Paris".into(),
            days: 2
        }
    );
    let requests = model.requests();
    // Prompted, not a final-answer tool: the schema is in the system prompt.
    assert!(
        requests
            .iter()
            .all(|r| r.tools.is_empty() && r.response_format.is_none())
    );
    assert!(requests[0].messages[0].text().contains("\"days\""));
    assert!(user_texts(&requests[2]).last().unwrap().contains("days"));
}

#[tokio::test]
async fn a_streamed_react_run_streams_thought_call_and_answer() {
    let model = text_only([Turn::text(WEATHER), Turn::text(ANSWER)]);
    let agent: PlannerAgent = Planner::builder(model).build();
    let mut stream = agent.stream("Where to?", ada());
    let events: Vec<_> = stream.by_ref().collect().await;
    let events: Vec<AgentEvent<String, Trip>> = events.into_iter().map(Result::unwrap).collect();

    let mut thought = String::new();
    let mut answer = String::new();
    let mut order = Vec::new();
    for event in &events {
        match event {
            AgentEvent::ReasoningDelta { text } => thought.push_str(text),
            AgentEvent::TextDelta { text } => answer.push_str(text),
            AgentEvent::ToolCallStart { id, name, .. } => {
                order.push(format!("call {name} {id}"));
            }
            AgentEvent::ToolCallDelta { arguments, .. } => order.push(format!("args {arguments}")),
            AgentEvent::ToolResult(step) => order.push(format!("result {}", step.call.name)),
            _ => {}
        }
    }
    assert_eq!(
        thought,
        "I need the weather first.I now know the final answer."
    );
    assert_eq!(answer, "Go to Paris, it is sunny.");
    assert_eq!(
        order,
        [
            "call get_weather react_1",
            "args {\"city\": \"Paris\"}",
            "result get_weather"
        ]
    );
    let Some(AgentEvent::Done { .. }) = events.last() else {
        panic!("{:?}", events.last())
    };
    let run = stream.result().await.unwrap();
    assert_eq!(run.output, "Go to Paris, it is sunny.");
    assert_eq!(run.state.cities, ["Paris"]);
}

#[tokio::test]
async fn a_bare_input_fills_the_one_string_argument() {
    let model = text_only([
        Turn::text("Action: get_weather\nAction Input: Rome"),
        Turn::text("Final Answer: Rome"),
    ]);
    let agent: PlannerAgent = Planner::builder(model).build();
    let run = agent.run("Where?", ada()).await.unwrap();
    assert_eq!(run.state.cities, ["Rome"]);
    assert_eq!(run.steps[0].call.arguments, r#"{"city":"Rome"}"#);
}

#[tokio::test]
async fn at_the_turn_limit_the_last_request_has_no_tools_and_plain_text_is_the_answer() {
    let model = text_only([Turn::text(WEATHER), Turn::text("Paris, probably.")]);
    let agent: PlannerAgent = Planner::builder(model.clone())
        .max_turns(1)
        .on_limit(LimitPolicy::FinalAnswer)
        .build();
    let run = agent.run("Where to?", ada()).await.unwrap();
    assert_eq!(run.output, "Paris, probably.");
    assert!(matches!(run.stop_reason, StopReason::LimitReached { .. }));
    let last = model.requests().pop().unwrap();
    assert!(!last.messages[0].text().contains("Action Input:"));
    // The observation and the limit's request reach the model as one user message.
    let texts = user_texts(&last);
    assert!(
        texts[1].starts_with("Observation: Paris: sunny"),
        "{texts:?}"
    );
    assert!(texts[1].contains("give your final answer now"), "{texts:?}");
}

#[tokio::test]
async fn a_reviewed_tool_pauses_and_resumes_under_react() {
    let model = text_only([Turn::text(WEATHER), Turn::text(ANSWER)]);
    let agent: PlannerAgent = Planner::builder(model)
        .middleware(HumanInTheLoop::new().review("get_weather", Approve | Reject))
        .build();
    let outcome = agent
        .run_or_pause_with_state("Where to?", ada(), Trip::default())
        .await
        .unwrap();
    let Outcome::Paused(pause) = outcome else {
        panic!("expected a pause")
    };
    assert_eq!(pause.calls[0].call.name, "get_weather");
    let pending_id = pause.calls[0].call.id.clone();
    let outcome = agent
        .resume(pause, [(pending_id, Decision::Approve)], ada())
        .await
        .unwrap();
    let Outcome::Finished(run) = outcome else {
        panic!("expected the end")
    };
    assert_eq!(run.state.cities, ["Paris"]);
    assert_eq!(run.output, "Go to Paris, it is sunny.");
}

#[tokio::test]
async fn end_to_end_over_http_against_a_server_that_refuses_tools() {
    let server =
        MockServer::with_script([MockResponse::text(WEATHER), MockResponse::text(ANSWER)]).await;
    server.refuse_tools();
    let model = server
        .openai_builder("gemma2")
        .profile(ModelProfile::text_only())
        .build()
        .unwrap();
    let agent: PlannerAgent = Planner::builder(model).build();
    let run = agent.run("Where to?", ada()).await.unwrap();
    assert_eq!(run.output, "Go to Paris, it is sunny.");
    assert_eq!(run.state.cities, ["Paris"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        assert!(request.body.get("tools").is_none(), "{}", request.body);
        assert_eq!(request.body["stop"], serde_json::json!(["\nObservation:"]));
    }
    let messages = requests[1].body["messages"].as_array().unwrap();
    let roles: Vec<&str> = messages
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["system", "user", "assistant", "user"]);

    // The same server refuses the native protocol: the test above really ran without tools.
    server.push(MockResponse::text(ANSWER));
    let model = server.openai_builder("gemma2").build().unwrap();
    let native: PlannerAgent = Planner::builder(model)
        .protocol(ToolProtocol::Native)
        .build();
    let err = native.run("Where to?", ada()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Model(ModelError::InvalidRequest { param: Some(p), .. }) if p == "tools"),
        "{err:?}"
    );
}

#[tokio::test]
async fn end_to_end_streaming_over_http() {
    let server = MockServer::with_script([
        MockResponse::text(WEATHER).split_every(7),
        MockResponse::text(ANSWER).split_every(5),
    ])
    .await;
    server.refuse_tools();
    let model = server
        .openai_builder("gemma2")
        .profile(ModelProfile::text_only())
        .build()
        .unwrap();
    let agent: PlannerAgent = Planner::builder(model).build();
    let mut stream = agent.stream("Where to?", ada());
    let mut answer = String::new();
    let mut calls = 0;
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            AgentEvent::TextDelta { text } => answer.push_str(&text),
            AgentEvent::ToolCallStart { .. } => calls += 1,
            AgentEvent::Done { .. } => done = Some(()),
            _ => {}
        }
    }
    assert_eq!(answer, "Go to Paris, it is sunny.");
    assert_eq!(calls, 1);
    assert!(done.is_some());
    assert_eq!(stream.result().await.unwrap().state.cities, ["Paris"]);
}
