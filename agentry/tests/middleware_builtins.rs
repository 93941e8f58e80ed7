//! The built-in middleware against scripted models, each through `run` and `stream`.

use std::sync::Arc;
use std::time::Duration;

use agentry::ToolResultMessage;
use agentry::agent::RunError;
use agentry::agent::{Input, RunErrorKind, RunResult, StopReason, ToolErrorPolicy};
use agentry::middleware::{
    CallLimit, ClearToolResults, LimitBehavior, ModelFallback, ModelRetry, ModelSelector, Pii,
    PiiKind, PiiStrategy, Summarization, ToolErrorHandler, ToolSelector, ToolTimeout,
};
use agentry::model::{ChatRequest, ModelError, SharedModel};
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

#[path = "middleware_builtins/history.rs"]
mod history;

#[derive(Debug, Default)]
struct User {
    premium: bool,
}

/// Add two numbers.
///
/// # Arguments
/// * `a` - First.
/// * `b` - Second.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Look a customer up.
///
/// # Arguments
/// * `name` - Who.
#[tool]
fn lookup(name: String) -> Result<String, String> {
    match name.as_str() {
        "ada" => Ok("ada@example.com, card 4111 1111 1111 1111, from 10.0.0.7".to_string()),
        _ => Err(format!("no customer named {name}")),
    }
}

/// Wait a long time.
#[tool]
async fn slow() -> String {
    tokio::time::sleep(Duration::from_secs(3600)).await;
    "finally".to_string()
}

/// Helps.
#[agent(tools(add, lookup, slow), context = User)]
struct Helper;

/// Runs the agent `make` builds twice, once with `run` and once with `stream`, each with its
/// own model from `model`, and checks both end alike.
async fn both(
    model: impl Fn() -> Arc<ScriptedModel>,
    make: impl Fn(Arc<ScriptedModel>) -> HelperAgent,
    input: impl Into<Input> + Clone,
    user: impl Fn() -> User,
) -> Result<(RunResult<String, ()>, Arc<ScriptedModel>), RunError> {
    let streamed_model = model();
    let streamed = make(Arc::clone(&streamed_model))
        .stream(input.clone(), user())
        .result()
        .await;
    let ran_model = model();
    let ran = make(Arc::clone(&ran_model)).run(input, user()).await;
    match (&ran, &streamed) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.output, b.output, "run and stream end alike");
            assert_eq!(a.messages, b.messages, "run and stream end alike");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
        _ => panic!("run and stream differ: {ran:?} vs {streamed:?}"),
    }
    assert_eq!(ran_model.request_count(), streamed_model.request_count());
    ran.map(|r| (r, ran_model))
}

fn server_error() -> ModelError {
    ModelError::Server {
        status: 503,
        message: "overloaded".to_string(),
    }
}

#[tokio::test]
async fn model_retry_retries_retryable_errors_with_backoff() {
    let (run, model) = both(
        || {
            Arc::new(ScriptedModel::new([
                Turn::error(server_error()),
                Turn::error(server_error()),
                Turn::text("ok"),
            ]))
        },
        |m| {
            Helper::builder(m)
                .middleware(ModelRetry::new(3).initial_delay(Duration::from_millis(1)))
                .build()
        },
        "hi",
        User::default,
    )
    .await
    .unwrap();
    assert_eq!(run.output, "ok");
    assert_eq!(model.request_count(), 3);

    // Not retryable, or out of retries: the error stands.
    let model = Arc::new(ScriptedModel::new([Turn::error(
        ModelError::Authentication {
            message: "bad key".to_string(),
        },
    )]));
    let err = Helper::builder(Arc::clone(&model))
        .middleware(ModelRetry::new(3).initial_delay(Duration::from_millis(1)))
        .build()
        .run("hi", User::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Model(ModelError::Authentication { .. })
    ));
    assert_eq!(model.request_count(), 1);
    let model = Arc::new(ScriptedModel::new([
        Turn::error(server_error()),
        Turn::error(server_error()),
    ]));
    let err = Helper::builder(Arc::clone(&model))
        .middleware(ModelRetry::new(1).initial_delay(Duration::from_millis(1)))
        .build()
        .run("hi", User::default())
        .await
        .unwrap_err();
    assert!(matches!(
        err.kind(),
        RunErrorKind::Model(ModelError::Server { .. })
    ));
    assert_eq!(model.request_count(), 2);
}

