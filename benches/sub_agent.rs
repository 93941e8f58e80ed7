//! The cost of running an agent as a tool of another agent: a parent run (model → one
//! sub-agent call → model) whose sub-agent answers in one request, against an in-process
//! model that answers instantly, so what is measured is the framework.
//!
//! `hand_written` is what a user wrote before `#[agent]` structs were tools: an `FnTool`
//! around a prebuilt `Arc<Agent>` with a hand-written schema, parsing the prompt from JSON,
//! running the child and returning its text (no usage roll-up, no nesting, no limits).
//! `agent_tool` lists the `#[agent]` struct in `tools(...)`: typed input, the child built for
//! the call on the parent's model within the parent's budget, usage rolled up. The streamed
//! variants stream the parent (and, for `agent_tool`, nest the child's events).
//!
//! Run: `cargo bench --bench sub_agent`

use std::hint::black_box;
use std::sync::Arc;

use agentry::agent::{AgentBuilder, FnTool};
use agentry::model::ChatRequest;
use agentry::prelude::*;
use agentry::testing::FunctionModel;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use serde_json::{Value, json};

/// You answer in one word.
#[agent(tools())]
struct Child;

/// You delegate to the child.
#[agent(tools(Child))]
struct Parent;

/// The parent calls `child`, the child answers, the parent repeats the answer.
fn model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| {
        let is_child = matches!(req.messages.first(), Some(Message::System { content }) if content.starts_with("You answer"));
        match req.messages.last() {
            _ if is_child => FunctionModel::text("Paris"),
            Some(Message::Tool(result)) => {
                FunctionModel::text(format!("It is {}.", Message::Tool(result.clone()).text()))
            }
            _ => FunctionModel::tool_call("child", json!({ "prompt": "Capital of France?" })),
        }
    })
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let shared: Arc<FunctionModel> = Arc::new(model());

    let typed = Parent::builder(shared.clone()).build();

    let child = Arc::new(Child::builder(shared.clone()).build());
    let definition = ToolDefinition::new(
        "child",
        "You answer in one word.",
        json!({
            "type": "object",
            "properties": { "prompt": { "type": "string" } },
            "required": ["prompt"],
            "additionalProperties": false
        }),
        false,
    );
    let hand = AgentBuilder::<_, _, (), ()>::new(shared.clone(), agentry::agent::NoTools)
        .instructions("You delegate to the child.")
        .dyn_tool(FnTool::new(
            definition,
            move |args: Value, _rt: &ToolRuntime| {
                let child = Arc::clone(&child);
                async move {
                    let prompt = args["prompt"].as_str().unwrap_or_default().to_string();
                    let run = child
                        .run(prompt, ())
                        .await
                        .map_err(|e| ToolCallError::Failed {
                            tool: "child".into(),
                            source: ToolError::new(e.to_string()),
                        })?;
                    Ok(ToolOutput::text(run.output))
                }
            },
        ))
        .build();

    let a = rt.block_on(typed.run("?", ())).unwrap();
    let b = rt.block_on(hand.run("?", ())).unwrap();
    assert_eq!(a.output, "It is Paris.");
    assert_eq!(b.output, "It is Paris.");
    assert_eq!(a.usage.requests, 3, "the child's request is rolled up");

    let mut group = c.benchmark_group("sub_agent");
    group.bench_function("hand_written", |bench| {
        bench.iter(|| rt.block_on(async { black_box(hand.run(black_box("?"), ()).await.unwrap()) }))
    });
    group.bench_function("agent_tool", |bench| {
        bench
            .iter(|| rt.block_on(async { black_box(typed.run(black_box("?"), ()).await.unwrap()) }))
    });
    group.bench_function("hand_written_streamed", |bench| {
        bench.iter(|| rt.block_on(drain(hand.stream(black_box("?"), ()))))
    });
    group.bench_function("agent_tool_streamed", |bench| {
        bench.iter(|| rt.block_on(drain(typed.stream(black_box("?"), ()))))
    });
    group.finish();
}

/// Polls a stream to its end, counting events.
async fn drain(mut stream: agentry::agent::AgentStream<'_, String, ()>) -> usize {
    let mut n = 0usize;
    while let Some(event) = stream.next().await {
        black_box(event.unwrap());
        n += 1;
    }
    n
}

criterion_group!(benches, bench);
criterion_main!(benches);
