//! MCP costs, each against a baseline in the same run:
//!
//! * `mcp_call`: one tool call — a `#[tool]` called through the dynamic path in process
//!   (`Typed`: JSON arguments deserialized, the tool called) against the same tool served by
//!   an `McpServer` in a child process and called by an `McpClient` over stdio (rmcp on both
//!   sides: JSON-RPC framing, the pipe, argument validation on the server, result mapping).
//! * `mcp_list_lower_100`: a server with 100 tools — listing them over stdio, checking the
//!   names and schema caps and lowering every schema into OpenAI strict mode
//!   (`McpToolset::builder(..).dialect(..).load()`), against building and lowering the same
//!   100 definitions in process.
//!
//! * `mcp_call_vs_rmcp`: the same call (the same child server) through the SDK
//!   (`McpTool::invoke`: what an agent's tool call runs) against a client written by hand with
//!   rmcp's own API (`().serve(TokioChildProcess)`, `peer().call_tool(..)`, the text taken out
//!   of the result): CPU time of this (the client) process, paired rounds in alternating
//!   order, median of per-round ratios; and with `-- --instructions`, instructions per call
//!   under callgrind (each client in a child process under `valgrind --tool=callgrind`,
//!   1,200 calls minus 200 calls over 1,000; the server runs outside callgrind).
//!
//! The child process is this bench binary itself, started with `MCP_BENCH_SERVE=1`.
//!
//! Run: `cargo bench --bench mcp` (`-- --instructions` for the callgrind counts only).

#[path = "../agentry/benches/support/callgrind.rs"]
mod callgrind;

use std::hint::black_box;
use std::sync::Arc;

use agentry::agent::{DynTool, FnTool, Typed};
use agentry::mcp::{McpClient, McpServer, McpToolset};
use agentry::prelude::*;
use agentry::{ToolDefinition, ToolOutput};
use criterion::Criterion;
use serde_json::{Value, json};

#[path = "shared/process_cpu.rs"]
mod process_cpu;
use process_cpu::cpu_now;

/// Say how far it is between two cities.
///
/// # Arguments
/// * `from` - Departure city.
/// * `to` - Arrival city.
/// * `days` - Days of travel.
#[tool]
fn distance(from: String, to: String, days: u32) -> String {
    format!(
        "{from} to {to}: {} km in {days} days",
        from.len() * 100 + to.len()
    )
}

fn args() -> Value {
    json!({ "from": "Paris", "to": "Lisbon", "days": 3 })
}

/// The schema of each of the 100 listed tools.
fn wide_schema(i: usize) -> Value {
    json!({
        "type": "object",
        "properties": {
            "city": { "type": "string", "description": format!("City for tool {i}.") },
            "days": { "type": "integer", "minimum": 1, "maximum": 14 },
            "units": { "type": "string", "enum": ["celsius", "fahrenheit"] },
            "tags": { "type": "array", "items": { "type": "string" }, "maxItems": 5 }
        },
        "required": ["city"]
    })
}

fn hundred_definitions() -> Vec<ToolDefinition> {
    (0..100)
        .map(|i| {
            ToolDefinition::new(
                format!("tool_{i:03}"),
                format!("Tool number {i}."),
                wide_schema(i),
                false,
            )
        })
        .collect()
}

async fn serve() {
    let mut builder = McpServer::builder("bench").tool(Typed(distance {}));
    for def in hundred_definitions() {
        builder = builder.tool(FnTool::new(def, |_args: Value, _rt: &ToolRuntime| async {
            Ok(ToolOutput::text("ok"))
        }));
    }
    builder
        .build()
        .serve_stdio()
        .await
        .expect("serving on stdio");
}

fn bench(c: &mut Criterion, rt: &tokio::runtime::Runtime) {
    let exe = std::env::current_exe().expect("the bench binary");
    let client = rt.block_on(async {
        McpClient::stdio("bench", exe)
            .env("MCP_BENCH_SERVE", "1")
            .connect()
            .await
            .expect("the bench server starts")
    });
    let tools = rt.block_on(McpToolset::new(&client)).expect("listing");
    let remote = tools
        .tools()
        .iter()
        .find(|t| t.remote_name() == "distance")
        .unwrap()
        .clone();
    let local = Typed(distance {});
    let runtime = ToolRuntime::new();

    let mut group = c.benchmark_group("mcp_call");
    group.bench_function("static_tool_in_process", |b| {
        b.iter(|| {
            rt.block_on(async {
                black_box(
                    DynTool::<(), ()>::call(&local, args(), &runtime)
                        .await
                        .unwrap(),
                )
            })
        })
    });
    group.bench_function("mcp_tool_over_stdio", |b| {
        b.iter(|| rt.block_on(async { black_box(remote.invoke(args()).await.unwrap()) }))
    });
    group.finish();

    let mut group = c.benchmark_group("mcp_list_lower_100");
    group.bench_function("lower_100_in_process", |b| {
        b.iter(|| {
            let defs: Vec<Arc<ToolDefinition>> =
                hundred_definitions().into_iter().map(Arc::new).collect();
            for def in &defs {
                black_box(def.parameters_for(Dialect::OpenAiStrict).unwrap());
            }
            black_box(defs)
        })
    });
    group.bench_function("list_and_lower_100_over_stdio", |b| {
        b.iter(|| {
            client.mark_tools_stale();
            rt.block_on(async {
                black_box(
                    McpToolset::builder(&client)
                        .dialect(Dialect::OpenAiStrict)
                        .load()
                        .await
                        .unwrap(),
                )
            })
        })
    });
    group.finish();
}