#[tokio::test]
async fn model_fallback_asks_the_next_model_on_failure() {
    let backup = Arc::new(ScriptedModel::new([Turn::text("from backup")]).with_name("backup"));
    let backup_streamed =
        Arc::new(ScriptedModel::new([Turn::text("from backup")]).with_name("backup"));
    let backups = [Arc::clone(&backup_streamed), Arc::clone(&backup)];
    let next = std::sync::Mutex::new(0);
    let (run, primary) = both(
        || Arc::new(ScriptedModel::new([Turn::error(server_error())])),
        |m| {
            let mut i = next.lock().unwrap();
            let b = Arc::clone(&backups[*i]);
            *i += 1;
            Helper::builder(m)
                .middleware(ModelFallback::new([b]))
                .build()
        },
        "hi",
        User::default,
    )
    .await
    .unwrap();
    assert_eq!(run.output, "from backup");
    assert_eq!(primary.request_count(), 1);
    assert_eq!(backup.request_count(), 1);
    assert_eq!(backup.requests()[0].messages.last().unwrap().text(), "hi");
}

fn looping_model() -> Arc<ScriptedModel> {
    Arc::new(ScriptedModel::new([
        Turn::tool_call("add", json!({"a": 1, "b": 1})),
        Turn::tool_call("add", json!({"a": 2, "b": 2})),
        Turn::tool_call("add", json!({"a": 3, "b": 3})),
        Turn::text("done"),
    ]))
}

#[tokio::test]
async fn call_limit_ends_or_fails_at_the_model_call_limit() {
    let (run, model) = both(
        looping_model,
        |m| {
            Helper::builder(m)
                .middleware(
                    CallLimit::new()
                        .model_calls_per_run(2)
                        .on_limit(LimitBehavior::End),
                )
                .build()
        },
        "go",
        User::default,
    )
    .await
    .unwrap();
    assert_eq!(model.request_count(), 2);
    assert_eq!(
        run.stop_reason,
        StopReason::Ended {
            by: "CallLimit".to_string()
        }
    );
    assert!(
        run.output.contains("model call limit of 2 per run"),
        "{}",
        run.output
    );

    let err = Helper::builder(looping_model())
        .middleware(CallLimit::new().model_calls_per_run(2))
        .build()
        .run("go", User::default())
        .await
        .unwrap_err();
    assert!(
        matches!(err.kind(), RunErrorKind::Middleware(e) if e.middleware == "CallLimit"),
        "{err}"
    );
}

#[tokio::test]
async fn call_limit_counts_the_thread_and_each_tool() {
    // Two answers already in the history: a thread limit of two stops before any request.
    let history = vec![
        Message::user("a"),
        Message::assistant("b"),
        Message::user("c"),
        Message::assistant("d"),
    ];
    let model = looping_model();
    let run = Helper::builder(Arc::clone(&model))
        .middleware(
            CallLimit::new()
                .model_calls_per_thread(2)
                .on_limit(LimitBehavior::End),
        )
        .build()
        .run(Input::with_history(history, "e"), User::default())
        .await
        .unwrap();
    assert_eq!(model.request_count(), 0);
    assert!(run.output.contains("per thread"));

    // `add` may run once: the second answer asking for it ends the run before it runs.
    let (run, _) = both(
        looping_model,
        |m| {
            Helper::builder(m)
                .middleware(
                    CallLimit::new()
                        .tool_calls("add", 1)
                        .on_limit(LimitBehavior::End),
                )
                .build()
        },
        "go",
        User::default,
    )
    .await
    .unwrap();
    assert_eq!(run.steps.len(), 1);
    assert!(run.output.contains("tool `add`"), "{}", run.output);
    // The history stays valid: the answer that asked for too many calls was replaced.
    let last = run.messages.last().unwrap();
    assert!(matches!(last, Message::Assistant(a) if a.tool_calls.is_empty()));
}

