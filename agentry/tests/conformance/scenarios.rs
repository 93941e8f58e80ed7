//! The scenarios, written once against [`Wire`] and run for every provider.

use agentry::model::{
    ChatRequest, FinishReason, ModelError, ResponseFormat, StreamEvent, ToolChoice,
};
use agentry::{Message, ToolCall, ToolDefinition, Usage};
use futures::StreamExt;
use serde_json::{Value, json};

pub use super::errors::{error_inside_stream, errors, stream_cut_off};

use super::server::Server;
use super::wire::{Call, Finish, SentResult, Turn, TurnUsage, Wire};

/// The key every conformance model uses; it must never appear in an error.
pub const KEY: &str = "sk-conformance-secret-0123456789";

pub fn weather() -> ToolDefinition {
    ToolDefinition::new(
        "get_weather",
        "Current weather for a city.",
        json!({
            "type": "object",
            "properties": { "city": { "type": "string", "description": "City name." } },
            "required": ["city"]
        }),
        false,
    )
}

pub fn local_time() -> ToolDefinition {
    ToolDefinition::new(
        "local_time",
        "Local time in a city.",
        json!({
            "type": "object",
            "properties": { "city": { "type": "string" }, "format": { "type": "string", "enum": ["12h", "24h"] } },
            "required": ["city"]
        }),
        false,
    )
}

fn call(id: &str, name: &str, args: Value) -> Call {
    Call {
        id: id.into(),
        name: name.into(),
        args,
    }
}

pub(super) fn usage() -> TurnUsage {
    TurnUsage {
        input: 50,
        cached: 0,
        output: 12,
    }
}

fn two_calls() -> Turn {
    Turn {
        text: None,
        calls: vec![
            call("call_paris", "get_weather", json!({ "city": "Paris" })),
            call(
                "call_rome",
                "local_time",
                json!({ "city": "Rome", "format": "24h" }),
            ),
        ],
        usage: usage(),
        finish: Finish::ToolCalls,
    }
}

pub(super) fn request(tools: Vec<ToolDefinition>) -> ChatRequest {
    let mut req = ChatRequest::new(vec![
        Message::system("Be brief."),
        Message::user("Weather in Paris, time in Rome?"),
    ]);
    req.tools = tools.into_iter().map(Into::into).collect();
    req
}

fn check_call(w: &dyn Wire, got: &ToolCall, want: &Call) {
    assert_eq!(got.name, want.name, "[{}] tool name", w.name());
    let args: Value = serde_json::from_str(&got.arguments).unwrap_or_else(|e| {
        panic!(
            "[{}] arguments are not JSON ({e}): {}",
            w.name(),
            got.arguments
        )
    });
    assert_eq!(args, want.args, "[{}] arguments", w.name());
    if w.has_call_ids() {
        assert_eq!(got.id, want.id, "[{}] call id", w.name());
    } else {
        assert!(!got.id.is_empty(), "[{}] a synthesized call id", w.name());
    }
}

/// Collects a stream: the events before the end, and how it ended.
pub(super) async fn collect(
    stream: agentry::model::EventStream,
) -> (Vec<StreamEvent>, Option<ModelError>) {
    let mut events = Vec::new();
    let mut stream = stream;
    while let Some(item) = stream.next().await {
        match item {
            Ok(ev) => events.push(ev),
            Err(e) => {
                assert!(stream.next().await.is_none(), "nothing may follow an error");
                return (events, Some(e));
            }
        }
    }
    (events, None)
}

fn completed(events: &[StreamEvent]) -> &agentry::model::ChatResponse {
    match events.last() {
        Some(StreamEvent::Completed { response }) => response,
        other => panic!("the stream must end with Completed, ended with {other:?}"),
    }
}

pub(super) fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            StreamEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

pub async fn single_tool_call(w: &dyn Wire) {
    let turn = Turn {
        text: None,
        calls: vec![call("call_1", "get_weather", json!({ "city": "Paris" }))],
        usage: usage(),
        finish: Finish::ToolCalls,
    };
    let server = Server::start(vec![w.reply(&turn, false)]).await;
    let model = w.model(&server.url());
    let mut req = request(vec![weather()]);
    req.tool_choice = Some(ToolChoice::Required);
    let r = model.invoke(req).await.unwrap();
    assert_eq!(r.finish_reason, FinishReason::ToolCalls, "[{}]", w.name());
    assert_eq!(r.message.tool_calls.len(), 1, "[{}]", w.name());
    check_call(w, &r.message.tool_calls[0], &turn.calls[0]);
    let rec = server.request();
    w.assert_endpoint(&rec, false);
    assert!(!w.is_stream(&rec), "[{}] not a stream", w.name());
    w.assert_tools(&rec.body, &[weather()], "required", None);
    assert_eq!(
        w.system(&rec.body).as_deref(),
        Some("Be brief."),
        "[{}] system prompt",
        w.name()
    );
}

