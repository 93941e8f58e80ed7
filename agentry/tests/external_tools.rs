//! External tools: offered to the model like any tool, run by the caller. A call pauses the
//! run (after the answer's other calls ran) with typed arguments; the caller supplies the
//! result (checked against the tool's result type) and resumes. Typed (`#[tool(external)]`)
//! and untyped (`ExternalTool`), through `run_or_pause`, streams and threads.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::{AgentEvent, ExternalTool, Outcome, Pause, ResumeError, RunErrorKind};
use agentry::middleware::Decision;
use agentry::persist::{Checkpointer, InMemoryCheckpointer};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Precision {
    City,
    Street,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Location {
    lat: f64,
    lon: f64,
}

/// The user's location, from their browser.
///
/// # Arguments
/// * `precision` - How precise.
#[tool(external)]
fn get_location(precision: Precision) -> Location;

#[derive(Debug, Default)]
struct Counter {
    weather: AtomicUsize,
}

/// The weather where the user is.
///
/// # Arguments
/// * `city` - The city.
#[tool]
async fn weather(city: String, counter: Context<Counter>) -> String {
    counter.weather.fetch_add(1, Ordering::SeqCst);
    format!("{city}: sunny")
}

/// You help with the weather.
#[agent(tools(get_location, weather), context = Counter)]
struct Helper;

fn model() -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new(
                "g1",
                "get_location",
                json!({"precision": "city"}).to_string(),
            ),
            ToolCall::new("w1", "weather", json!({"city": "Paris"}).to_string()),
        ]),
        Turn::text("It is sunny where you are."),
    ]))
}

fn paused<T: std::fmt::Debug, S>(outcome: Outcome<T, S>) -> Pause<S> {
    match outcome {
        Outcome::Paused(pause) => *pause,
        Outcome::Finished(run) => panic!("expected a pause, got {:?}", run.output),
    }
}

#[tokio::test]
async fn the_model_sees_an_external_tool_like_any_other() {
    let definitions: Vec<String> = Helper::builder(model())
        .build()
        .tool_definitions()
        .iter()
        .map(|d| d.name.clone())
        .collect();
    assert_eq!(definitions, ["get_location", "weather"]);
    let definition = <get_location as Tool>::definition();
    assert_eq!(definition.parameters["required"], json!(["precision"]));
    assert_eq!(
        definition.description,
        "The user's location, from their browser."
    );
    let schema = definition.parameters.to_string();
    assert!(schema.contains(r#""city","street""#), "{schema}");
}

#[tokio::test]
async fn a_call_pauses_with_typed_arguments_and_the_typed_result_resumes() {
    let model = model();
    let agent = Helper::builder(Arc::clone(&model)).build();
    let counter = Arc::new(Counter::default());
    let pause = paused(
        agent
            .run_or_pause("Weather here?", Arc::clone(&counter))
            .await
            .unwrap(),
    );
    // The ordinary call of the same answer ran before the stop.
    assert_eq!(counter.weather.load(Ordering::SeqCst), 1);
    let calls: Vec<_> = pause.external_calls().collect();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].call_id(), "g1");
    assert!(calls[0].is_external());
    let args = calls[0].arguments_as::<get_location>().unwrap();
    assert_eq!(args.precision, Precision::City);
    let result = calls[0]
        .answer(Location {
            lat: 48.85,
            lon: 2.35,
        })
        .unwrap();

    // A result of the wrong type is refused, and nothing runs.
    let err = agent
        .resume(
            pause.clone(),
            [("g1".to_string(), Decision::answer("Paris").unwrap())],
            Arc::clone(&counter),
        )
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Resume(ResumeError::InvalidAnswer { tool, .. }) if tool == "get_location"
        ),
        "{err}"
    );
    assert_eq!(model.request_count(), 1);

    let run = agent
        .resume(pause, [result], Arc::clone(&counter))
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "It is sunny where you are.");
    assert_eq!(counter.weather.load(Ordering::SeqCst), 1, "not run again");
    let texts: Vec<(String, String)> = run
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some((t.call_id.clone(), m.text())),
            _ => None,
        })
        .collect();
    assert_eq!(
        texts,
        [
            ("g1".to_string(), r#"{"lat":48.85,"lon":2.35}"#.to_string()),
            ("w1".to_string(), "Paris: sunny".to_string()),
        ]
    );
    assert_eq!(model.request_count(), 2);
}

#[tokio::test]
async fn an_untyped_external_tool_pauses_and_takes_any_json_result() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("pick_file", json!({"kind": "image"})),
        Turn::text("Got it."),
    ]));
    let agent = agentry::agent::AgentBuilder::<_, _, (), ()>::new(
        Arc::clone(&model),
        agentry::agent::NoTools,
    )
    .dyn_tool(ExternalTool::new(
        "pick_file",
        "Ask the user to pick a file.",
        json!({"type": "object", "properties": {"kind": {"type": "string"}}}),
    ))
    .build();
    let pause = paused(agent.run_or_pause("Pick one", ()).await.unwrap());
    let call = pause.external_calls().next().unwrap();
    assert_eq!(call.arguments(), json!({"kind": "image"}));
    let answer = call.answer("cat.png").unwrap();
    let run = agent
        .resume(pause, [answer], ())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "Got it.");
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        "cat.png"
    );
}

#[tokio::test]
async fn a_stream_ends_paused_at_the_external_call() {
    let agent = Helper::builder(model()).build();
    let mut stream = agent.stream("Weather here?", Counter::default());
    let mut last = None;
    while let Some(event) = stream.next().await {
        last = Some(event.unwrap());
    }
    let Some(AgentEvent::Paused(pause)) = last else {
        panic!("the last event is Paused");
    };
    let call = pause.external_calls().next().unwrap();
    let answer = call.answer(Location { lat: 1.0, lon: 2.0 }).unwrap();
    let run = agent
        .resume_stream(*pause, [answer], Counter::default())
        .result()
        .await
        .unwrap();
    assert_eq!(run.output, "It is sunny where you are.");
}

#[tokio::test]
async fn a_thread_holds_the_external_call_until_its_result_comes() {
    let cp = Arc::new(InMemoryCheckpointer::default());
    let agent = Helper::builder(model())
        .shared_checkpointer(Arc::clone(&cp) as Arc<dyn Checkpointer>)
        .build();
    let thread = agent.thread("browser");
    let outcome = thread
        .run_or_pause("Weather here?", Counter::default())
        .await
        .unwrap();
    assert!(matches!(outcome, Outcome::Paused(_)));
    let pause = thread.pending().await.unwrap().unwrap();
    let answer = pause
        .external_calls()
        .next()
        .unwrap()
        .answer(Location { lat: 1.0, lon: 2.0 })
        .unwrap();
    let run = thread
        .resume([answer], Counter::default())
        .await
        .unwrap()
        .finished()
        .unwrap();
    assert_eq!(run.output, "It is sunny where you are.");
    // user, the answer, two results, the final answer.
    assert_eq!(thread.messages().await.unwrap().len(), 5);
}
