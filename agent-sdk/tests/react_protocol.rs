//! The pieces of the ReAct protocol that touch other parts: a server refusing `tools` (the reason
//! for ReAct), the profile capability, the prompt snapshots and template errors.

use agent_sdk::Message;
use agent_sdk::ToolDefinition;
use agent_sdk::model::{ChatModel, ChatRequest, ModelError, ModelProfile};
use agent_sdk::protocol::ToolProtocol;
use agent_sdk::protocol::react::{
    DEFAULT_TEMPLATE, ReactPrompt, ReactStepRecord, STOP_SEQUENCE, TemplateError, compact_schema,
};
use agent_sdk::testing::{MockResponse, MockServer};
use serde_json::json;

fn tools() -> Vec<ToolDefinition> {
    vec![
        ToolDefinition::new(
            "search",
            "Search the web for pages about a topic.",
            json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string", "description": "What to look for."},
                    "limit": {"type": ["integer", "null"]}
                },
                "required": ["query"]
            }),
            false,
        ),
        ToolDefinition::new(
            "convert",
            "Convert an amount between currencies.",
            json!({
                "type": "object",
                "properties": {
                    "amount": {"type": "number"},
                    "to": {"enum": ["EUR", "USD"]},
                    "tags": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["amount", "to"]
            }),
            false,
        ),
    ]
}

#[tokio::test]
async fn a_server_without_tool_support_answers_400_to_tools_and_text_otherwise() {
    let server = MockServer::with_script([MockResponse::text("Final Answer: 4")]).await;
    server.refuse_tools();
    let model = server.openai_model("gemma2");
    let mut with_tools = ChatRequest::new(vec![Message::user("2+2?")]);
    with_tools.tools = tools().into_iter().map(Into::into).collect();
    let err = model.invoke(with_tools).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::InvalidRequest { param: Some(p), message } if p == "tools" && message.contains("does not support tools")),
        "{err:?}"
    );
    // The refusal consumed nothing: the text-only request gets the scripted answer.
    let mut text_only = ChatRequest::new(vec![Message::user("2+2?")]);
    text_only.stop = vec![STOP_SEQUENCE.to_string()];
    let answer = model.invoke(text_only).await.unwrap();
    assert_eq!(answer.message.text(), "Final Answer: 4");
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].body["stop"], json!(["\nObservation:"]));
}

#[test]
fn profiles_pick_the_protocol() {
    assert!(ModelProfile::full().tool_calling);
    assert!(ModelProfile::conservative().tool_calling);
    assert!(!ModelProfile::text_only().tool_calling);
    assert_eq!(
        ToolProtocol::for_profile(&ModelProfile::conservative()),
        ToolProtocol::Native
    );
    assert!(matches!(
        ToolProtocol::for_profile(&ModelProfile::text_only()),
        ToolProtocol::React(_)
    ));
    for name in [
        "gemma2:9b",
        "google/gemma-2-2b-it",
        "llama2",
        "phi3:mini",
        "TinyLlama",
    ] {
        assert!(
            !ModelProfile::for_compatible_model(name).tool_calling,
            "{name}"
        );
    }
    for name in [
        "llama3.2",
        "qwen2.5:7b",
        "mistral-nemo",
        "meta-llama/Llama-3.1-8B-Instruct",
    ] {
        assert_eq!(
            ModelProfile::for_compatible_model(name),
            ModelProfile::conservative(),
            "{name}"
        );
    }
    // Profiles serialized before the field existed still mean tool calling.
    let mut old = serde_json::to_value(ModelProfile::conservative()).unwrap();
    old.as_object_mut().unwrap().remove("tool_calling");
    let back: ModelProfile = serde_json::from_value(old).unwrap();
    assert!(back.tool_calling);
}

#[test]
fn default_prompt_snapshot() {
    let prompt = ReactPrompt::default();
    insta::assert_snapshot!("react_prompt_no_steps", prompt.render(&tools(), &[]));
    let steps = vec![
        ReactStepRecord {
            thought: "I should search first.".into(),
            tool: "search".into(),
            input: r#"{"query": "EUR USD rate"}"#.into(),
            observation: "1 EUR = 1.08 USD".into(),
        },
        ReactStepRecord {
            thought: String::new(),
            tool: "convert".into(),
            input: r#"{"amount": 10, "to": "USD"}"#.into(),
            observation: "10.8".into(),
        },
    ];
    insta::assert_snapshot!("react_prompt_two_steps", prompt.render(&tools(), &steps));
    assert_eq!(prompt.stop_sequences(), vec!["\nObservation:".to_string()]);
}

#[test]
fn compact_schema_marks_optional_and_nests() {
    assert_eq!(
        compact_schema(&tools()[0].parameters),
        r#"{"query": string (What to look for.), "limit"?: integer | null}"#
    );
    assert_eq!(
        compact_schema(&tools()[1].parameters),
        r#"{"amount": number, "to": "EUR" | "USD", "tags"?: array of string}"#
    );
    assert_eq!(compact_schema(&json!({"type": "object"})), "{}");
}

#[test]
fn templates_are_validated() {
    assert_eq!(
        ReactPrompt::with_template("{tools}\n{format_instructions}"),
        Err(TemplateError::MissingPlaceholder("scratchpad"))
    );
    assert_eq!(
        ReactPrompt::with_template("{tools} {format_instructions} {scratchpad} {input}"),
        Err(TemplateError::UnknownPlaceholder("input".into()))
    );
    assert_eq!(
        ReactPrompt::with_template("{tools} {format_instructions} {scratchpad"),
        Err(TemplateError::Unclosed(30))
    );
    let e = ReactPrompt::with_template("{tools}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("{format_instructions}"), "{e}");
    // Literal braces, every placeholder, no re-expansion of substituted text.
    let custom = ReactPrompt::with_template(
        "Tools ({tool_names}): {tools}\n{format_instructions}\nJSON looks like {{\"a\": 1}}\n{scratchpad}",
    )
    .unwrap();
    let step = ReactStepRecord {
        thought: "t".into(),
        tool: "search".into(),
        input: "{tools}".into(),
        observation: "o".into(),
    };
    let out = custom.render(&tools(), &[step]);
    assert!(
        out.starts_with("Tools (search, convert): search: Search"),
        "{out}"
    );
    assert!(out.contains("JSON looks like {\"a\": 1}"), "{out}");
    assert!(
        out.ends_with("\nThought: t\nAction: search\nAction Input: {tools}\nObservation: o"),
        "{out}"
    );
    assert!(ReactPrompt::with_template(DEFAULT_TEMPLATE).is_ok());
}
