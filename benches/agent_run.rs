//! Framework time of one full agent run — model → one tool call → model — against an
//! in-process model that answers instantly, so what is measured is the loop itself:
//! building requests, dispatching the call through the generated `match`, running the tool,
//! appending results, parsing the final answer.
//!
//! `baseline` does the unavoidable work of the same job by hand (two model calls with the
//! same messages, one `serde_json` parse, one direct call); the difference is the framework's
//! cost per run.
//!
//! `full_run` uses a sync `fn` tool, which the runtime runs on tokio's blocking pool (so
//! parallel calls overlap and deadlines hold): the thread hand-off is part of what it times.
//! `full_run_async_tool` is the same run with an `async fn` tool, which runs on the run's own
//! task: the difference between the two is the blocking pool's cost.
//!
//! `full_run_3_noop_middleware` is the same run through three middlewares that implement no
//! hook (every default: `before_agent`, `before_model`, `wrap_model_call`, `after_model`,
//! `wrap_tool_call`, `after_agent`), so the difference to `full_run` is what the hooks cost.
//! `pause_serialize_resume` pauses the run before the tool call (human in the loop), writes
//! the pause to JSON, reads it back and resumes with an approval.
//!
//! `full_run_async_tool_otel_in_memory` is `full_run_async_tool` with a `tracing` subscriber
//! exporting the run's GenAI spans (`invoke_agent`, `execute_tool`) through
//! `tracing-opentelemetry` to the OpenTelemetry SDK's in-memory exporter (emptied after each
//! run): what tracing costs when it is on. Without a subscriber (every other entry) the spans
//! are compiled in and disabled.
//!
//! Run: `cargo bench --bench agent_run`

use std::hint::black_box;
use std::sync::Arc;

use agentry::agent::{Outcome, Pause};
use agentry::middleware::{Decision, DecisionKind, HumanInTheLoop, Middleware};
use agentry::model::{ChatModel, ChatRequest};
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use criterion::{Criterion, criterion_group, criterion_main};

/// A middleware with no hook of its own.
struct Noop;

impl<C: Send + Sync + 'static, S: Send + Sync + 'static> Middleware<C, S> for Noop {}

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Add two integers (an `async fn`, so it runs on the run's own task).
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool(name = "add")]
async fn add_async(a: i64, b: i64) -> i64 {
    a + b
}

/// You add numbers with the `add` tool.
#[agent(tools(add))]
struct Adder;

/// You add numbers with the `add` tool.
#[agent(tools(add_async))]
struct AsyncAdder;

/// Calls `add` on the first request, answers once the tool result is in.
fn model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
        Some(Message::Tool(result)) => FunctionModel::text(format!(
            "The sum is {}.",
            Message::Tool(result.clone()).text()
        )),
        _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
    })
}

#[derive(serde::Deserialize)]
struct HandArgs {
    a: i64,
    b: i64,
}

async fn baseline(model: &FunctionModel, tool_def: &agentry::tool::DefinitionRef) -> String {
    let mut messages = vec![
        Message::system("You add numbers with the `add` tool."),
        Message::user("2 + 3?"),
    ];
    let mut request = ChatRequest::new(messages.clone());
    request.tools = vec![tool_def.clone()].into();
    let first = model.invoke(request).await.unwrap();
    let call = first.message.tool_calls[0].clone();
    messages.push(Message::Assistant(first.message));
    let args: HandArgs = serde_json::from_str(&call.arguments).unwrap();
    let sum = add(args.a, args.b);
    messages.push(Message::tool_result(call.id, call.name, sum.to_string()));
    let mut request = ChatRequest::new(messages);
    request.tools = vec![tool_def.clone()].into();
    model.invoke(request).await.unwrap().message.text()
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = Adder::builder(Arc::new(model())).build();
    let async_agent = AsyncAdder::builder(Arc::new(model())).build();
    let direct = model();
    let tool_def: agentry::tool::DefinitionRef = <add as Tool>::definition().into();

    let with_middleware = Adder::builder(Arc::new(model()))
        .middleware(Noop)
        .middleware(Noop)
        .middleware(Noop)
        .build();
    let reviewed = Adder::builder(Arc::new(model()))
        .middleware(HumanInTheLoop::new().review("add", DecisionKind::Approve))
        .build();
    let round_trip = || async {
        let Outcome::Paused(pause) = reviewed.run_or_pause("2 + 3?", ()).await.unwrap() else {
            unreachable!("`add` is reviewed")
        };
        let json = serde_json::to_string(&pause).unwrap();
        let pause: Pause<()> = serde_json::from_str(&json).unwrap();
        let id = pause.calls[0].call.id.clone();
        let outcome = reviewed
            .resume(pause, [(id, Decision::Approve)], ())
            .await
            .unwrap();
        outcome.finished().unwrap()
    };

    let check = rt.block_on(agent.run("2 + 3?", ())).unwrap();
    assert_eq!(
        rt.block_on(with_middleware.run("2 + 3?", ()))
            .unwrap()
            .output,
        "The sum is 5."
    );
    assert_eq!(rt.block_on(round_trip()).output, "The sum is 5.");
    assert_eq!(check.output, "The sum is 5.");
    assert_eq!(
        rt.block_on(async_agent.run("2 + 3?", ())).unwrap().output,
        "The sum is 5."
    );
    assert_eq!(rt.block_on(baseline(&direct, &tool_def)), "The sum is 5.");

    let mut group = c.benchmark_group("agent_run");
    group.bench_function("full_run", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(agent.run(black_box("2 + 3?"), ()).await.unwrap()) })
        })
    });
    group.bench_function("full_run_async_tool", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(async_agent.run(black_box("2 + 3?"), ()).await.unwrap())
            })
        })
    });
    {
        use opentelemetry::trace::TracerProvider as _;
        use tracing_subscriber::layer::SubscriberExt;
        let exporter = opentelemetry_sdk::trace::InMemorySpanExporter::default();
        let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let subscriber = tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("bench")));
        tracing::subscriber::with_default(subscriber, || {
            rt.block_on(async_agent.run("2 + 3?", ())).unwrap();
            let spans = exporter.get_finished_spans().unwrap();
            assert_eq!(spans.len(), 2, "one invoke_agent and one execute_tool span");
            exporter.reset();
            group.bench_function("full_run_async_tool_otel_in_memory", |b| {
                b.iter(|| {
                    let run = rt.block_on(async {
                        black_box(async_agent.run(black_box("2 + 3?"), ()).await.unwrap())
                    });
                    exporter.reset();
                    run
                })
            });
        });
    }
    group.bench_function("full_run_3_noop_middleware", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(with_middleware.run(black_box("2 + 3?"), ()).await.unwrap())
            })
        })
    });
    group.bench_function("pause_serialize_resume", |b| {
        b.iter(|| rt.block_on(async { black_box(round_trip().await) }))
    });
    group.bench_function("baseline_by_hand", |b| {
        b.iter(|| rt.block_on(async { black_box(baseline(&direct, &tool_def).await) }))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
