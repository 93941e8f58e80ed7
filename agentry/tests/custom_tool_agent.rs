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

#[tokio::test]
async fn providers_without_custom_tools_refuse_them_by_name() {
    use agentry::model::{ChatModel, ChatRequest, ModelError};
    use agentry::providers::anthropic::AnthropicModel;
    use agentry::providers::gemini::GeminiModel;
    use agentry::providers::openai_responses::OpenAiResponsesModel;

    let mut request = ChatRequest::new(vec![agentry::Message::user("Go")]);
    let def: agentry::tool::DefinitionRef =
        ToolDefinition::custom("run_python", "Run Python code.", CustomToolFormat::Text).into();
    request.tools = vec![def].into();
    // Nothing is sent: the request is refused while it is built.
    let base = "http://127.0.0.1:9";
    let models: Vec<Box<dyn ChatModel>> = vec![
        Box::new(
            AnthropicModel::builder("claude-sonnet-4-5")
                .base_url(base)
                .api_key("sk-ant-test-0123456789")
                .build()
                .unwrap(),
        ),
        Box::new(
            GeminiModel::builder("gemini-2.5-flash")
                .base_url(base)
                .api_key("AIza-test-0123456789")
                .build()
                .unwrap(),
        ),
        Box::new(
            OpenAiResponsesModel::builder("gpt-4.1")
                .base_url(base)
                .api_key("sk-test-0123456789")
                .build()
                .unwrap(),
        ),
    ];
    for model in models {
        let error = model.invoke(request.clone()).await.unwrap_err();
        assert!(
            matches!(&error, ModelError::Unsupported { setting, .. } if setting.contains("run_python")),
            "{error:?}"
        );
    }
}
