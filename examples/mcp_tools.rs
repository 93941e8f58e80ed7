//! An agent using the tools of an MCP server — the official reference time server,
//! `mcp-server-time` — beside a static `#[tool]`.
//!
//! The server runs as a child process speaking MCP over stdio. Its tools are listed, their
//! schemas checked (and lowered into the OpenAI dialect up front), prefixed with `time_`, and
//! given to the agent; the model's arguments are validated against the server's schemas
//! before each call, and each call has a timeout.
//!
//! Offline by default: the model is the SDK's `MockServer` playing a scripted part (it asks
//! for the time in Tokyo, then answers from the tool's result). With `OPENAI_API_KEY` (or
//! another provider, see the quickstart) a real model decides.
//!
//! The server: `MCP_TIME_SERVER` (a command line), else `mcp-server-time` from the Python
//! environment the MCP tests use (`target/mcp-venv`, created on first use from the pinned
//! `tests/mcp/requirements.txt`; this needs `python3` and the Python package registry once).
//!
//! Run: `cargo run --example mcp_tools`

mod support;

use std::time::Duration;

use agentry::mcp::{McpClient, McpToolset, StructuredContent};
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};

/// The number of whole hours between two UTC offsets written like `+09:00`.
///
/// # Arguments
/// * `from` - The first offset.
/// * `to` - The second offset.
#[tool]
fn hours_between(from: String, to: String) -> Result<i32, String> {
    let hours = |s: &str| -> Result<i32, String> {
        let (h, _) = s
            .split_once(':')
            .ok_or(format!("`{s}` is not like +09:00"))?;
        h.parse::<i32>().map_err(|e| format!("`{s}`: {e}"))
    };
    Ok(hours(&to)? - hours(&from)?)
}

/// You answer questions about time zones. Use the time tools; do not guess the time.
#[agent(tools(hours_between))]
struct TimeAssistant;

fn time_server() -> Result<Vec<String>, String> {
    if let Ok(line) = std::env::var("MCP_TIME_SERVER") {
        return Ok(line.split_whitespace().map(str::to_string).collect());
    }
    let env = support::python_env::ensure()?;
    Ok(vec![env.bin("mcp-server-time").display().to_string()])
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let command = time_server()?;
    println!("starting the MCP server: {}", command.join(" "));
    let client = McpClient::stdio("time", &command[0])
        .args(command[1..].iter().cloned())
        .args(["--local-timezone", "Europe/London"])
        .call_timeout(Duration::from_secs(10))
        .connect()
        .await
        .map_err(|e| {
            format!("{e}\n(the server comes from target/mcp-venv, or set MCP_TIME_SERVER)")
        })?;
    let tools = McpToolset::builder(&client)
        .prefix("time")
        .dialect(Dialect::OpenAi)
        .load()
        .await?;
    println!(
        "MCP tools: {}\n",
        tools.names().collect::<Vec<_>>().join(", ")
    );

    let backend = support::backend(mock_model).await?;
    let agent = TimeAssistant::builder(backend.model)
        .max_turns(4)
        .mcp_tools(&tools)?
        .build();
    let run = agent.run("What time is it in Tokyo?", ()).await?;
    for step in &run.steps {
        match &step.result {
            Ok(out) => {
                println!("tool {} → {}", step.call.name, out.text_content());
                if let Some(StructuredContent(value)) = out.artifact::<StructuredContent>() {
                    println!("  structuredContent: {value}");
                }
            }
            Err(e) => println!("tool {} → {}", step.call.name, e.model_message()),
        }
    }
    println!("\n{}\n\nusage: {}", run.output, run.usage);
    Ok(())
}

/// The offline model: asks the time server for Tokyo's time, then reports it.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    match request.tool_results().first() {
        None => MockResponse::tool_calls(vec![ToolCall::new(
            "call_1",
            "time_get_current_time",
            r#"{"timezone":"Asia/Tokyo"}"#,
        )]),
        Some((_, result)) => {
            let value: serde_json::Value = serde_json::from_str(result).unwrap_or_default();
            let time = value["datetime"].as_str().unwrap_or(result.as_str());
            MockResponse::text(format!("In Tokyo it is now {time}."))
        }
    }
}
