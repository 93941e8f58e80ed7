//! A schema from outside the program (a dynamic tool's, an MCP server's) cannot crash the
//! process or take unbounded memory: it is measured against the size caps before anything
//! walks it recursively (the argument validator is compiled only after the caps pass).
//!
//! Each scenario runs in a child process (this binary re-executed with
//! `AGENTRY_SCHEMA_SCENARIO` set), since a stack overflow aborts the whole process: the child
//! builds an agent with the schema inside a tokio task (worker threads have small stacks),
//! runs it against a `MockServer`, and reports the error and how much its peak RSS grew
//! after the schema was built.

use std::process::Command;
use std::sync::Arc;

use agentry::agent::{AgentBuilder, FnTool, NoTools};
use agentry::testing::MockServer;
use agentry::{ToolDefinition, ToolOutput};
use serde_json::{Map, Value, json};

mod peak_rss;
use peak_rss::peak_rss;

const SCENARIO_ENV: &str = "AGENTRY_SCHEMA_SCENARIO";
const SCENARIOS: &[&str] = &["depth_100", "depth_600", "depth_10000", "properties_100000"];
/// How much a child's peak resident memory may grow once its schema is built.
const MAX_RSS: usize = 64 << 20;

fn main() {
    match std::env::var(SCENARIO_ENV) {
        Ok(name) => {
            // A big stack for this thread only: dropping a 10,000-level `Value` recurses.
            let child = std::thread::Builder::new()
                .stack_size(1 << 30)
                .spawn(move || child(&name))
                .unwrap();
            child.join().unwrap();
        }
        Err(_) => parent(),
    }
}

fn parent() {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut failures = Vec::new();
    for name in SCENARIOS {
        let out = Command::new(&exe)
            .env(SCENARIO_ENV, name)
            .output()
            .expect("re-running the test binary");
        let stdout = String::from_utf8_lossy(&out.stdout);
        if !out.status.success() {
            failures.push(format!(
                "{name}: the child died ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr)
                    .lines()
                    .last()
                    .unwrap_or("")
            ));
            continue;
        }
        let Some(line) = stdout.lines().find_map(|l| l.strip_prefix("RESULT ")) else {
            failures.push(format!("{name}: no result: {stdout}"));
            continue;
        };
        let (rss, error) = line.split_once(' ').unwrap();
        let rss: usize = rss.parse().unwrap();
        println!(
            "{name}: peak RSS grew {:.1} MiB: {error}",
            rss as f64 / (1 << 20) as f64
        );
        if !error.starts_with("Model(Schema(") {
            failures.push(format!("{name}: expected a schema error, got {error}"));
        }
        if rss > MAX_RSS {
            failures.push(format!("{name}: peak RSS {rss} bytes, over {MAX_RSS}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    println!("foreign_schemas: {} passed, 0 failed", SCENARIOS.len());
}

/// An object schema nesting `depth` levels of objects.
fn deep(depth: usize) -> Value {
    let mut schema = json!({ "type": "string" });
    for _ in 0..depth {
        schema = json!({ "type": "object", "properties": { "a": schema } });
    }
    schema
}

/// An object schema with `n` properties.
fn wide(n: usize) -> Value {
    let properties: Map<String, Value> = (0..n)
        .map(|i| (format!("p{i}"), json!({ "type": "string" })))
        .collect();
    json!({ "type": "object", "properties": properties })
}

fn child(name: &str) {
    let schema = match name {
        "properties_100000" => wide(100_000),
        other => deep(other.trim_start_matches("depth_").parse().unwrap()),
    };
    // What the caller already paid for (the schema as a `Value`) is not the SDK's to bound.
    let baseline = peak_rss();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (agent, error) = runtime.block_on(async move {
        tokio::spawn(async move {
            let server = MockServer::start().await;
            let tool = FnTool::new(
                ToolDefinition::new("foreign", "A tool from elsewhere.", schema, false),
                |_args: Value, _rt: &agentry::ToolRuntime| async move {
                    Ok(ToolOutput::text("ran"))
                },
            );
            let agent = AgentBuilder::<_, _, (), ()>::new(
                Arc::new(server.openai_model("mock")),
                NoTools,
            )
            .dyn_tool(tool)
            .build();
            let error = match agent.run("hi", ()).await {
                Ok(_) => "no error: the run finished".to_string(),
                Err(e) => format!("{:?}", e.kind()),
            };
            // The agent goes back to the big-stack thread to be dropped.
            (agent, error)
        })
        .await
        .unwrap()
    });
    let error: String = error.chars().take(300).collect();
    println!("RESULT {} {error}", peak_rss() - baseline);
    drop(agent);
}
