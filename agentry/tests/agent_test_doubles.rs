//! The test doubles behave like models: ordered turns, recorded requests, streams that
//! assemble into the same answer `invoke` gives.

use agentry::model::{ChatModel, ChatRequest, ChatResponse, FinishReason, ModelError, StreamEvent};
use agentry::testing::{FunctionModel, ScriptedModel, Turn};
use agentry::{ContentBlock, Message, ToolCall, Usage};
use futures::StreamExt;
use serde_json::json;

async fn collect(model: &dyn ChatModel) -> Vec<Result<StreamEvent, ModelError>> {
    model.stream(ChatRequest::default()).collect().await
}

/// Rebuilds an answer from deltas, the way a consumer of the stream would.
fn reassemble(events: &[Result<StreamEvent, ModelError>]) -> (String, String, Vec<ToolCall>) {
    let (mut text, mut reasoning, mut calls) =
        (String::new(), String::new(), Vec::<ToolCall>::new());
    for event in events.iter().flatten() {
        match event {
            StreamEvent::TextDelta { text: t } => text.push_str(t),
            StreamEvent::ReasoningDelta { text: t } => reasoning.push_str(t),
            StreamEvent::ToolCallStart { index, id, name } => {
                assert_eq!(*index, calls.len(), "calls start in order");
                calls.push(ToolCall::new(id.clone(), name.clone(), ""));
            }
            StreamEvent::ToolCallDelta { index, arguments } => {
                calls[*index].arguments.push_str(arguments)
            }
            _ => {}
        }
    }
    (text, reasoning, calls)
}

#[tokio::test]
async fn turns_are_answered_in_order_and_requests_recorded() {
    let model = ScriptedModel::new([
        Turn::tool_call("get_weather", json!({ "city": "Paris" })),
        Turn::text("It is sunny.").with_usage(Usage {
            input_tokens: 12,
            output_tokens: 4,
            ..Usage::default()
        }),
    ]);
    let first = model
        .invoke(ChatRequest::new(vec![Message::user("one")]))
        .await
        .unwrap();
    assert_eq!(first.finish_reason, FinishReason::ToolCalls);
    assert_eq!(
        first.message.tool_calls,
        vec![ToolCall::new(
            "call_get_weather",
            "get_weather",
            r#"{"city":"Paris"}"#
        )]
    );
    assert_eq!(first.model, "scripted");
    assert_eq!(model.remaining(), 1);

    let second = model
        .invoke(ChatRequest::new(vec![Message::user("two")]))
        .await
        .unwrap();
    assert_eq!(second.message.text(), "It is sunny.");
    assert_eq!(second.finish_reason, FinishReason::Stop);
    assert_eq!(second.usage.input_tokens, 12);
    assert_eq!(second.usage.requests, 1);

    model.assert_complete();
    let texts: Vec<String> = model
        .requests()
        .iter()
        .map(|r| r.messages[0].text())
        .collect();
    assert_eq!(texts, ["one", "two"]);
}

#[tokio::test]
async fn an_exhausted_script_is_an_error_not_a_panic() {
    let model = ScriptedModel::new([]);
    let err = model.invoke(ChatRequest::default()).await.unwrap_err();
    assert!(
        matches!(&err, ModelError::Configuration(m) if m.contains("no turn left")),
        "{err}"
    );
    let events = collect(&model).await;
    assert!(matches!(
        events.as_slice(),
        [Err(ModelError::Configuration(_))]
    ));
    assert_eq!(model.request_count(), 2);
}

#[tokio::test]
#[should_panic(expected = "1 scripted turn(s) were never requested")]
async fn assert_complete_fails_when_turns_remain() {
    ScriptedModel::new([Turn::text("unused")]).assert_complete();
}

#[tokio::test]
async fn error_turns_fail_the_request() {
    let err = ModelError::Server {
        status: 503,
        message: "overloaded".into(),
    };
    let model = ScriptedModel::new([Turn::error(err.clone()), Turn::error(err.clone())]);
    assert_eq!(model.invoke(ChatRequest::default()).await.unwrap_err(), err);
    assert_eq!(collect(&model).await, vec![Err(err)]);
}

