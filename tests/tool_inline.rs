//! `#[tool(inline)]`: a sync tool called on the run's task instead of the blocking pool, in a
//! real run against a scripted model. The runtimes are current-thread, so the run's task is
//! polled on the test's own thread: a tool that reports that thread ran inline.

use std::sync::Arc;
use std::thread;
use std::time::Duration;

use agentry::ToolCallError;
use agentry::agent::RunResult;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

/// The calling thread, as text.
fn this_thread() -> String {
    format!("{:?}", thread::current().id())
}

/// Report the thread that runs this call (inline).
#[tool(inline)]
fn inline_thread() -> String {
    this_thread()
}

/// Report the thread that runs this call (inline, written with a bool).
#[tool(inline = true)]
fn inline_true_thread() -> String {
    this_thread()
}

/// Report the thread that runs this call (default: the blocking pool).
#[tool]
fn pooled_thread() -> String {
    this_thread()
}

/// Report the thread that runs this call (`inline = false`: the blocking pool).
#[tool(inline = false)]
fn not_inline_thread() -> String {
    this_thread()
}

/// Panic (inline).
#[tool(inline)]
fn inline_boom() -> String {
    panic!("boom")
}

/// Panic (async).
#[tool]
async fn async_boom() -> String {
    panic!("boom")
}

/// Panic (default sync, on the blocking pool).
#[tool]
fn pooled_boom() -> String {
    panic!("boom")
}

/// Sleep past the timeout (default sync).
#[tool(timeout = "10ms")]
fn slow_pooled() -> &'static str {
    thread::sleep(Duration::from_millis(60));
    "finished"
}

/// You report threads.
#[agent(tools(
    inline_thread,
    inline_true_thread,
    pooled_thread,
    not_inline_thread,
    inline_boom,
    async_boom,
    pooled_boom,
    slow_pooled
))]
struct Threads;

/// The call named `name` in `run`: its output text, or its error.
fn result_of<O>(run: &RunResult<O>, name: &str) -> Result<String, ToolCallError> {
    let step = run
        .steps
        .iter()
        .find(|s| s.call.name == name)
        .unwrap_or_else(|| panic!("no call of `{name}` in {:?}", run.steps));
    step.result
        .as_ref()
        .map(|out| out.text_content())
        .map_err(Clone::clone)
}

/// Runs `Threads` over one answer calling `names` (no arguments), then a final text.
async fn run_calls(names: &[&str]) -> RunResult<String> {
    let calls = names
        .iter()
        .enumerate()
        .map(|(i, name)| ToolCall::new(format!("c{i}"), *name, "{}"));
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls(calls),
        Turn::text("done"),
    ]));
    let run = Threads::builder(model.clone())
        .build()
        .run("Which threads?", ())
        .await
        .unwrap();
    model.assert_complete();
    assert_eq!(run.output, "done");
    run
}

/// Runs `inline` and `pooled` in one answer: the first must run on the run's thread, the
/// second on the blocking pool (`why` says which kind of tool it is).
async fn assert_here_and_on_the_pool(inline: &str, pooled: &str, why: &str) {
    let here = this_thread();
    let run = run_calls(&[inline, pooled]).await;
    assert_eq!(result_of(&run, inline).unwrap(), here);
    assert_ne!(result_of(&run, pooled).unwrap(), here, "{why}");
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_tool_runs_on_the_runs_thread_a_default_one_on_the_pool() {
    assert_here_and_on_the_pool(
        "inline_thread",
        "pooled_thread",
        "a default sync tool runs on the blocking pool",
    )
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn inline_takes_a_bool_and_false_is_the_default() {
    assert_here_and_on_the_pool(
        "inline_true_thread",
        "not_inline_thread",
        "`inline = false` runs on the blocking pool",
    )
    .await;
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_tools_panic_is_reported_like_an_async_tools_and_the_run_goes_on() {
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("a", "inline_boom", "{}"),
            ToolCall::new("b", "async_boom", "{}"),
            ToolCall::new("c", "pooled_boom", "{}"),
        ]),
        Turn::tool_calls([ToolCall::new("d", "inline_thread", "{}")]),
        Turn::text("Recovered."),
    ]));
    let run = Threads::builder(model.clone())
        .build()
        .run("Explode", ())
        .await
        .unwrap();
    model.assert_complete();
    assert_eq!(run.output, "Recovered.");

    for name in ["inline_boom", "async_boom", "pooled_boom"] {
        match result_of(&run, name) {
            Err(ToolCallError::Panicked { tool, message }) => {
                assert_eq!((tool.as_str(), message.as_str()), (name, "boom"));
            }
            other => panic!("`{name}`: expected a caught panic, got {other:?}"),
        }
    }
    // What the model read: the same error text, tool name aside.
    let answers: Vec<(String, bool)> = model.requests()[1]
        .messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(r) => Some((m.text().replace(r.name.as_str(), "TOOL"), r.is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(answers.len(), 3);
    assert!(answers[0].1, "the panic is an error result");
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0], answers[2]);
    assert!(answers[0].0.contains("panicked: boom"), "{}", answers[0].0);
    // The run went on: the next answer's call ran.
    assert_eq!(result_of(&run, "inline_thread").unwrap(), this_thread());
}

// A default sync call past its timeout is reported as timed out. (An inline call does not
// yield, so a timeout could not cancel it: `#[tool(inline, timeout = "..")]` is a compile
// error, pinned by `tests/ui/tool_inline_timeout.rs`.)
#[tokio::test(flavor = "current_thread")]
async fn a_pooled_call_past_its_timeout_is_timed_out() {
    let run = run_calls(&["slow_pooled"]).await;
    assert!(
        matches!(
            result_of(&run, "slow_pooled"),
            Err(ToolCallError::TimedOut { .. })
        ),
        "{:?}",
        result_of(&run, "slow_pooled")
    );
}

/// Stands in for a value with resources.
struct Clock {
    label: String,
}

/// You report threads, from methods.
#[agent]
impl Clock {
    /// Report the thread that runs this call (inline).
    #[tool(inline)]
    fn inline_method(&self) -> String {
        format!("{} {}", self.label, this_thread())
    }

    /// Report the thread that runs this call (default: the blocking pool).
    #[tool]
    fn pooled_method(&self) -> String {
        format!("{} {}", self.label, this_thread())
    }
}

#[tokio::test(flavor = "current_thread")]
async fn an_inline_method_of_an_agent_impl_block_runs_on_the_runs_thread() {
    let here = this_thread();
    let model = Arc::new(ScriptedModel::new([
        Turn::tool_calls([
            ToolCall::new("a", "inline_method", "{}"),
            ToolCall::new("b", "pooled_method", "{}"),
        ]),
        Turn::text("done"),
    ]));
    let clock = Clock {
        label: "clock".into(),
    };
    let run = clock
        .into_builder(model.clone())
        .build()
        .run("Which threads?", ())
        .await
        .unwrap();
    model.assert_complete();
    assert_eq!(
        result_of(&run, "inline_method").unwrap(),
        format!("clock {here}")
    );
    let pooled = result_of(&run, "pooled_method").unwrap();
    assert!(pooled.starts_with("clock "), "{pooled}");
    assert_ne!(pooled, format!("clock {here}"));
}
