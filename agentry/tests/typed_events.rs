//! Typed progress events: a tool's `StreamWriter<E>` into an agent declared with
//! `#[agent(events = E)]` yields `AgentEvent::Custom(CustomEvent<E>)`, in order with the run's
//! own events; untyped writers and agents keep their JSON; a sub-agent's typed events reach
//! its parent as JSON.

use agentry::ToolRuntime;
use agentry::agent::AgentEvent;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::tool::CustomEvent;
use futures::StreamExt;
use serde_json::json;

/// How far an import got.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Progress {
    Started { rows: u32 },
    Row { done: u32 },
}

/// Import rows.
///
/// # Arguments
/// * `rows` - How many.
#[tool]
async fn import(rows: u32, progress: StreamWriter<Progress>) -> String {
    progress.write(Progress::Started { rows });
    for done in 1..=rows {
        progress.write(Progress::Row { done });
    }
    format!("imported {rows}")
}

/// Count rows; writes nothing.
///
/// # Arguments
/// * `table` - Which.
#[tool]
fn count(table: String) -> String {
    format!("{table}: 3")
}

/// Imports data.
#[agent(tools(import, count), events = Progress)]
struct Importer;

/// An untyped writer.
///
/// # Arguments
/// * `city` - Where.
#[tool]
fn book(city: String, writer: StreamWriter) -> String {
    writer.write(json!({ "booking": city }));
    "booked".to_string()
}

/// Books trips.
#[agent(tools(book))]
struct Booker;

/// Runs the importer as a sub-agent.
#[agent(tools(Importer))]
struct Boss;

fn importing(rows: u32) -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call("import", json!({ "rows": rows })),
        Turn::text("done"),
    ])
}

#[tokio::test]
async fn a_typed_agent_streams_its_tools_events_typed_and_in_order() {
    let agent = Importer::builder(importing(2)).build();
    let mut stream = agent.stream("Import", ());
    let mut seen: Vec<String> = Vec::new();
    let mut custom: Vec<CustomEvent<Progress>> = Vec::new();
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            AgentEvent::Custom(event) => {
                seen.push("custom".into());
                custom.push(event);
            }
            AgentEvent::ToolResult(_) => seen.push("result".into()),
            _ => {}
        }
    }
    assert_eq!(
        custom.iter().map(|e| e.data.clone()).collect::<Vec<_>>(),
        [
            Progress::Started { rows: 2 },
            Progress::Row { done: 1 },
            Progress::Row { done: 2 },
        ]
    );
    assert!(custom.iter().all(|e| e.call_id == custom[0].call_id));
    // A tool's events come before its result.
    assert_eq!(seen, ["custom", "custom", "custom", "result"]);
    assert_eq!(stream.result().await.unwrap().output, "done");
}

#[tokio::test]
async fn a_typed_custom_event_serializes_as_its_data() {
    let agent = Importer::builder(importing(1)).build();
    let events: Vec<_> = agent.stream("Import", ()).collect().await;
    let custom = events
        .into_iter()
        .find_map(|e| match e.unwrap() {
            AgentEvent::Custom(event) => Some(event),
            _ => None,
        })
        .unwrap();
    let json = serde_json::to_value(&custom).unwrap();
    assert_eq!(json["data"], json!({ "kind": "started", "rows": 1 }));
}

#[tokio::test]
async fn an_untyped_agent_keeps_json_events() {
    let model = ScriptedModel::new([
        Turn::tool_call("book", json!({ "city": "Rome" })),
        Turn::text("ok"),
    ]);
    let agent = Booker::builder(model).build();
    let events: Vec<_> = agent.stream("Book", ()).collect().await;
    let data: Vec<serde_json::Value> = events
        .into_iter()
        .filter_map(|e| match e.unwrap() {
            AgentEvent::Custom(CustomEvent { data, .. }) => Some(data),
            _ => None,
        })
        .collect();
    assert_eq!(data, [json!({ "booking": "Rome" })]);
}

#[tokio::test]
async fn a_sub_agents_typed_events_reach_the_parent_as_json() {
    let model = ScriptedModel::new([
        Turn::tool_call("importer", json!({ "prompt": "Import" })),
        Turn::tool_call("import", json!({ "rows": 1 })),
        Turn::text("imported"),
        Turn::text("all done"),
    ]);
    let agent = Boss::builder(model).build();
    let events: Vec<_> = agent.stream("Go", ()).collect().await;
    let nested: Vec<serde_json::Value> = events
        .into_iter()
        .filter_map(|e| match e.unwrap() {
            AgentEvent::SubAgent(sub) => match sub.path() {
                (path, AgentEvent::Custom(event)) if path == ["importer"] => {
                    Some(event.data.clone())
                }
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert_eq!(
        nested,
        [
            json!({ "kind": "started", "rows": 1 }),
            json!({ "kind": "row", "done": 1 })
        ]
    );
}

#[tokio::test]
async fn a_typed_writer_outside_a_run_sends_json_to_a_channel_or_reports_false() {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let rt = ToolRuntime::new().with_call_id("c1").with_event_sender(tx);
    let writer: StreamWriter<Progress> = agentry::Inject::inject(&rt).unwrap();
    assert!(writer.write(Progress::Row { done: 4 }));
    let event = rx.try_recv().unwrap();
    assert_eq!(event.call_id, "c1");
    assert_eq!(event.data, json!({ "kind": "row", "done": 4 }));

    let writer: StreamWriter<Progress> = agentry::Inject::inject(&ToolRuntime::new()).unwrap();
    assert!(!writer.write(Progress::Row { done: 1 }));
}

#[tokio::test]
async fn a_run_that_is_not_streamed_drops_events_and_runs_the_tool() {
    let run = Importer::builder(importing(3))
        .build()
        .run("Import", ())
        .await
        .unwrap();
    assert_eq!(run.output, "done");
}