#[tokio::test]
async fn a_streamed_turn_reassembles_into_the_invoked_answer() {
    let turn = Turn::tool_calls([
        ToolCall::new("a", "get_weather", r#"{"city":"Paris"}"#),
        ToolCall::new("b", "get_weather", r#"{"city":"Rome"}"#),
    ])
    .with_text("Let me check both cities.")
    .with_reasoning("Two lookups are needed.")
    .with_usage(Usage {
        input_tokens: 5,
        output_tokens: 7,
        ..Usage::default()
    });
    let model = ScriptedModel::new([turn.clone(), turn]);

    let invoked = model.invoke(ChatRequest::default()).await.unwrap();
    let events = collect(&model).await;

    let Some(Ok(StreamEvent::Completed { response })) = events.last() else {
        panic!("the stream must end in Completed: {events:?}");
    };
    assert_eq!(**response, invoked);
    let (text, reasoning, calls) = reassemble(&events);
    assert_eq!(text, "Let me check both cities.");
    assert_eq!(reasoning, "Two lookups are needed.");
    assert_eq!(calls, invoked.message.tool_calls);
    // Several text deltas, and argument deltas of the two calls interleaved.
    let deltas: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Ok(StreamEvent::ToolCallDelta { index, .. }) => Some(*index),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, [0, 1, 0, 1]);
    assert!(
        events
            .iter()
            .filter(|e| matches!(e, Ok(StreamEvent::TextDelta { .. })))
            .count()
            > 1
    );
    assert!(
        events
            .iter()
            .any(|e| matches!(e, Ok(StreamEvent::Usage { usage }) if usage.output_tokens == 7))
    );
}

#[tokio::test]
async fn chunk_turns_stream_as_given_and_invoke_assembles_them() {
    let chunks = vec![
        Ok(StreamEvent::TextDelta { text: "Hel".into() }),
        Ok(StreamEvent::TextDelta { text: "lo".into() }),
        Ok(StreamEvent::Usage {
            usage: Usage {
                output_tokens: 2,
                requests: 1,
                ..Usage::default()
            },
        }),
    ];
    let model = ScriptedModel::new([Turn::chunks(chunks.clone()), Turn::chunks(chunks.clone())]);
    let invoked = model.invoke(ChatRequest::default()).await.unwrap();
    assert_eq!(invoked.message.content, vec![ContentBlock::text("Hello")]);
    assert_eq!(invoked.usage.output_tokens, 2);

    let events = collect(&model).await;
    assert_eq!(&events[..3], &chunks[..]);
    assert!(matches!(&events[3], Ok(StreamEvent::Completed { response }) if **response == invoked));
}

#[tokio::test]
async fn a_cut_off_stream_ends_in_its_error() {
    let cut = ModelError::Incomplete("connection reset".into());
    let model = ScriptedModel::new([Turn::chunks([
        Ok(StreamEvent::TextDelta { text: "Hel".into() }),
        Err(cut.clone()),
    ])]);
    let events = collect(&model).await;
    assert_eq!(events.len(), 2);
    assert_eq!(events[1], Err(cut));
}

#[tokio::test]
async fn function_model_answers_from_the_request() {
    let model = FunctionModel::new(|req: &ChatRequest| -> Result<ChatResponse, ModelError> {
        match req.messages.last() {
            Some(Message::Tool(_)) => Ok(FunctionModel::text("done")),
            Some(_) => Ok(FunctionModel::tool_call("lookup", json!({ "q": 1 }))),
            None => Err(ModelError::InvalidRequest {
                message: "no messages".into(),
                param: Some("messages".into()),
            }),
        }
    })
    .with_name("fn-model")
    .yielding();
    let first = model
        .invoke(ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap();
    assert_eq!(first.message.tool_calls[0].arguments, r#"{"q":1}"#);
    assert_eq!(first.model, "fn-model");
    let second = model
        .invoke(ChatRequest::new(vec![Message::tool_result(
            "call_lookup",
            "lookup",
            "1",
        )]))
        .await
        .unwrap();
    assert_eq!(second.message.text(), "done");
    assert!(model.invoke(ChatRequest::default()).await.is_err());
    let events: Vec<_> = model
        .stream(ChatRequest::new(vec![Message::user("x")]))
        .collect()
        .await;
    assert!(
        matches!(events.last(), Some(Ok(StreamEvent::Completed { response })) if response.message.tool_calls.len() == 1)
    );
    assert_eq!(model.calls(), 4);
}

/// `agentry::testing::scripting`: a request's tool results and final answers shaped by the
/// output mode the request asks for.
mod scripting {
    use agentry::testing::{MockResponse, RecordedRequest};
    use bytes::Bytes;
    use serde_json::{Value, json};

    fn request(body: Value) -> RecordedRequest {
        RecordedRequest {
            method: "POST".into(),
            path: "/v1/chat/completions".into(),
            headers: Vec::new(),
            raw_body: Bytes::from(body.to_string()),
            body,
        }
    }

    fn conversation() -> Value {
        json!([
            { "role": "user", "content": "Paris?" },
            { "role": "assistant", "tool_calls": [{ "id": "a", "type": "function",
              "function": { "name": "w", "arguments": "{}" } }] },
            { "role": "tool", "tool_call_id": "a", "content": "sunny" },
            { "role": "assistant", "content": "Sunny." },
            { "role": "user", "content": [{ "type": "text", "text": "And Rome?" }] },
            { "role": "assistant", "tool_calls": [{ "id": "b", "type": "function",
              "function": { "name": "w", "arguments": "{}" } }] },
            { "role": "tool", "tool_call_id": "b", "content": "hot" }
        ])
    }

    #[test]
    fn reads_tool_results_and_the_last_user_message() {
        let r = request(json!({ "messages": conversation() }));
        assert_eq!(
            r.tool_results(),
            [("a".into(), "sunny".into()), ("b".into(), "hot".into())]
        );
        assert_eq!(
            r.tool_results_since_last_user(),
            [("b".to_string(), "hot".to_string())]
        );
        assert_eq!(r.last_user_text(), "And Rome?");
    }

    #[test]
    fn a_final_answer_takes_the_shape_the_request_asks_for() {
        let value = json!({ "summary": "hot" });
        let tool = request(json!({
            "messages": conversation(),
            "tools": [{ "type": "function", "function": { "name": "Forecast", "parameters": {} } }]
        }));
        assert!(tool.offers_output_tool("Forecast"));
        let native = request(json!({
            "messages": conversation(),
            "tools": [{ "type": "function", "function": { "name": "Forecast", "parameters": {} } }],
            "response_format": { "type": "json_schema" }
        }));
        assert!(!native.offers_output_tool("Forecast"));
        let as_tool = format!(
            "{:?}",
            MockResponse::final_answer(&tool, "Forecast", value.clone())
        );
        let as_text = format!(
            "{:?}",
            MockResponse::final_answer(&native, "Forecast", value)
        );
        assert!(as_tool.contains("call_final"), "{as_tool}");
        assert!(!as_text.contains("call_final"), "{as_text}");
    }
}
