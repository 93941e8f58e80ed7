//! Middleware hooks against scripted models: order, typed context and state, flow control,
//! for `run` and `stream`.

use std::sync::{Arc, Mutex};

use agentry::agent::{AgentEvent, RunErrorKind, StopReason};
use agentry::middleware::{
    AfterModel, BeforeModel, Flow, Hook, Middleware, MiddlewareError, ModelNext, ModelRequest,
    RunCx, ToolNext,
};
use agentry::model::{ChatResponse, ModelError};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{AssistantMessage, ToolCallError};
use futures::StreamExt;
use serde_json::json;

#[derive(Debug)]
struct User {
    name: String,
}

#[derive(Debug, Default, Clone, PartialEq)]
struct Log {
    entries: Vec<String>,
}

/// Add two numbers.
///
/// # Arguments
/// * `a` - First.
/// * `b` - Second.
#[tool]
fn add(a: i64, b: i64, log: State<Log>) -> i64 {
    log.update(move |l| l.entries.push(format!("tool add {a}+{b}")));
    a + b
}

/// Adds numbers.
#[agent(tools(add), context = User, state = Log)]
struct Adder;

type Trace = Arc<Mutex<Vec<String>>>;

/// Records every hook it sees, and writes to the typed state.
struct Recorder {
    name: &'static str,
    trace: Trace,
}

impl Recorder {
    fn push(&self, what: &str) {
        self.trace
            .lock()
            .unwrap()
            .push(format!("{}.{what}", self.name));
    }
}

impl Middleware<User, Log> for Recorder {
    fn name(&self) -> &str {
        self.name
    }

    fn before_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, User, Log>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        self.push(&format!("before_agent({} messages)", messages.len()));
        assert_eq!(cx.context().name, "ada");
        Hook::ready(Ok(Flow::Continue))
    }

    fn before_model<'a>(
        &'a self,
        _request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, User, Log>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        self.push(&format!("before_model(turn {})", cx.turn()));
        let entry = format!("{} saw {} entries", self.name, cx.state().entries.len());
        cx.update(move |l| l.entries.push(entry));
        Hook::ready(Ok(Flow::Continue))
    }

    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        _cx: &'a RunCx<'a, User, Log>,
        next: ModelNext<'a, User, Log>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        Hook::boxed(async move {
            self.push("wrap_model_call:enter");
            let answer = next.run(request).await;
            self.push("wrap_model_call:exit");
            answer
        })
    }

    fn after_model<'a>(
        &'a self,
        _response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, User, Log>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        self.push("after_model");
        Hook::ready(Ok(AfterModel::Continue))
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        runtime: &'a ToolRuntime<User, Log>,
        next: ToolNext<'a, User, Log>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        Hook::boxed(async move {
            self.push("wrap_tool_call:enter");
            // The same queue the tool uses: applied in call order with the tool's updates.
            let state: State<Log> = agentry::Inject::inject(runtime).unwrap();
            let name = self.name;
            state.update(move |l| l.entries.push(format!("{name} wraps tool")));
            let out = next.run(call).await;
            self.push("wrap_tool_call:exit");
            out
        })
    }

    fn after_agent<'a>(
        &'a self,
        _messages: &'a mut Vec<Message>,
        _cx: &'a RunCx<'a, User, Log>,
    ) -> Hook<'a, Result<(), MiddlewareError>> {
        self.push("after_agent");
        Hook::ready(Ok(()))
    }
}

fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call("add", json!({"a": 2, "b": 3})),
        Turn::text("5"),
    ])
}

fn agent_with(
    trace: &Trace,
    model: ScriptedModel,
) -> agentry::agent::Agent<Adder, agentry::output::TextOutput, User, Log> {
    Adder::builder(model)
        .middleware(Recorder {
            name: "A",
            trace: Arc::clone(trace),
        })
        .middleware(Recorder {
            name: "B",
            trace: Arc::clone(trace),
        })
        .build()
}

fn user() -> User {
    User {
        name: "ada".to_string(),
    }
}

const EXPECTED_ORDER: [&str; 25] = [
    "A.before_agent(2 messages)",
    "B.before_agent(2 messages)",
    "A.before_model(turn 1)",
    "B.before_model(turn 1)",
    "A.wrap_model_call:enter",
    "B.wrap_model_call:enter",
    "B.wrap_model_call:exit",
    "A.wrap_model_call:exit",
    "B.after_model",
    "A.after_model",
    "A.wrap_tool_call:enter",
    "B.wrap_tool_call:enter",
    "B.wrap_tool_call:exit",
    "A.wrap_tool_call:exit",
    "A.before_model(turn 2)",
    "B.before_model(turn 2)",
    "A.wrap_model_call:enter",
    "B.wrap_model_call:enter",
    "B.wrap_model_call:exit",
    "A.wrap_model_call:exit",
    "B.after_model",
    "A.after_model",
    "B.after_agent",
    "A.after_agent",
    "",
];

fn expected_state() -> Vec<String> {
    [
        "A saw 0 entries",
        "B saw 1 entries",
        "A wraps tool",
        "B wraps tool",
        "tool add 2+3",
        "A saw 5 entries",
        "B saw 6 entries",
    ]
    .map(String::from)
    .to_vec()
}

#[tokio::test]
async fn hooks_run_in_langchain_order_with_typed_context_and_ordered_state_updates() {
    let trace = Trace::default();
    let agent = agent_with(&trace, script());
    let run = agent.run("2 + 3?", user()).await.unwrap();
    assert_eq!(run.output, "5");
    assert_eq!(*trace.lock().unwrap(), EXPECTED_ORDER[..24].to_vec());
    assert_eq!(run.state.entries, expected_state());
}