pub async fn tool_choice_modes(w: &dyn Wire) {
    let answer = Turn {
        text: Some("ok".into()),
        calls: vec![],
        usage: usage(),
        finish: Finish::Stop,
    };
    let cases: [(Option<ToolChoice>, &str, Option<bool>); 5] = [
        (Some(ToolChoice::Auto), "auto", None),
        (Some(ToolChoice::None), "none", None),
        (Some(ToolChoice::Required), "required", None),
        (
            Some(ToolChoice::Tool("local_time".into())),
            "local_time",
            None,
        ),
        (None, "auto", Some(false)),
    ];
    let server = Server::start(cases.iter().map(|_| w.reply(&answer, false)).collect()).await;
    let model = w.model(&server.url());
    for (choice, _, parallel) in &cases {
        let mut req = request(vec![weather(), local_time()]);
        req.tool_choice = choice.clone();
        req.parallel_tool_calls = *parallel;
        model.invoke(req).await.unwrap();
    }
    for (rec, (_, name, parallel)) in server.requests().iter().zip(&cases) {
        w.assert_tools(&rec.body, &[weather(), local_time()], name, *parallel);
    }
    // A named tool that is not in the request is refused before anything is sent.
    let mut req = request(vec![weather()]);
    req.tool_choice = Some(ToolChoice::Tool("nope".into()));
    let err = model.invoke(req).await.unwrap_err();
    assert!(
        matches!(err, ModelError::InvalidRequest { .. }),
        "[{}] {err:?}",
        w.name()
    );
    assert_eq!(
        server.requests().len(),
        cases.len(),
        "[{}] nothing sent",
        w.name()
    );
}

pub async fn parallel_tool_calls(w: &dyn Wire) {
    let turn = two_calls();
    let server = Server::start(vec![w.reply(&turn, false)]).await;
    let model = w.model(&server.url());
    let r = model
        .invoke(request(vec![weather(), local_time()]))
        .await
        .unwrap();
    assert_eq!(r.finish_reason, FinishReason::ToolCalls, "[{}]", w.name());
    assert_eq!(r.message.tool_calls.len(), 2, "[{}]", w.name());
    for (got, want) in r.message.tool_calls.iter().zip(&turn.calls) {
        check_call(w, got, want);
    }
    assert_ne!(
        r.message.tool_calls[0].id,
        r.message.tool_calls[1].id,
        "[{}] distinct ids",
        w.name()
    );
}

/// The conversation after [`two_calls`]: the model's calls (as a previous answer returned
/// them) and one result per call.
pub async fn tool_result_follow_up(w: &dyn Wire) {
    let calls = two_calls();
    let answer = Turn {
        text: Some("18°C in Paris; 14:05 in Rome.".into()),
        calls: vec![],
        usage: usage(),
        finish: Finish::Stop,
    };
    let server = Server::start(vec![w.reply(&calls, false), w.reply(&answer, false)]).await;
    let model = w.model(&server.url());
    let first = model
        .invoke(request(vec![weather(), local_time()]))
        .await
        .unwrap();
    let mut history = request(vec![weather(), local_time()]).messages;
    history.push(Message::Assistant(first.message.clone()));
    let outputs = ["18°C, clear", "14:05"];
    for (call, output) in first.message.tool_calls.iter().zip(outputs) {
        history.push(Message::tool_result(&call.id, &call.name, output));
    }
    let mut req = ChatRequest::new(history);
    req.tools = vec![weather().into(), local_time().into()].into();
    let r = model.invoke(req).await.unwrap();
    assert_eq!(
        r.message.text(),
        "18°C in Paris; 14:05 in Rome.",
        "[{}]",
        w.name()
    );
    assert_eq!(r.finish_reason, FinishReason::Stop, "[{}]", w.name());
    assert!(r.message.tool_calls.is_empty());

    let rec = &server.requests()[1];
    let (sent_calls, results) = w.sent_calls_and_results(&rec.body);
    assert_eq!(sent_calls.len(), 2, "[{}] calls sent back", w.name());
    for (sent, want) in sent_calls.iter().zip(&calls.calls) {
        assert_eq!(
            (&sent.name, &sent.args),
            (&want.name, &want.args),
            "[{}] call sent back",
            w.name()
        );
    }
    let expected: Vec<SentResult> = first
        .message
        .tool_calls
        .iter()
        .zip(outputs)
        .map(|(c, o)| SentResult {
            id: w.has_call_ids().then(|| c.id.clone()),
            name: (!w.has_call_ids()).then(|| c.name.clone()),
            output: o.to_owned(),
        })
        .collect();
    assert_eq!(results, expected, "[{}] results sent back", w.name());
    if w.has_call_ids() {
        let ids: Vec<&str> = sent_calls.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            ["call_paris", "call_rome"],
            "[{}] call ids sent back",
            w.name()
        );
    }
}

