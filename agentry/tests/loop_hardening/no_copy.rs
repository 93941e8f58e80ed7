//! A run continues a long conversation without copying it: the model's requests share the
//! run's transcript, and the history the caller passed in is the buffer the result returns.

use agentry::agent::Input;
use agentry::model::ChatRequest;
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use futures::StreamExt;
use std::sync::{Arc, Mutex};

/// A city's weather.
///
/// # Arguments
/// * `city` - The city.
#[tool]
async fn weather(city: String) -> String {
    format!("{city}: sunny")
}

/// You answer with the `weather` tool.
#[agent(tools(weather))]
struct Forecaster;

/// Calls `weather` on the question, answers once the result is in; records where each
/// request's messages live.
fn model(seen: Arc<Mutex<Vec<usize>>>) -> FunctionModel {
    FunctionModel::new(move |req: &ChatRequest| {
        seen.lock().unwrap().push(req.messages.as_ptr() as usize);
        match req.messages.last() {
            Some(Message::Tool(_)) => FunctionModel::text("Sunny."),
            _ => FunctionModel::tool_call("weather", serde_json::json!({ "city": "Oslo" })),
        }
    })
}

/// Both requests read the caller's buffer.
fn assert_shared(seen: &Mutex<Vec<usize>>, buffer: *const Message) {
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 2);
    for &at in seen.iter() {
        assert_eq!(
            at, buffer as usize,
            "a request got a copy of the transcript"
        );
    }
}

/// 1,000 earlier messages, the system message first, in a buffer with room for the run's
/// additions (the question, the call, its result and the answer).
fn long_history() -> Vec<Message> {
    let mut history = Vec::with_capacity(1_010);
    history.push(Message::system("You answer with the `weather` tool."));
    for i in 0..999 {
        history.push(if i % 2 == 0 {
            Message::user(format!("question {i}"))
        } else {
            Message::assistant(format!("answer {i}"))
        });
    }
    history
}

#[tokio::test]
async fn a_run_appends_to_the_callers_buffer_instead_of_copying_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Forecaster::builder(model(Arc::clone(&seen))).build();
    let history = long_history();
    let buffer = history.as_ptr();
    let result = agent
        .run(Input::with_history(history, "Weather in Oslo?"), ())
        .await
        .unwrap();
    assert_eq!(result.output, "Sunny.");
    assert_eq!(result.messages.len(), 1_000 + 4);
    assert_eq!(
        result.messages.as_ptr(),
        buffer,
        "the transcript was copied during the run"
    );
    assert_shared(&seen, buffer);
}

#[tokio::test]
async fn a_streamed_run_appends_to_the_callers_buffer_too() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let agent = Forecaster::builder(model(Arc::clone(&seen))).build();
    let history = long_history();
    let buffer = history.as_ptr();
    let mut stream = agent.stream(Input::with_history(history, "Weather in Oslo?"), ());
    let mut done = None;
    while let Some(event) = stream.next().await {
        if let AgentEvent::Done { .. } = event.unwrap() {
            done = Some(());
        }
    }
    done.expect("the stream ends with Done");
    let result = stream.result().await.unwrap();
    assert_eq!(result.messages.len(), 1_000 + 4);
    assert_eq!(
        result.messages.as_ptr(),
        buffer,
        "the transcript was copied during the streamed run"
    );
    assert_shared(&seen, buffer);
}
