//! Streaming structured output: partial values as the JSON arrives, a validated final value,
//! and a re-ask in the middle of a stream.

use agentry::Message;
use agentry::model::StreamEvent;
use agentry::output::{OutputMode, StructuredError, StructuredEvent};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use futures::StreamExt;
use serde_json::{Value, json};

/// A to-do list.
#[derive(Debug, PartialEq, Deserialize, JsonSchema, StructuredOutput)]
struct Todo {
    /// The list's title.
    title: String,
    /// The items.
    #[output(length(max = 3))]
    items: Vec<String>,
}

const JSON: &str = r#"{"title": "Groceries", "items": ["milk", "eggs", "bread"]}"#;

fn text_chunks(text: &str, size: usize) -> Turn {
    let chars: Vec<char> = text.chars().collect();
    Turn::chunks(chars.chunks(size).map(|c| {
        Ok(StreamEvent::TextDelta {
            text: c.iter().collect(),
        })
    }))
}

fn tool_chunks(name: &str, arguments: &str, size: usize) -> Turn {
    let chars: Vec<char> = arguments.chars().collect();
    let start = Ok(StreamEvent::ToolCallStart {
        index: 0,
        id: "call_1".into(),
        name: name.into(),
    });
    Turn::chunks(std::iter::once(start).chain(chars.chunks(size).map(|c| {
        Ok(StreamEvent::ToolCallDelta {
            index: 0,
            arguments: c.iter().collect(),
        })
    })))
}

async fn collect(
    model: &ScriptedModel,
    mode: OutputMode,
) -> Vec<Result<StructuredEvent<Todo>, StructuredError>> {
    model
        .structured::<Todo>()
        .mode(mode)
        .stream(vec![Message::user("list")])
        .collect()
        .await
}

fn partials(events: &[Result<StructuredEvent<Todo>, StructuredError>]) -> Vec<Value> {
    events
        .iter()
        .filter_map(|e| match e {
            Ok(StructuredEvent::Partial(v)) => Some(v.to_value()),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn partial_values_grow_then_the_final_value_is_validated() {
    for (mode, turn) in [
        (OutputMode::Native, text_chunks(JSON, 4)),
        (
            OutputMode::Prompted,
            text_chunks(&format!("Here:\n```json\n{JSON}\n```"), 3),
        ),
        (OutputMode::Tool, tool_chunks("Todo", JSON, 5)),
    ] {
        let model = ScriptedModel::new([turn]);
        let events = collect(&model, mode).await;
        let partials = partials(&events);
        assert!(partials.len() > 5, "{mode:?}: {} partials", partials.len());
        // Every partial is a prefix-state of the final value: the title grows, items appear
        // one by one, and nothing that appeared disappears.
        assert!(
            partials.iter().any(|p| p["title"]
                .as_str()
                .is_some_and(|t| t.len() < 9 && "Groceries".starts_with(t))
                && p.get("items").is_none()),
            "{mode:?}: no partial title in {partials:?}"
        );
        assert!(
            partials.contains(&json!({"title": "Groceries", "items": ["milk"]})),
            "{mode:?}"
        );
        let lens: Vec<usize> = partials.iter().map(|p| p.to_string().len()).collect();
        assert!(lens.windows(2).all(|w| w[0] <= w[1]), "{mode:?}: {lens:?}");
        match events.last() {
            Some(Ok(StructuredEvent::Done { value, .. })) => assert_eq!(
                value,
                &Todo {
                    title: "Groceries".into(),
                    items: vec!["milk".into(), "eggs".into(), "bread".into()],
                }
            ),
            other => panic!("{mode:?}: last event {other:?}"),
        }
    }
}

#[tokio::test]
async fn an_invalid_streamed_answer_is_corrected() {
    let too_many = r#"{"title": "x", "items": ["a", "b", "c", "d"]}"#;
    let model = ScriptedModel::new([text_chunks(too_many, 7), text_chunks(JSON, 7)]);
    let events = collect(&model, OutputMode::Native).await;
    let retry = events
        .iter()
        .find_map(|e| match e {
            Ok(StructuredEvent::Retry(attempt)) => Some(attempt),
            _ => None,
        })
        .expect("a retry event");
    assert_eq!(retry.raw, too_many);
    assert_eq!(
        retry.error.to_string(),
        "at `$.items`: has 4 items, more than the maximum 3"
    );
    assert!(
        matches!(events.last(), Some(Ok(StructuredEvent::Done { usage, .. })) if usage.requests == 2)
    );
    assert!(
        model.requests()[1]
            .messages
            .last()
            .unwrap()
            .text()
            .contains("more than the maximum 3")
    );
}

#[tokio::test]
async fn a_cut_off_stream_is_an_error() {
    let model = ScriptedModel::new([Turn::chunks([
        Ok(StreamEvent::TextDelta {
            text: "{\"title\": \"Gro".into(),
        }),
        Err(agentry::model::ModelError::Incomplete(
            "connection reset".into(),
        )),
    ])]);
    let events = collect(&model, OutputMode::Native).await;
    assert!(
        matches!(events.first(), Some(Ok(StructuredEvent::Partial(v))) if v == &json!({"title": "Gro"}))
    );
    assert!(matches!(
        events.last(),
        Some(Err(StructuredError::Model(_)))
    ));
}

#[tokio::test]
async fn a_vec_root_streams_unwrapped() {
    let name = agentry::output::StructuredSpec::<Vec<String>>::default()
        .name()
        .to_string();
    assert_eq!(name, "string_list");
    let model = ScriptedModel::new([tool_chunks(&name, r#"{"value": ["a", "bc"]}"#, 3)]);
    let events: Vec<_> = model
        .structured::<Vec<String>>()
        .mode(OutputMode::Tool)
        .stream(vec![Message::user("go")])
        .collect()
        .await;
    let partial = events.iter().rev().find_map(|e| match e {
        Ok(StructuredEvent::Partial(v)) => Some(v.to_value()),
        _ => None,
    });
    assert_eq!(partial, Some(json!(["a", "bc"])));
    assert!(
        matches!(events.last(), Some(Ok(StructuredEvent::Done { value, .. })) if value == &["a", "bc"])
    );
}