#[tokio::test]
async fn hooks_run_the_same_when_streaming_and_deltas_pass_through() {
    let trace = Trace::default();
    let agent = agent_with(&trace, script());
    let mut stream = agent.stream("2 + 3?", user());
    let mut text = String::new();
    let mut done = None;
    while let Some(event) = stream.next().await {
        match event.unwrap() {
            AgentEvent::TextDelta { text: t } => text.push_str(&t),
            AgentEvent::Done { .. } => done = Some(()),
            _ => {}
        }
    }
    done.expect("the stream ends with Done");
    let run = stream.result().await.unwrap();
    assert_eq!(text, "5", "the wrapped model's stream reaches the caller");
    assert_eq!(*trace.lock().unwrap(), EXPECTED_ORDER[..24].to_vec());
    assert_eq!(run.state.entries, expected_state());
}

/// Answers from a cache: never calls the model.
struct Cached;

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for Cached {
    fn wrap_model_call<'a>(
        &'a self,
        _request: ModelRequest,
        _cx: &'a RunCx<'a, C, S>,
        _next: ModelNext<'a, C, S>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        let model = agentry::testing::FunctionModel::text("from cache");
        Hook::ready(Ok(model))
    }
}

#[tokio::test]
async fn wrap_model_call_can_short_circuit_the_model() {
    let model = Arc::new(ScriptedModel::new([]));
    let agent = Adder::builder(Arc::clone(&model))
        .middleware(Cached)
        .build();
    let run = agent.run("hi", user()).await.unwrap();
    assert_eq!(run.output, "from cache");
    assert_eq!(model.request_count(), 0);
}

/// Rewrites `add`'s arguments, and answers for unknown tools.
struct EditArgs;

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for EditArgs {
    fn wrap_tool_call<'a>(
        &'a self,
        mut call: ToolCall,
        _runtime: &'a ToolRuntime<C, S>,
        next: ToolNext<'a, C, S>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        if call.name == "lookup" {
            return Hook::ready(Ok(ToolOutput::text("answered by middleware")));
        }
        call.arguments = r#"{"a": 40, "b": 2}"#.to_string();
        next.run(call)
    }
}

#[tokio::test]
async fn wrap_tool_call_edits_arguments_and_answers_in_the_tools_place() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("c1", "add", r#"{"a": 1, "b": 1}"#),
            ToolCall::new("c2", "lookup", "{}"),
        ]),
        Turn::text("done"),
    ]));
    let agent = Adder::builder(Arc::clone(&model))
        .middleware(EditArgs)
        .build();
    let run = agent.run("go", user()).await.unwrap();
    assert_eq!(run.steps[0].result.as_ref().unwrap().text_content(), "42");
    assert_eq!(
        run.steps[1].result.as_ref().unwrap().text_content(),
        "answered by middleware"
    );
    assert_eq!(run.state.entries, vec!["tool add 40+2".to_string()]);
}

/// Ends before the model is asked when the user says "stop"; refuses "forbidden".
struct Gate;

impl<S: Send + Sync + 'static> Middleware<User, S> for Gate {
    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        _cx: &'a RunCx<'a, User, S>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        let last = request
            .messages
            .last()
            .map(Message::text)
            .unwrap_or_default();
        Hook::ready(match last.as_str() {
            "stop" => Ok(Flow::End(AssistantMessage {
                content: vec![ContentBlock::text("stopped early")],
                ..AssistantMessage::default()
            })),
            "forbidden" => Err(MiddlewareError::new("Gate", "that topic is not allowed")),
            _ => Ok(Flow::Continue),
        })
    }
}

#[tokio::test]
async fn before_model_ends_the_run_or_fails_it() {
    let model = Arc::new(ScriptedModel::new([]));
    let agent = Adder::builder(Arc::clone(&model)).middleware(Gate).build();
    let run = agent.run("stop", user()).await.unwrap();
    assert_eq!(run.output, "stopped early");
    assert_eq!(
        run.stop_reason,
        StopReason::Ended {
            by: "Gate".to_string()
        }
    );
    let err = agent.run("forbidden", user()).await.unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Middleware(e) if e.middleware == "Gate"),
        "{err}"
    );
    assert_eq!(model.request_count(), 0);
}

/// Sends an answer without "please" back once.
struct Polite;

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for Polite {
    fn after_model<'a>(
        &'a self,
        response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, C, S>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        let text = response.message.text();
        Hook::ready(Ok(
            if text.contains("please") || !response.message.tool_calls.is_empty() {
                response.message.content = vec![ContentBlock::text(text.to_uppercase())];
                AfterModel::Continue
            } else {
                AfterModel::AskAgain(vec![Message::user("Say please.")])
            },
        ))
    }
}

#[tokio::test]
async fn after_model_edits_the_answer_and_asks_again() {
    let model = Arc::new(ScriptedModel::new([
        Turn::text("no"),
        Turn::text("yes please"),
    ]));
    let agent = Adder::builder(Arc::clone(&model))
        .middleware(Polite)
        .build();
    let run = agent.run("hi", user()).await.unwrap();
    assert_eq!(run.output, "YES PLEASE");
    assert_eq!(model.request_count(), 2);
    assert_eq!(run.usage.requests, 2, "the set-aside answer's usage counts");
    let texts: Vec<String> = run.messages.iter().map(Message::text).collect();
    assert_eq!(
        texts,
        ["Adds numbers.", "hi", "no", "Say please.", "YES PLEASE"]
    );
}
