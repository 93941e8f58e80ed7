//! Papercuts: the prelude names what tool and model code needs, and a `ToolCallError` is
//! built from a `ToolError` without repeating the tool name.

// Only the prelude: each of these names must come from it.
use agentry::prelude::*;

use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

fn takes_a_model(model: &dyn ChatModel) -> &str {
    model.model_name()
}

#[test]
fn the_prelude_exports_the_names_tool_code_needs() {
    let tool = FnTool::new(
        ToolDefinition::new("noop", "Nothing.", json!({ "type": "object" }), false),
        |_args: serde_json::Value, _rt: &ToolRuntime| async {
            Ok::<_, ToolCallError>(ToolOutput::text("ok"))
        },
    );
    let _ = tool;
    let error: ToolCallError = ToolError::new("nope").into();
    assert!(matches!(error, ToolCallError::Failed { .. }));
    let kind: Option<&RunErrorKind> = None;
    assert!(kind.is_none());
    let model = ScriptedModel::new([]);
    assert!(!takes_a_model(&model).is_empty());
}

#[tokio::test]
async fn a_tool_error_converted_with_question_mark_names_the_called_tool() {
    let tool = FnTool::new(
        ToolDefinition::new(
            "lookup",
            "Look a city up.",
            json!({ "type": "object", "properties": { "city": { "type": "string" } } }),
            false,
        ),
        |args: serde_json::Value, _rt: &ToolRuntime| async move {
            let city = args["city"]
                .as_str()
                .ok_or_else(|| ToolError::new("give a city"))?;
            Ok(ToolOutput::text(city.to_string()))
        },
    );
    let model = ScriptedModel::new([Turn::tool_call("lookup", json!({})), Turn::text("ok")]);
    let run = AgentBuilder::<_, _, (), ()>::new(model, agentry::agent::NoTools)
        .dyn_tool(tool)
        .build()
        .run("go", ())
        .await
        .unwrap();
    let error = run.steps[0].result.as_ref().unwrap_err();
    assert_eq!(error.tool(), "lookup");
    assert_eq!(error.to_string(), "tool `lookup` failed: give a city");
}
