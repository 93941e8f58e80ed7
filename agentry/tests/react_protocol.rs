//! The pieces of the ReAct protocol that touch other parts: a server refusing `tools` (the reason
//! for ReAct), the profile capability, the prompt snapshots and template errors.

use agentry::Message;
use agentry::ToolDefinition;
use agentry::model::{ChatModel, ChatRequest, ModelError, ModelProfile};
use agentry::protocol::ToolProtocol;
use agentry::protocol::react::{
    DEFAULT_TEMPLATE, ReactPrompt, ReactStepRecord, STOP_SEQUENCE, TemplateError, compact_schema,
};
use agentry::testing::{MockResponse, MockServer};
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

mod turn {
    //! One loop turn rendered as text and read back (`protocol::react::turn`), directly.

    use agentry::message::{AssistantMessage, ContentBlock};
    use agentry::model::{ChatRequest, FinishReason, ToolChoice};
    use agentry::protocol::react::turn::{ReplyContext, correction, read_reply, render_request};
    use agentry::protocol::react::{ReactEvent, ReactStream, parse};
    use agentry::{Message, ToolCall};

    fn context() -> ReplyContext {
        ReplyContext {
            tools: super::tools().into_iter().map(Into::into).collect(),
            call_id: "react_3".into(),
        }
    }

    #[test]
    fn a_native_history_renders_as_alternating_react_text() {
        let mut request = ChatRequest::new(vec![
            Message::system("You help."),
            Message::system("Answer in JSON."),
            Message::user("Convert 10 EUR and search it"),
            Message::Assistant(AssistantMessage {
                content: vec![ContentBlock::text("Two things.")],
                tool_calls: vec![
                    ToolCall::new("c1", "convert", r#"{"amount":10,"to":"USD"}"#),
                    ToolCall::new("c2", "search", r#"{"query":"EUR"}"#),
                ],
                refusal: None,
            }),
            Message::tool_result("c1", "convert", "11 USD"),
            Message::tool_result("c2", "search", "3 pages"),
            Message::user("Hurry."),
        ]);
        request.tools = context().tools;
        request.tool_choice = Some(ToolChoice::Auto);
        request.parallel_tool_calls = Some(true);
        let (text, reply) = render_request(request, Some("PROMPT"));
        assert!(text.tools.is_empty() && text.tool_choice.is_none());
        assert_eq!(text.parallel_tool_calls, None);
        assert_eq!(text.stop, ["\nObservation:"]);
        assert_eq!(reply.call_id, "react_2");
        assert_eq!(reply.tools.len(), 2);
        let texts: Vec<String> = text.messages.iter().map(Message::text).collect();
        assert_eq!(
            texts,
            [
                "You help.\n\nAnswer in JSON.\n\nPROMPT",
                "Convert 10 EUR and search it",
                "Thought: Two things.\nAction: convert\nAction Input: {\"amount\":10,\"to\":\"USD\"}\nAction: search\nAction Input: {\"query\":\"EUR\"}",
                "Observation: 11 USD\n\nObservation: 3 pages\n\nHurry.",
            ]
        );
        assert!(matches!(text.messages[3], Message::User(_)));
    }

    #[test]
    fn a_reply_becomes_a_call_an_answer_or_a_correction() {
        let raw = "Thought: convert first\nAction: convert\nAction Input: {\"amount\": 10, \"to\": \"USD\"}\nAction: search\nAction Input: {}";
        let (answer, finish) = read_reply(raw, parse(raw), &context());
        assert_eq!(finish, FinishReason::ToolCalls);
        assert_eq!(answer.tool_calls.len(), 1, "one action per reply");
        assert_eq!(answer.tool_calls[0].id, "react_3");
        assert_eq!(
            answer.tool_calls[0].arguments,
            r#"{"amount": 10, "to": "USD"}"#
        );
        assert_eq!(
            answer.content,
            [ContentBlock::Reasoning {
                text: "convert first".into(),
                signature: None
            }]
        );
        assert_eq!(correction(&answer), None);

        let raw = "Final Answer: 11 USD";
        let (answer, finish) = read_reply(raw, parse(raw), &context());
        assert_eq!(
            (answer.text().as_str(), finish),
            ("11 USD", FinishReason::Stop)
        );

        // A bare text input for a tool with one string argument is that argument.
        let raw = "Action: search\nAction Input: \"rust agents\"";
        let (answer, _) = read_reply(raw, parse(raw), &context());
        assert_eq!(answer.tool_calls[0].arguments, r#"{"query":"rust agents"}"#);

        // A malformed reply keeps the text (rendered back as written) and the correction.
        let raw = "Action: convert";
        let (answer, _) = read_reply(raw, parse(raw), &context());
        assert!(
            correction(&answer)
                .unwrap()
                .contains("`Action: convert` must be followed by an `Action Input:`")
        );
        assert!(answer.tool_calls.is_empty() && answer.text().is_empty());
        let (text, _) = render_request(ChatRequest::new(vec![Message::Assistant(answer)]), None);
        assert_eq!(text.messages[0].text(), "Action: convert");

        // Asked without tools, a reply with no markers is the answer.
        let raw = "Thought: It is 11 USD.";
        let none = ReplyContext::default();
        let (answer, _) = read_reply(raw, parse(raw), &none);
        assert_eq!(answer.text(), "It is 11 USD.");
        assert_eq!(correction(&answer), None);
    }

    #[test]
    fn the_streamed_action_equals_the_parsed_one_at_every_split() {
        let raw = "Thought: go\nAction: convert\nAction Input: ```json\n{\"amount\": 1, \"to\": \"EUR\"}\n```\ntrailing";
        let whole = read_reply(raw, parse(raw), &context()).0;
        for split in 0..=raw.len() {
            let mut stream = ReactStream::new();
            let mut found = stream.push(&raw[..split]);
            found.extend(stream.push(&raw[split..]));
            let (rest, result) = stream.finish();
            found.extend(rest);
            let actions = found
                .iter()
                .filter(|e| matches!(e, ReactEvent::Action(_)))
                .count();
            assert_eq!(actions, 1, "split at {split}");
            assert_eq!(
                read_reply(raw, result, &context()).0,
                whole,
                "split at {split}"
            );
        }
    }
}
