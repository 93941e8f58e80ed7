//! An agent whose tool returns an image: the image reaches the provider in the shape it
//! documents for tool results; and a conversation with documents and audio survives the
//! checkpointers (memory, SQLite, Postgres) unchanged.

use std::sync::Arc;

use agentry::agent::{AgentBuilder, FnTool, NoTools};
use agentry::persist::{
    CheckpointWrite, Checkpointer, InMemoryCheckpointer, PostgresCheckpointer, SqliteCheckpointer,
};
use agentry::testing::{MockResponse, MockServer, PostgresServer};
use agentry::tool::ToolDefinition;
use agentry::{AudioFormat, ContentBlock, Message, ToolCall, ToolOutput, ToolResultMessage};
use serde_json::{Value, json};

fn chart_tool() -> impl agentry::agent::DynTool<(), ()> {
    FnTool::new(
        ToolDefinition::new(
            "chart",
            "Draws a chart.",
            json!({"type": "object", "properties": {}}),
            false,
        ),
        |_input: Value, _rt: &agentry::ToolRuntime| async move {
            Ok(ToolOutput {
                content: vec![
                    ContentBlock::text("Sales by month."),
                    ContentBlock::image(b"png", "image/png"),
                ],
                artifact: None,
            })
        },
    )
}

#[tokio::test]
async fn a_tool_returning_an_image_reaches_chat_completions_after_the_tool_message() {
    let server = MockServer::with_script([
        MockResponse::tool_calls(vec![ToolCall::new("call_1", "chart", "{}")]),
        MockResponse::text("Sales peak in May."),
    ])
    .await;
    let agent = AgentBuilder::<_, _, (), ()>::new(server.openai_model("gpt-4o"), NoTools)
        .dyn_tool(chart_tool())
        .build();
    let run = agent.run("Chart the sales.", ()).await.unwrap();
    assert_eq!(run.output, "Sales peak in May.");
    let sent = &server.requests()[1].body["messages"];
    let roles: Vec<&str> = sent
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["user", "assistant", "tool", "user"]);
    assert_eq!(sent[2]["content"], "Sales by month.");
    assert_eq!(
        sent[3]["content"][1],
        json!({"type": "image_url", "image_url": {"url": "data:image/png;base64,cG5n"}})
    );
}

/// A thread's messages with every media part.
fn media_messages() -> Vec<Message> {
    vec![
        Message::user_parts(vec![
            ContentBlock::text("Read these."),
            ContentBlock::pdf(b"%PDF-1.7").with_filename("r.pdf"),
            ContentBlock::text_document("notes"),
            ContentBlock::file_url("https://example.com/a.pdf", "application/pdf"),
            ContentBlock::file_id("file-1"),
            ContentBlock::audio(b"RIFF", AudioFormat::Wav),
            ContentBlock::image_url("https://example.com/a.png"),
        ]),
        Message::assistant_tool_calls(vec![ToolCall::new("c1", "chart", "{}")]),
        Message::Tool(ToolResultMessage {
            call_id: "c1".into(),
            name: "chart".into(),
            content: vec![
                ContentBlock::image(b"png", "image/png"),
                ContentBlock::file_bytes(b"a,b", "text/csv"),
            ],
            is_error: false,
        }),
    ]
}

async fn round_trip(cp: &dyn Checkpointer) {
    let messages = media_messages();
    let state = json!({});
    cp.put(CheckpointWrite::first("media", &messages[..1], &state))
        .await
        .unwrap();
    cp.put(CheckpointWrite::next("media", 1, &messages[1..], &state))
        .await
        .unwrap();
    let latest = cp.latest("media").await.unwrap().expect("a checkpoint");
    assert_eq!(latest.messages, messages);
    let first = cp.get("media", 1).await.unwrap().expect("step 1");
    assert_eq!(first.messages, messages[..1]);
}

#[tokio::test]
async fn media_parts_round_trip_through_the_memory_checkpointer() {
    round_trip(&InMemoryCheckpointer::default()).await;
}

#[tokio::test]
async fn media_parts_round_trip_through_the_sqlite_checkpointer() {
    let dir = tempfile::tempdir().unwrap();
    let cp = SqliteCheckpointer::open(dir.path().join("threads.db"))
        .await
        .unwrap();
    round_trip(&cp).await;
}

#[tokio::test]
async fn media_parts_round_trip_through_the_postgres_checkpointer() {
    let server = PostgresServer::shared().unwrap_or_else(|e| panic!("{e}"));
    let url = server.create_database().unwrap_or_else(|e| panic!("{e}"));
    let cp = Arc::new(PostgresCheckpointer::connect(&url).await.unwrap());
    round_trip(cp.as_ref()).await;
}
