//! Hooks left at their default are learned on their first call and skipped afterwards; a
//! hook a middleware implements still sees every call.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentry::middleware::{
    AfterModel, BeforeModel, Flow, Hook, Middleware, MiddlewareError, ModelNext, ModelRequest,
    RunCx, ToolNext,
};
use agentry::model::{ChatResponse, ModelError};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{ToolCallError, ToolOutput, ToolRuntime};
use serde_json::json;

/// Add two numbers.
///
/// # Arguments
/// * `a` - First.
/// * `b` - Second.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Adds numbers.
#[agent(tools(add))]
struct Adder;

/// A middleware with no hook of its own.
struct Plain;

impl Middleware for Plain {}

/// How often each hook of [`Observed`] was entered.
#[derive(Default)]
struct Calls {
    before_agent: AtomicUsize,
    before_model: AtomicUsize,
    wrap_model: AtomicUsize,
    after_model: AtomicUsize,
    wrap_tool: AtomicUsize,
    after_agent: AtomicUsize,
}

fn bump(counter: &AtomicUsize) {
    counter.fetch_add(1, Ordering::Relaxed);
}

fn count(counter: &AtomicUsize) -> usize {
    counter.load(Ordering::Relaxed)
}

/// Counts every hook it is asked to run. Every hook but `after_model` hands back
/// [`Plain`]'s default hook, so it counts as left at its default; `after_model` is its own.
struct Observed(Arc<Calls>);

impl Middleware for Observed {
    fn before_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, (), ()>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        bump(&self.0.before_agent);
        Plain.before_agent(messages, cx)
    }

    fn before_model<'a>(
        &'a self,
        request: &'a mut BeforeModel,
        cx: &'a RunCx<'a, (), ()>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        bump(&self.0.before_model);
        Plain.before_model(request, cx)
    }

    fn wrap_model_call<'a>(
        &'a self,
        request: ModelRequest,
        cx: &'a RunCx<'a, (), ()>,
        next: ModelNext<'a, (), ()>,
    ) -> Hook<'a, Result<ChatResponse, ModelError>> {
        bump(&self.0.wrap_model);
        // `Plain` is `'static` and holds nothing: a reference to a constant lives long enough.
        const PLAIN: &Plain = &Plain;
        PLAIN.wrap_model_call(request, cx, next)
    }

    fn after_model<'a>(
        &'a self,
        _response: &'a mut ChatResponse,
        _cx: &'a RunCx<'a, (), ()>,
    ) -> Hook<'a, Result<AfterModel, MiddlewareError>> {
        bump(&self.0.after_model);
        Hook::ready(Ok(AfterModel::Continue))
    }

    fn wrap_tool_call<'a>(
        &'a self,
        call: ToolCall,
        runtime: &'a ToolRuntime<(), ()>,
        next: ToolNext<'a, (), ()>,
    ) -> Hook<'a, Result<ToolOutput, ToolCallError>> {
        bump(&self.0.wrap_tool);
        const PLAIN: &Plain = &Plain;
        PLAIN.wrap_tool_call(call, runtime, next)
    }

    fn after_agent<'a>(
        &'a self,
        messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, (), ()>,
    ) -> Hook<'a, Result<(), MiddlewareError>> {
        bump(&self.0.after_agent);
        Plain.after_agent(messages, cx)
    }
}

/// Three requests and three tool calls per run.
fn script() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call("add", json!({"a": 1, "b": 2})),
        Turn::tool_calls([
            ToolCall::new("c2", "add", r#"{"a": 3, "b": 4}"#),
            ToolCall::new("c3", "add", r#"{"a": 5, "b": 6}"#),
        ]),
        Turn::text("done"),
        Turn::tool_call("add", json!({"a": 1, "b": 2})),
        Turn::tool_calls([
            ToolCall::new("c5", "add", r#"{"a": 3, "b": 4}"#),
            ToolCall::new("c6", "add", r#"{"a": 5, "b": 6}"#),
        ]),
        Turn::text("done again"),
    ])
}

#[tokio::test]
async fn a_default_hook_runs_once_and_an_implemented_hook_runs_every_time() {
    let calls = Arc::new(Calls::default());
    let model = Arc::new(script());
    let agent = Adder::builder(Arc::clone(&model))
        .middleware(Plain)
        .middleware(Observed(Arc::clone(&calls)))
        .middleware(Plain)
        .build();

    let first = agent.run("add things", ()).await.unwrap();
    assert_eq!(first.output, "done");
    let second = agent.run("add them again", ()).await.unwrap();
    assert_eq!(second.output, "done again");
    model.assert_complete();

    // Two runs of three requests and three tool calls each: every hook left at its default
    // ran once, on its first call, and was skipped from then on.
    assert_eq!(count(&calls.before_agent), 1, "before_agent");
    assert_eq!(count(&calls.before_model), 1, "before_model");
    assert_eq!(count(&calls.wrap_model), 1, "wrap_model_call");
    assert_eq!(count(&calls.wrap_tool), 1, "wrap_tool_call");
    assert_eq!(count(&calls.after_agent), 1, "after_agent");
    // The one hook it implements saw every answer of both runs.
    assert_eq!(count(&calls.after_model), 6, "after_model");
    // The tool still ran for every call, with the model's arguments.
    let results: Vec<String> = second
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(Message::Tool(t.clone()).text()),
            _ => None,
        })
        .collect();
    assert!(
        results.ends_with(&["3".into(), "7".into(), "11".into()]),
        "{results:?}"
    );
}
