//! Parallel tool calls: the model asks for several tools in one answer; the runtime runs them
//! concurrently (up to a cap), keeps their results in the order the model asked, and runs a
//! `sequential` tool alone.
//!
//! Offline by default (the built-in `MockServer` plays the model); set `OPENAI_API_KEY` (or
//! another provider's key, see `examples/support/mod.rs`) to use a real model.
//!
//! Run: `cargo run --example parallel_tools`

mod support;

use std::time::{Duration, Instant};

use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};

/// Look up the price of a stock, in USD. Takes a while, like any remote API.
///
/// # Arguments
/// * `symbol` - The ticker symbol, e.g. "ACME".
#[tool]
async fn stock_price(symbol: String) -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    let cents: u32 = symbol.bytes().map(u32::from).sum::<u32>() * 7;
    format!("{symbol}: {}.{:02} USD", cents / 100, cents % 100)
}

/// Write a line to the audit log. Runs alone: never concurrently with other tools.
///
/// # Arguments
/// * `line` - What to record.
#[tool(sequential)]
async fn audit_log(line: String) -> String {
    tokio::time::sleep(Duration::from_millis(50)).await;
    format!("logged: {line}")
}

/// You answer questions about stock prices. Look up every symbol asked for, in one go.
#[agent(tools(stock_price, audit_log))]
struct Broker;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let broker = Broker::builder(backend.model).max_parallel_tools(8).build();

    let started = Instant::now();
    let run = broker
        .run("What do ACME, GLOBEX, INITECH and UMBRELLA trade at?", ())
        .await?;
    let elapsed = started.elapsed();

    for step in &run.steps {
        let result = step.result.as_ref().map(ToolOutput::text_content);
        println!(
            "turn {} · {} → {}",
            step.turn,
            step.call.name,
            result.unwrap_or_else(|e| e.model_message())
        );
    }
    println!("\nassistant: {}", run.output);
    println!(
        "\n4 price lookups of 300 ms each took {elapsed:.2?} in all: they ran concurrently \
         (results kept in the order the model asked)."
    );
    Ok(())
}

/// The offline stand-in for a model: one answer with four lookups and an audit line, then a
/// summary of the results.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let results = request.tool_results();
    if results.is_empty() {
        let mut calls: Vec<ToolCall> = ["ACME", "GLOBEX", "INITECH", "UMBRELLA"]
            .iter()
            .map(|s| {
                ToolCall::new(
                    format!("price_{s}"),
                    "stock_price",
                    format!(r#"{{"symbol":"{s}"}}"#),
                )
            })
            .collect();
        calls.push(ToolCall::new(
            "audit",
            "audit_log",
            r#"{"line":"price check for 4 symbols"}"#,
        ));
        return MockResponse::tool_calls(calls);
    }
    let prices: Vec<String> = results
        .into_iter()
        .filter(|(id, _)| id.starts_with("price_"))
        .map(|(_, text)| text)
        .collect();
    MockResponse::text(prices.join("; "))
}