/// The two clients of `mcp_call_vs_rmcp`, each connected to its own child server.
enum Client {
    Sdk(Arc<agentry::mcp::McpTool>),
    Rmcp(rmcp::service::RunningService<rmcp::RoleClient, ()>),
}

impl Client {
    async fn connect(kind: &str) -> Client {
        let exe = std::env::current_exe().expect("the bench binary");
        match kind {
            "sdk" => {
                let client = McpClient::stdio("bench", exe)
                    .env("MCP_BENCH_SERVE", "1")
                    .connect()
                    .await
                    .expect("the bench server starts");
                let tools = McpToolset::new(&client).await.expect("listing");
                let tool = tools
                    .tools()
                    .iter()
                    .find(|t| t.remote_name() == "distance")
                    .expect("the distance tool")
                    .clone();
                Client::Sdk(tool)
            }
            _ => {
                use rmcp::ServiceExt;
                let mut command = tokio::process::Command::new(exe);
                command.env("MCP_BENCH_SERVE", "1");
                let transport =
                    rmcp::transport::TokioChildProcess::new(command).expect("the server starts");
                Client::Rmcp(().serve(transport).await.expect("the handshake"))
            }
        }
    }

    /// One call of `distance`, down to its text.
    async fn call(&self) -> String {
        match self {
            Client::Sdk(tool) => tool.invoke(args()).await.unwrap().text_content(),
            Client::Rmcp(service) => {
                let Value::Object(arguments) = args() else {
                    unreachable!()
                };
                let params =
                    rmcp::model::CallToolRequestParams::new("distance").with_arguments(arguments);
                let result = service.peer().call_tool(params).await.unwrap();
                assert_ne!(result.is_error, Some(true));
                result
                    .content
                    .first()
                    .and_then(|c| c.as_text())
                    .map(|t| t.text.clone())
                    .expect("a text in the result")
            }
        }
    }

    fn calls(&self, rt: &tokio::runtime::Runtime, n: usize) {
        rt.block_on(async {
            for _ in 0..n {
                black_box(self.call().await);
            }
        })
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// CPU time per call of the SDK and of the hand-written rmcp client, paired rounds.
fn cpu_vs_rmcp(rt: &tokio::runtime::Runtime) {
    const ROUNDS: usize = 21;
    const CALLS: usize = 500;
    let sdk = rt.block_on(Client::connect("sdk"));
    let by_hand = rt.block_on(Client::connect("rmcp"));
    assert_eq!(rt.block_on(sdk.call()), rt.block_on(by_hand.call()));
    sdk.calls(rt, CALLS);
    by_hand.calls(rt, CALLS);
    let time = |client: &Client| {
        let start = cpu_now();
        client.calls(rt, CALLS);
        (cpu_now() - start).as_secs_f64() * 1e6 / CALLS as f64
    };
    let (mut ours, mut theirs, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (a, b) = if round % 2 == 0 {
            let a = time(&sdk);
            (a, time(&by_hand))
        } else {
            let b = time(&by_hand);
            (time(&sdk), b)
        };
        ours.push(a);
        theirs.push(b);
        ratios.push(a / b);
    }
    let ratio = median(ratios);
    println!(
        "mcp_call_vs_rmcp: CPU µs per call of this (client) process, median of {ROUNDS} rounds of {CALLS}"
    );
    println!("  sdk (McpTool::invoke)   {:6.1} µs", median(ours));
    println!("  rmcp by hand            {:6.1} µs", median(theirs));
    println!(
        "RATIO mcp_call_vs_rmcp: sdk / rmcp by hand = {ratio:.3}x (median of per-round ratios; target <= 1.1x: {})",
        if ratio <= 1.1 { "met" } else { "NOT met" }
    );
}

/// Instructions of a child client making `calls` calls, under callgrind.
fn instructions(kind: &str, calls: usize) -> f64 {
    callgrind::instructions_of_self(&["--only", kind, &calls.to_string()]) as f64
}

fn instructions_vs_rmcp() {
    println!(
        "mcp_call_vs_rmcp: instructions per call of the client, (1,200 calls - 200 calls) / 1,000"
    );
    let per_call = |kind| (instructions(kind, 1200) - instructions(kind, 200)) / 1000.0;
    let (ours, theirs) = (per_call("sdk"), per_call("rmcp"));
    println!("  sdk (McpTool::invoke)   {ours:8.0}");
    println!("  rmcp by hand            {theirs:8.0}");
    println!(
        "RATIO mcp_call_vs_rmcp instructions: sdk / rmcp by hand = {:.3}x",
        ours / theirs
    );
}

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if std::env::var_os("MCP_BENCH_SERVE").is_some() {
        rt.block_on(serve());
        return;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--only") {
        // A callgrind child: connect, then `n` calls.
        let client = rt.block_on(Client::connect(&args[i + 1]));
        client.calls(&rt, args[i + 2].parse().expect("a number of calls"));
        return;
    }
    if args.iter().any(|a| a == "--instructions") {
        instructions_vs_rmcp();
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &rt);
    c.final_summary();
    cpu_vs_rmcp(&rt);
}