pub async fn streamed_tool_calls(w: &dyn Wire) {
    let mut turn = two_calls();
    turn.text = Some("Checking both — one moment.".into());
    let server = Server::start(vec![w.reply(&turn, true)]).await;
    let model = w.model(&server.url());
    let (events, err) = collect(model.stream(request(vec![weather(), local_time()]))).await;
    assert!(err.is_none(), "[{}] {err:?}", w.name());
    assert_eq!(
        text_of(&events),
        "Checking both — one moment.",
        "[{}]",
        w.name()
    );
    let mut starts = Vec::new();
    let mut args = [String::new(), String::new()];
    for ev in &events {
        match ev {
            StreamEvent::ToolCallStart { index, name, .. } => starts.push((*index, name.clone())),
            StreamEvent::ToolCallDelta { index, arguments } => args[*index].push_str(arguments),
            _ => {}
        }
    }
    assert_eq!(
        starts,
        vec![(0, "get_weather".to_owned()), (1, "local_time".to_owned())],
        "[{}]",
        w.name()
    );
    for (streamed, want) in args.iter().zip(&turn.calls) {
        let v: Value = serde_json::from_str(streamed)
            .unwrap_or_else(|e| panic!("[{}] {e}: {streamed}", w.name()));
        assert_eq!(v, want.args, "[{}] streamed arguments", w.name());
    }
    let r = completed(&events);
    assert_eq!(r.finish_reason, FinishReason::ToolCalls, "[{}]", w.name());
    assert_eq!(r.message.text(), "Checking both — one moment.");
    for (got, want) in r.message.tool_calls.iter().zip(&turn.calls) {
        check_call(w, got, want);
    }
    let rec = server.request();
    w.assert_endpoint(&rec, true);
    assert!(w.is_stream(&rec), "[{}] asked for a stream", w.name());
}

pub async fn structured_output(w: &dyn Wire) {
    let schema = json!({
        "type": "object",
        "properties": { "city": { "type": "string" }, "temp_c": { "type": "number" } },
        "required": ["city", "temp_c"],
        "additionalProperties": false
    });
    let answer = Turn {
        text: Some(r#"{"city":"Paris","temp_c":18.5}"#.into()),
        calls: vec![],
        usage: usage(),
        finish: Finish::Stop,
    };
    let server = Server::start(vec![w.reply(&answer, false), w.reply(&answer, true)]).await;
    let model = w.model(&server.url());
    let mut req = ChatRequest::new(vec![Message::user("Weather in Paris as JSON")]);
    req.response_format = Some(ResponseFormat::JsonSchema {
        name: "Weather".into(),
        description: None,
        schema: schema.clone(),
        strict: true,
    });
    let r = model.invoke(req.clone()).await.unwrap();
    let value: Value = serde_json::from_str(&r.message.text()).unwrap();
    assert_eq!(value, json!({ "city": "Paris", "temp_c": 18.5 }));
    let (events, err) = collect(model.stream(req)).await;
    assert!(err.is_none(), "[{}] {err:?}", w.name());
    assert_eq!(
        completed(&events).message.text(),
        r#"{"city":"Paris","temp_c":18.5}"#
    );
    for rec in server.requests() {
        w.assert_structured(&rec.body, "Weather", &schema);
    }
}

pub async fn usage_and_length(w: &dyn Wire) {
    let turn = Turn {
        text: Some("A long answer that was cut".into()),
        calls: vec![],
        usage: TurnUsage {
            input: 1200,
            cached: 1000,
            output: 64,
        },
        finish: Finish::Length,
    };
    let server = Server::start(vec![w.reply(&turn, false), w.reply(&turn, true)]).await;
    let model = w.model(&server.url());
    let want = Usage {
        input_tokens: 1200,
        cached_input_tokens: 1000,
        output_tokens: 64,
        requests: 1,
        ..Usage::default()
    };
    let r = model.invoke(request(vec![])).await.unwrap();
    assert_eq!(r.usage, want, "[{}] usage", w.name());
    assert_eq!(r.finish_reason, FinishReason::Length, "[{}]", w.name());
    let (events, err) = collect(model.stream(request(vec![]))).await;
    assert!(err.is_none(), "[{}] {err:?}", w.name());
    let r = completed(&events);
    assert_eq!(r.usage, want, "[{}] streamed usage", w.name());
    assert_eq!(r.finish_reason, FinishReason::Length, "[{}]", w.name());
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::Usage { usage } if *usage == want)),
        "[{}] a Usage event",
        w.name()
    );
}
