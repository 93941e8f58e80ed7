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
//! The child process is this bench binary itself, started with `MCP_BENCH_SERVE=1`.
//!
//! Run: `cargo bench --bench mcp`

use std::hint::black_box;
use std::sync::Arc;

use agentry::agent::{DynTool, FnTool, Typed};
use agentry::mcp::{McpClient, McpServer, McpToolset};
use agentry::prelude::*;
use agentry::{ToolDefinition, ToolOutput};
use criterion::Criterion;
use serde_json::{Value, json};

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

fn main() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if std::env::var_os("MCP_BENCH_SERVE").is_some() {
        rt.block_on(serve());
        return;
    }
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c, &rt);
    c.final_summary();
}