#[tokio::test(start_paused = true)]
async fn tool_timeout_stops_a_slow_call_and_tells_the_model() {
    let (run, model) = both(
        || {
            Arc::new(ScriptedModel::new([
                Turn::tool_call("slow", json!({})),
                Turn::text("gave up"),
            ]))
        },
        |m| {
            Helper::builder(m)
                .middleware(ToolTimeout::new().tool("slow", Duration::from_millis(50)))
                .build()
        },
        "go",
        User::default,
    )
    .await
    .unwrap();
    let err = run.steps[0].result.as_ref().unwrap_err();
    assert_eq!(
        err,
        &agentry::ToolCallError::timed_out("slow", Duration::from_millis(50))
    );
    let told = model.requests()[1].messages.last().unwrap().text();
    assert!(told.contains("did not finish within 50ms"), "{told}");
}

#[tokio::test]
async fn tool_error_handler_turns_a_failure_into_a_result() {
    let (run, model) = both(
        || {
            Arc::new(ScriptedModel::new([
                Turn::tool_call("lookup", json!({"name": "bob"})),
                Turn::text("sorry"),
            ]))
        },
        |m| {
            Helper::builder(m)
                .tool_errors(ToolErrorPolicy::Propagate)
                .middleware(ToolErrorHandler::new(|call, error| {
                    Some(format!("{} is unavailable ({error})", call.name))
                }))
                .build()
        },
        "go",
        User::default,
    )
    .await
    .unwrap();
    assert_eq!(
        run.output, "sorry",
        "a handled failure does not stop the run"
    );
    let told = model.requests()[1].messages.last().unwrap().clone();
    let Message::Tool(ToolResultMessage { is_error, .. }) = &told else {
        panic!("a tool result");
    };
    assert!(!is_error);
    assert!(
        told.text()
            .starts_with("lookup is unavailable (tool `lookup` failed: no customer named bob)")
    );
}

#[tokio::test]
async fn model_selector_picks_the_model_from_the_context() {
    let big = Arc::new(ScriptedModel::new([Turn::text("big answer")]).with_name("big"));
    let big_shared: SharedModel = big.clone();
    let small = Arc::new(ScriptedModel::new([Turn::text("small answer")]));
    let agent = Helper::builder(Arc::clone(&small))
        .middleware(ModelSelector::<User, ()>::new(move |_request, cx| {
            cx.context().premium.then(|| Arc::clone(&big_shared))
        }))
        .build();
    let run = agent.run("hi", User { premium: true }).await.unwrap();
    assert_eq!(run.output, "big answer");
    assert_eq!(small.request_count(), 0);
    let run = agent.run("hi", User { premium: false }).await.unwrap();
    assert_eq!(run.output, "small answer");
    assert_eq!(big.request_count(), 1);
}

#[tokio::test]
async fn tool_selector_offers_only_the_selected_tools() {
    let (_, model) = both(
        || Arc::new(ScriptedModel::new([Turn::text("ok")])),
        |m| {
            Helper::builder(m)
                .middleware(ToolSelector::<User, ()>::new(|tool, request, _cx| {
                    let asked = request
                        .messages
                        .last()
                        .map(Message::text)
                        .unwrap_or_default();
                    asked.contains(tool)
                }))
                .build()
        },
        "please add",
        User::default,
    )
    .await
    .unwrap();
    let offered: Vec<String> = model.requests()[0]
        .tools
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert_eq!(offered, ["add"]);
}
