//! Streaming the typed output of an agent run: `AgentEvent::PartialOutput` in tool and
//! native modes, the final-answer call not reported as a tool call, and partial values shared
//! with the parser rather than copied per delta.

use std::sync::Arc;

use agentry::agent::{AgentEvent, NoTools};
use agentry::model::StreamEvent;
use agentry::output::{OutputMode, PartialJson, StructuredSpec};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::{Value, json};

/// A story.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Story {
    /// The title.
    title: String,
    /// The lines.
    lines: Vec<String>,
}

fn story() -> Value {
    json!({ "title": "A long and winding road", "lines": ["one", "two", "three", "four"] })
}

async fn partials(model: ScriptedModel, mode: OutputMode) -> (Vec<Value>, Vec<String>, Story) {
    let agent = AgentBuilder::<_, _, (), ()>::new(model, NoTools)
        .output(StructuredSpec::<Story>::new(mode))
        .build();
    let mut events = agent.stream("Tell me a story", ());
    let (mut partials, mut calls) = (Vec::new(), Vec::new());
    while let Some(event) = events.next().await {
        match event.unwrap() {
            AgentEvent::PartialOutput { partial, .. } => partials.push(partial.to_value()),
            AgentEvent::ToolCallStart { name, .. } => calls.push(name),
            _ => {}
        }
    }
    (partials, calls, events.result().await.unwrap().output)
}

fn assert_grows_to_the_whole(partials: &[Value]) {
    assert!(partials.len() > 3, "several partial values: {partials:?}");
    assert_eq!(partials.last().unwrap(), &story());
    // Each value extends the one before: the title grows, then the lines.
    let titles: Vec<usize> = partials
        .iter()
        .map(|p| p["title"].as_str().map_or(0, str::len))
        .collect();
    assert!(titles.windows(2).all(|w| w[0] <= w[1]), "{titles:?}");
}

#[tokio::test]
async fn tool_mode_streams_the_output_not_a_tool_call() {
    let args = story().to_string();
    let chars: Vec<char> = args.chars().collect();
    let mut chunks = vec![Ok(StreamEvent::ToolCallStart {
        index: 0,
        id: "call_story".into(),
        name: "Story".into(),
    })];
    chunks.extend(chars.chunks(5).map(|c| {
        Ok(StreamEvent::ToolCallDelta {
            index: 0,
            arguments: c.iter().collect(),
        })
    }));
    let model = ScriptedModel::new([Turn::chunks(chunks)]);
    let (partials, calls, output) = partials(model, OutputMode::Tool).await;
    assert!(
        calls.is_empty(),
        "the final answer is no tool call: {calls:?}"
    );
    assert_grows_to_the_whole(&partials);
    assert_eq!(output.lines.len(), 4);
}

#[tokio::test]
async fn native_mode_streams_the_output_from_the_text() {
    let model = ScriptedModel::new([Turn::text(story().to_string())]);
    let (partials, _, output) = partials(model, OutputMode::Native).await;
    assert_grows_to_the_whole(&partials);
    assert_eq!(output.title, "A long and winding road");
}

#[test]
fn the_parser_shares_its_value_and_writes_in_place() {
    let mut parser = PartialJson::new();
    parser.push(r#"{"title": "A long"#).unwrap();
    let first = parser.shared().unwrap();
    let at = Arc::as_ptr(&first);
    drop(first);
    parser
        .push(r#" and winding road", "lines": ["one"#)
        .unwrap();
    let second = parser.shared().unwrap();
    assert_eq!(Arc::as_ptr(&second), at, "no copy while no handle is kept");
    // A handle kept across a push keeps the value it saw.
    parser.push(r#"", "two"]}"#).unwrap();
    assert_eq!(
        *second,
        json!({ "title": "A long and winding road", "lines": ["one"] })
    );
    assert_eq!(
        parser.value().unwrap(),
        &json!({ "title": "A long and winding road", "lines": ["one", "two"] })
    );
}

/// A middleware with every hook left as it is: the run takes the middleware path.
struct Plain;

impl agentry::middleware::Middleware for Plain {}

/// The addresses of the partial values of a streamed agent run whose model's deltas are all
/// ready at once, each partial dropped before the next is read.
async fn partial_addresses(through_middleware: bool) -> Vec<usize> {
    let text = story().to_string();
    let chars: Vec<char> = text.chars().collect();
    let chunks = chars.chunks(3).map(|c| {
        Ok(StreamEvent::TextDelta {
            text: c.iter().collect(),
        })
    });
    let model = ScriptedModel::new([Turn::chunks(chunks)]);
    let mut builder =
        AgentBuilder::<_, _, (), ()>::new(model, NoTools)
            .output(StructuredSpec::<Story>::new(OutputMode::Native));
    if through_middleware {
        builder = builder.middleware(Plain);
    }
    let agent = builder.build();
    let mut events = agent.stream("Tell me a story", ());
    let mut addresses = Vec::new();
    let mut last = None;
    while let Some(event) = events.next().await {
        if let AgentEvent::PartialOutput { partial, .. } = event.unwrap() {
            addresses.push(&*partial as *const Value as usize);
            last = Some(partial.to_value());
        }
    }
    assert_eq!(last, Some(story()));
    assert_eq!(events.result().await.unwrap().output.lines.len(), 4);
    addresses
}

/// A model's deltas arrive faster than the consumer reads (here all at once): the run hands
/// each partial output to the consumer before parsing the next delta, so the parser keeps
/// writing in place. Queued partials would each hold the value as it was, and the parser
/// would copy the whole value so far once per delta (quadratic in the answer's length).
#[tokio::test]
async fn an_agent_stream_writes_its_partial_output_in_place_when_read_as_it_comes() {
    for through_middleware in [false, true] {
        let addresses = partial_addresses(through_middleware).await;
        assert!(addresses.len() > 10, "{addresses:?}");
        assert!(
            addresses.windows(2).all(|w| w[0] == w[1]),
            "a copy of the value per delta (middleware: {through_middleware}): {addresses:?}"
        );
    }
}
