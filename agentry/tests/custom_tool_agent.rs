//! An agent runs a free-form (`custom`) dynamic tool: the call's raw input text reaches the
//! tool as a JSON string, not parsed as JSON arguments.

use std::sync::Arc;

use agentry::agent::{AgentBuilder, FnTool, NoTools};
use agentry::testing::{ScriptedModel, Turn};
use agentry::tool::{CustomToolFormat, ToolDefinition};
use agentry::{ToolCall, ToolOutput};
use serde_json::Value;

#[tokio::test]
async fn a_custom_tool_receives_the_raw_input_text() {
    let code = "print(3 ** 3)\n";
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([ToolCall::new("c1", "run_python", code)]),
        Turn::text("27"),
    ]));
    let python = FnTool::new(
        ToolDefinition::custom("run_python", "Run Python code.", CustomToolFormat::Text),
        |input: Value, _rt: &agentry::ToolRuntime| {
            let text = format!("ran {:?}", input.as_str());
            async move { Ok(ToolOutput::text(text)) }
        },
    );
    let agent = AgentBuilder::<_, _, (), ()>::new(model.clone(), NoTools)
        .dyn_tool(python)
        .build();
    let run = agent.run("3 cubed?", ()).await.unwrap();
    assert_eq!(
        run.steps[0].result.as_ref().unwrap().text_content(),
        format!("ran {:?}", Some(code))
    );
    let declared = &model.requests()[0].tools[0];
    assert_eq!(declared.custom, Some(CustomToolFormat::Text));
}
