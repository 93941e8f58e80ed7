//! Chat Completions `custom` (free-form) tools: declared from `ToolDefinition::custom`, their
//! calls decoded (whole and streamed) into tool calls whose arguments are the input text, and
//! sent back as custom calls in the history.

#[path = "conformance/server.rs"]
mod server;

use agentry::model::{ChatModel, ChatRequest, StreamEvent, ToolChoice};
use agentry::providers::openai::OpenAiModel;
use agentry::tool::{CustomToolFormat, DefinitionRef, GrammarSyntax, ToolDefinition};
use agentry::{AssistantMessage, Message, ToolCall};
use futures::StreamExt;
use serde_json::json;
use server::{Reply, Server, sse_event};

const CODE: &str = "print(3 ** 3)\n";

fn model(server: &Server) -> OpenAiModel {
    OpenAiModel::builder("gpt-5")
        .base_url(format!("{}/v1", server.url()))
        .api_key("sk-test-0123456789")
        .build()
        .unwrap()
}

fn python() -> DefinitionRef {
    ToolDefinition::custom("run_python", "Run Python code.", CustomToolFormat::Text).into()
}

fn request() -> ChatRequest {
    let mut request = ChatRequest::new(vec![Message::user("3 cubed?")]);
    request.tools = vec![python()].into();
    request
}

#[tokio::test]
async fn a_custom_call_decodes_into_a_tool_call_with_the_raw_input() {
    let answer = json!({
        "id": "chatcmpl-1", "model": "gpt-5",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": null,
            "tool_calls": [{"id": "call_1", "type": "custom",
                            "custom": {"name": "run_python", "input": CODE}}]
        }}]
    });
    let server = Server::start(vec![Reply::json(200, &answer)]).await;
    let response = model(&server).invoke(request()).await.unwrap();
    assert_eq!(
        response.message.tool_calls,
        [ToolCall::new("call_1", "run_python", CODE)]
    );
    // Declared as a custom tool.
    let sent = server.request().body;
    assert_eq!(
        sent["tools"][0],
        json!({"type": "custom", "custom": {
            "name": "run_python", "description": "Run Python code.", "format": {"type": "text"}
        }})
    );
}

#[tokio::test]
async fn a_streamed_custom_call_appends_its_input_pieces() {
    let chunk = |delta: serde_json::Value| {
        sse_event(
            "",
            &json!({"id": "c", "model": "gpt-5", "choices": [{"index": 0, "delta": delta}]}),
        )
    };
    let body = [
        chunk(json!({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_1", "type": "custom",
                                                          "custom": {"name": "run_python", "input": ""}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "custom": {"input": "print(3 "}}]})),
        chunk(json!({"tool_calls": [{"index": 0, "custom": {"input": "** 3)\n"}}]})),
        sse_event(
            "",
            &json!({"id": "c", "model": "gpt-5", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
        ),
        "data: [DONE]\n\n".to_string(),
    ]
    .concat();
    let server = Server::start(vec![Reply::sse(body)]).await;
    let events: Vec<StreamEvent> = model(&server)
        .stream(request())
        .map(Result::unwrap)
        .collect()
        .await;
    let Some(StreamEvent::Completed { response }) = events.last() else {
        panic!("{:?}", events.last())
    };
    assert_eq!(
        response.message.tool_calls,
        [ToolCall::new("call_1", "run_python", CODE)]
    );
}

#[tokio::test]
async fn a_custom_call_goes_back_as_a_custom_call_and_can_be_forced() {
    let done = json!({"id": "c2", "model": "gpt-5", "choices": [{"index": 0, "finish_reason": "stop",
                      "message": {"role": "assistant", "content": "27"}}]});
    let server = Server::start(vec![Reply::json(200, &done)]).await;
    let mut request = request();
    request.messages.push(Message::Assistant(AssistantMessage {
        tool_calls: vec![ToolCall::new("call_1", "run_python", CODE)],
        ..Default::default()
    }));
    request
        .messages
        .push(Message::tool_result("call_1", "run_python", "27"));
    let grammar = ToolDefinition::custom(
        "math",
        "",
        CustomToolFormat::Grammar {
            syntax: GrammarSyntax::Lark,
            definition: "start: INT".into(),
        },
    );
    request.tools = vec![python(), grammar.into()].into();
    request.tool_choice = Some(ToolChoice::Tool("run_python".into()));
    model(&server).invoke(request).await.unwrap();
    let sent = server.request().body;
    assert_eq!(
        sent["messages"][1]["tool_calls"][0],
        json!({"id": "call_1", "type": "custom", "custom": {"name": "run_python", "input": CODE}})
    );
    assert_eq!(
        sent["tools"][1]["custom"]["format"],
        json!({"type": "grammar", "grammar": {"definition": "start: INT", "syntax": "lark"}})
    );
    assert_eq!(
        sent["tool_choice"],
        json!({"type": "custom", "custom": {"name": "run_python"}})
    );
}
