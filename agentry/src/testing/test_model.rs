//! [`TestModel`]: a test double that exercises an agent's wiring with zero scripting.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;

use super::function::FunctionModel;
use super::schema_values::example_value;
use crate::message::{AssistantMessage, ContentBlock, Message, ToolCall};
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile, ResponseFormat,
    ToolChoice,
};

/// **Test double.** A model that calls every tool it is offered once, with arguments generated
/// from each tool's schema, then gives a final answer that is valid for the requested output.
///
/// So an agent's wiring — tool schemas, argument parsing, injected context and state, result
/// handling, output validation — is tested without writing a script (PydanticAI's
/// `TestModel`). Per request it:
///
/// 1. calls the tool named by `tool_choice: Tool(name)`, if any;
/// 2. else calls, in one turn, every ordinary tool not called yet in the conversation
///    (unless `tool_choice` is `None`);
/// 3. else calls the final-answer tool of the tool output strategy
///    ([`ToolDefinition::final_answer`](crate::ToolDefinition::final_answer)), if offered;
/// 4. else answers JSON generated from the `response_format` schema, if one is set;
/// 5. else answers text: [`TestModel::with_text`], or a JSON object mapping each tool called
///    to what it returned.
///
/// Arguments and outputs come from [`example_value`](super::example_value). Its streaming
/// answers are the same answers as deltas.
///
/// ```
/// # futures::executor::block_on(async {
/// use agentry::model::{ChatModel, ChatRequest};
/// use agentry::testing::TestModel;
/// use agentry::{Message, ToolDefinition};
/// use serde_json::json;
///
/// let model = TestModel::new();
/// let mut request = ChatRequest::new(vec![Message::user("weather?")]);
/// request.tools.push(ToolDefinition::new("get_weather", "Weather.", json!({
///     "type": "object", "properties": { "city": { "type": "string" } }, "required": ["city"]
/// }), false).into());
/// let answer = model.invoke(request).await.unwrap();
/// assert_eq!(answer.message.tool_calls[0].name, "get_weather");
/// assert_eq!(answer.message.tool_calls[0].arguments, r#"{"city":"a"}"#);
/// # });
/// ```
pub struct TestModel {
    inner: FunctionModel,
    requests: Arc<Mutex<Vec<ChatRequest>>>,
}

impl TestModel {
    /// A test model with the [full](ModelProfile::full) profile.
    pub fn new() -> Self {
        TestModel::build(None)
    }

    /// Answers with `text` once tools are done (instead of the JSON summary of tool results).
    pub fn with_text(text: impl Into<String>) -> Self {
        TestModel::build(Some(text.into()))
    }

    fn build(text: Option<String>) -> Self {
        let requests = Arc::new(Mutex::new(Vec::new()));
        let seen = Arc::clone(&requests);
        let inner = FunctionModel::new(move |request: &ChatRequest| {
            seen.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(request.clone());
            answer(request, text.as_deref())
        })
        .with_name("test");
        TestModel { inner, requests }
    }

    /// Reports `profile` instead of the full one (to exercise other output strategies).
    pub fn with_profile(mut self, profile: ModelProfile) -> Self {
        self.inner = self.inner.with_profile(profile);
        self
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl Default for TestModel {
    fn default() -> Self {
        TestModel::new()
    }
}

impl std::fmt::Debug for TestModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestModel")
            .field(
                "requests",
                &self.requests.lock().map(|r| r.len()).unwrap_or(0),
            )
            .finish()
    }
}

impl ChatModel for TestModel {
    fn model_name(&self) -> &str {
        self.inner.model_name()
    }

    fn provider(&self) -> &str {
        "test"
    }

    fn profile(&self) -> &ModelProfile {
        self.inner.profile()
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        self.inner.invoke(request)
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        self.inner.stream(request)
    }
}

fn answer(request: &ChatRequest, text: Option<&str>) -> ChatResponse {
    let called = called_tools(&request.messages);
    let call = |def: &crate::ToolDefinition| {
        let args = example_value(&def.parameters);
        ToolCall::new(
            format!("test_call_{}_{}", called.len(), def.name),
            def.name.clone(),
            args.to_string(),
        )
    };

    if let Some(ToolChoice::Tool(name)) = &request.tool_choice
        && let Some(def) = request.tools.iter().find(|t| &t.name == name)
    {
        return tool_calls(vec![call(def)]);
    }
    if request.tool_choice != Some(ToolChoice::None) {
        let pending: Vec<ToolCall> = request
            .tools
            .iter()
            .filter(|t| !t.final_answer && !called.contains_key(t.name.as_str()))
            .map(|t| call(t))
            .collect();
        if !pending.is_empty() {
            return tool_calls(pending);
        }
        if let Some(def) = request.tools.iter().find(|t| t.final_answer) {
            return tool_calls(vec![call(def)]);
        }
    }
    if let Some(ResponseFormat::JsonSchema { schema, .. }) = &request.response_format {
        return FunctionModel::text(example_value(schema).to_string());
    }
    match text {
        Some(text) => FunctionModel::text(text),
        None if called.is_empty() => FunctionModel::text("success (no tool calls)"),
        None => FunctionModel::text(Value::Object(called.into_iter().collect()).to_string()),
    }
}

/// Every tool called in the conversation, with the text of its (latest) result.
fn called_tools(messages: &[Message]) -> BTreeMap<String, Value> {
    let mut names_by_id = BTreeMap::new();
    let mut called = BTreeMap::new();
    for message in messages {
        match message {
            Message::Assistant(m) => {
                for call in &m.tool_calls {
                    names_by_id.insert(call.id.clone(), call.name.clone());
                    called.entry(call.name.clone()).or_insert(Value::Null);
                }
            }
            Message::Tool(result) => {
                let name = names_by_id
                    .get(&result.call_id)
                    .cloned()
                    .unwrap_or_else(|| result.name.clone());
                let text: String = result
                    .content
                    .iter()
                    .filter_map(ContentBlock::as_text)
                    .collect();
                called.insert(name, Value::String(text));
            }
            _ => {}
        }
    }
    called
}

fn tool_calls(calls: Vec<ToolCall>) -> ChatResponse {
    let mut response = FunctionModel::text("");
    response.message = AssistantMessage {
        tool_calls: calls,
        ..AssistantMessage::default()
    };
    response.finish_reason = crate::model::FinishReason::ToolCalls;
    response
}
