//! Per-tool timeouts: `#[tool(timeout = "..")]`, `FnTool::timeout` and the builder default.

use std::time::Duration;

use agentry::agent::{FnTool, RunErrorKind, ToolErrorPolicy};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use agentry::{ToolCallError, ToolResultMessage};
use serde_json::json;

/// Waits for a long time.
#[tool(timeout = "50ms")]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "late".to_string()
}

/// Waits a little.
///
/// # Arguments
/// * `ms` - How long.
#[tool]
async fn wait(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("waited {ms}")
}

#[agent(tools(slow, wait))]
struct Waiter;

fn tool_results(messages: &[Message]) -> Vec<&ToolResultMessage> {
    messages
        .iter()
        .filter_map(|m| match m {
            Message::Tool(t) => Some(t),
            _ => None,
        })
        .collect()
}

#[test]
fn the_attribute_sets_the_tools_timeout() {
    assert_eq!(<slow as Tool>::TIMEOUT, Some(Duration::from_millis(50)));
    assert_eq!(<wait as Tool>::TIMEOUT, None);
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_call_is_reported_to_the_model_and_the_run_goes_on() {
    let model = ScriptedModel::new([Turn::tool_call("slow", json!({})), Turn::text("gave up")]);
    let run = Waiter::builder(model).build().run("go", ()).await.unwrap();
    assert_eq!(run.output, "gave up");
    let results = tool_results(&run.messages);
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error);
    let text = results[0].content[0]
        .as_text()
        .unwrap_or_default()
        .to_string();
    assert!(text.contains("did not finish within 50ms"), "{text}");
    assert_eq!(
        run.steps[0].result.as_ref().err(),
        Some(&ToolCallError::TimedOut {
            tool: "slow".into(),
            after: Duration::from_millis(50)
        })
    );
}

#[tokio::test(start_paused = true)]
async fn the_builder_default_applies_to_tools_without_their_own() {
    let model = ScriptedModel::new([
        Turn::tool_call("wait", json!({ "ms": 10 })),
        Turn::tool_call("wait", json!({ "ms": 500 })),
        // `slow` keeps its own 50 ms, shorter than the default.
        Turn::tool_call("slow", json!({})),
        Turn::text("done"),
    ]);
    let run = Waiter::builder(model)
        .tool_timeout(Duration::from_millis(100))
        .build()
        .run("go", ())
        .await
        .unwrap();
    let results: Vec<_> = run.steps.iter().map(|s| s.result.clone()).collect();
    assert!(results[0].is_ok(), "{results:?}");
    assert_eq!(
        results[1].as_ref().err(),
        Some(&ToolCallError::timed_out(
            "wait",
            Duration::from_millis(100)
        ))
    );
    assert_eq!(
        results[2].as_ref().err(),
        Some(&ToolCallError::timed_out("slow", Duration::from_millis(50)))
    );
}

#[tokio::test(start_paused = true)]
async fn timeouts_count_against_the_retry_budget() {
    let model = ScriptedModel::new([
        Turn::tool_call("slow", json!({})),
        Turn::tool_call("slow", json!({})),
    ]);
    let err = Waiter::builder(model)
        .max_tool_retries(1)
        .build()
        .run("go", ())
        .await
        .unwrap_err();
    match err.kind() {
        RunErrorKind::ToolRetriesExhausted { tool, last, .. } => {
            assert_eq!(tool, "slow");
            assert!(matches!(last, ToolCallError::TimedOut { .. }), "{last:?}");
        }
        other => panic!("expected exhausted retries, got {other:?}"),
    }
}

#[tokio::test(start_paused = true)]
async fn under_the_propagate_policy_a_timeout_is_a_typed_run_error() {
    let model = ScriptedModel::new([Turn::tool_call("slow", json!({}))]);
    let err = Waiter::builder(model)
        .tool_errors(ToolErrorPolicy::Propagate)
        .build()
        .run("go", ())
        .await
        .unwrap_err();
    assert!(
        matches!(
            err.kind(),
            RunErrorKind::Tool(ToolCallError::TimedOut { .. })
        ),
        "{err:?}"
    );
    // The history stays valid: the call is answered.
    assert_eq!(tool_results(err.messages()).len(), 1);
}

#[tokio::test(start_paused = true)]
async fn a_dynamic_tool_timeout_drops_its_future() {
    let dropped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    struct SetOnDrop(std::sync::Arc<std::sync::atomic::AtomicBool>);
    impl Drop for SetOnDrop {
        fn drop(&mut self) {
            self.0.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    }
    let flag = dropped.clone();
    let tool = FnTool::new(
        ToolDefinition::new("hang", "Hangs.", json!({ "type": "object" }), false),
        move |_args: serde_json::Value, _rt: &ToolRuntime| {
            let guard = SetOnDrop(flag.clone());
            async move {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                drop(guard);
                Ok(ToolOutput::text("never"))
            }
        },
    )
    .timeout(Duration::from_millis(20));
    let model = ScriptedModel::new([Turn::tool_call("hang", json!({})), Turn::text("ok")]);
    let run = AgentBuilder::<_, _, (), ()>::new(model, agentry::agent::NoTools)
        .dyn_tool(tool)
        .build()
        .run("go", ())
        .await
        .unwrap();
    assert_eq!(
        run.steps[0].result.as_ref().err(),
        Some(&ToolCallError::timed_out("hang", Duration::from_millis(20)))
    );
    assert!(dropped.load(std::sync::atomic::Ordering::SeqCst));
}
