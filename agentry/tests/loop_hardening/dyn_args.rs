//! A dynamic tool's arguments are validated against its JSON schema before the call; a
//! violation goes back to the model like a static tool's, naming the JSON path.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::agent::NoTools;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

#[tokio::test]
async fn invalid_arguments_never_reach_a_dynamic_tool() {
    let calls = Arc::new(AtomicUsize::new(0));
    let seen = calls.clone();
    let echo = FnTool::new(
        ToolDefinition::new(
            "echo",
            "Repeat the text.",
            json!({
                "type": "object",
                "properties": { "text": { "type": "string" } },
                "required": ["text"],
                "additionalProperties": false
            }),
            false,
        ),
        move |args: serde_json::Value, _rt: &ToolRuntime| {
            seen.fetch_add(1, Ordering::SeqCst);
            let text = args["text"]
                .as_str()
                .unwrap_or("<not a string>")
                .to_string();
            async move { Ok::<_, ToolCallError>(ToolOutput::text(text)) }
        },
    );
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_call("echo", json!({ "text": 5, "extra": true })),
        Turn::tool_call("echo", json!({ "text": "hi", "extra": true })),
        Turn::tool_call("echo", json!({ "text": "hi" })),
        Turn::text("done"),
    ]));
    let run = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .dyn_tool(echo)
        .build()
        .run("go", ())
        .await
        .unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1, "only the valid call ran");

    let first = run.steps[0].result.as_ref().unwrap_err();
    let ToolCallError::InvalidArguments {
        tool,
        path,
        message,
    } = first
    else {
        panic!("{first:?}");
    };
    assert_eq!(tool, "echo");
    assert_eq!(path, "text");
    assert!(message.contains("not of type \"string\""), "{message}");
    assert!(message.contains("1 more"), "{message}");

    let second = run.steps[1].result.as_ref().unwrap_err();
    let ToolCallError::InvalidArguments { path, message, .. } = second else {
        panic!("{second:?}");
    };
    assert_eq!(path, ".");
    assert!(message.contains("extra"), "{message}");

    // The model reads the same message a static tool's bad arguments give.
    let requests = model.requests();
    let Some(Message::Tool(result)) = requests[1].messages.last() else {
        panic!("a tool result");
    };
    assert!(result.is_error);
    assert_eq!(result.content[0].as_text().unwrap(), first.model_message());
    assert!(first.model_message().contains("at `text`"));
    assert_eq!(run.steps[2].result.as_ref().unwrap().text_content(), "hi");
}
