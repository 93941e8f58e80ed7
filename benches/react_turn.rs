//! Framework time of a ReAct run against a native-tools run of the same job, with models that
//! answer instantly from a script (so what is measured is the loop): model → one `add` call →
//! model → final answer, i.e. two turns each.
//!
//! - `native_run`: the tools in the request, a structured tool call back (the baseline);
//! - `react_run`: the same agent with `.protocol(ToolProtocol::react())`: the request rendered
//!   as text (tools in the system prompt, the step as the model's text and an `Observation:`),
//!   the text reply parsed into the call and the final answer;
//! - `baseline_by_hand`: the native job written by hand (two model calls, one serde parse, a
//!   direct call), as in `agent_run`.
//!
//! The issue's target: a ReAct run at most 1.2× a native run (issue 37, row 5).
//!
//! Over HTTP (`http.rs`): the same two runs against an OpenAI-compatible server in another
//! process, the path a user's program takes; `benches/react_http.sh` counts both sides'
//! instructions.
//!
//! Run: `cargo bench --bench react_turn`

use std::hint::black_box;
use std::sync::Arc;

use agentry::model::{ChatModel, ChatRequest};
use agentry::prelude::*;
use agentry::protocol::ToolProtocol;
use agentry::protocol::react::{ReactModel, parse, read_reply};
use agentry::testing::FunctionModel;
use criterion::{Criterion, criterion_group, criterion_main};

#[path = "react_turn/http.rs"]
mod http;
#[path = "shared/process_server.rs"]
mod process_server;

#[path = "shared/adder.rs"]
mod adder;
use adder::{Adder, add};

/// Native: a tool call first, then the answer once the result is in.
fn native_model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
        Some(Message::Tool(_)) => FunctionModel::text("The sum is 5."),
        _ => FunctionModel::tool_call("add", serde_json::json!({ "a": 2, "b": 3 })),
    })
}

/// ReAct: the same script as text.
fn react_model() -> FunctionModel {
    FunctionModel::new(|req: &ChatRequest| match req.messages.last() {
        Some(m @ Message::User(_)) if m.text().starts_with("Observation:") => FunctionModel::text(
            "Thought: I now know the final answer.\nFinal Answer: The sum is 5.",
        ),
        _ => FunctionModel::text(
            "Thought: I add them.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}",
        ),
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
    let sum = args.a + args.b;
    messages.push(Message::tool_result(call.id, call.name, sum.to_string()));
    let mut request = ChatRequest::new(messages);
    request.tools = vec![tool_def.clone()].into();
    model.invoke(request).await.unwrap().message.text()
}

/// `REACT_RUNS`, 1000 when unset.
fn runs() -> u32 {
    std::env::var("REACT_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1000)
}

fn bench(c: &mut Criterion) {
    if std::env::var_os("REACT_SERVE").is_some() {
        http::serve().expect("the bench server");
        std::process::exit(0);
    }
    if let (Ok(url), Ok(side)) = (std::env::var("REACT_URL"), std::env::var("REACT_ONLY")) {
        http::client(&url, &side, runs());
        std::process::exit(0);
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let native = Adder::builder(Arc::new(native_model())).build();
    let react = Adder::builder(Arc::new(react_model()))
        .protocol(ToolProtocol::react())
        .build();
    let direct = native_model();
    let tool_def: agentry::tool::DefinitionRef = <add as Tool>::definition().into();

    for agent in [&native, &react] {
        let run = rt.block_on(agent.run("2 + 3?", ())).unwrap();
        assert_eq!(run.output, "The sum is 5.");
        assert_eq!(run.steps.len(), 1);
        assert_eq!(run.usage.requests, 2);
    }
    assert_eq!(rt.block_on(baseline(&direct, &tool_def)), "The sum is 5.");

    // For instruction counts under callgrind, free of the shared machine's noise:
    // `REACT_ONLY=native|react REACT_RUNS=N valgrind --tool=callgrind <bench binary>` runs N
    // runs of one side; the difference of the totals for two values of N, divided by the
    // difference of N, is the cost of one run.
    if let Ok(side) = std::env::var("REACT_ONLY") {
        let runs = runs();
        let agent = if side == "react" { &react } else { &native };
        rt.block_on(async {
            for _ in 0..runs {
                black_box(agent.run("2 + 3?", ()).await.unwrap());
            }
        });
        std::process::exit(0);
    }

    let mut group = c.benchmark_group("react_turn");
    group.bench_function("native_run", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(native.run(black_box("2 + 3?"), ()).await.unwrap()) })
        })
    });
    group.bench_function("react_run", |b| {
        b.iter(|| {
            rt.block_on(async { black_box(react.run(black_box("2 + 3?"), ()).await.unwrap()) })
        })
    });
    group.bench_function("baseline_by_hand", |b| {
        b.iter(|| rt.block_on(async { black_box(baseline(&direct, &tool_def).await) }))
    });
    // The pieces of a ReAct turn, on the second request of the run above.
    let react_model = ReactModel::new(Arc::new(react_model()), Default::default());
    let second = ChatRequest {
        tools: vec![tool_def.clone()].into(),
        ..ChatRequest::new(vec![
            Message::system("You add numbers with the `add` tool."),
            Message::user("2 + 3?"),
            Message::Assistant(agentry::message::AssistantMessage {
                tool_calls: vec![ToolCall::new("react_1", "add", r#"{"a":2,"b":3}"#)],
                ..Default::default()
            }),
            Message::tool_result("react_1", "add", "5"),
        ])
    };
    group.bench_function("piece_text_request", |b| {
        b.iter(|| black_box(react_model.text_request(black_box(second.clone()))))
    });
    group.bench_function("piece_clone_request", |b| {
        b.iter(|| black_box(black_box(&second).clone()))
    });
    let (_, context) = react_model.text_request(second.clone());
    let reply = "Thought: I add them.\nAction: add\nAction Input: {\"a\": 2, \"b\": 3}";
    group.bench_function("piece_read_reply", |b| {
        b.iter(|| black_box(read_reply(reply, parse(black_box(reply)), &context)))
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
