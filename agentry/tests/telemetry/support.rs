//! Shared by the telemetry tests: an agent whose streamed run makes two parallel tool calls and
//! is re-asked once, the mock server's script for it, and span lookups.

use std::time::Duration;

use agentry::ToolCall;
use agentry::prelude::*;
use agentry::testing::MockResponse;

/// Content capture and the metrics meter are process-wide: tests touching them take turns.
pub static GLOBAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The agent's typed answer.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
pub struct Total {
    /// The result.
    pub total: i64,
}

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
pub async fn add(a: i64, b: i64) -> i64 {
    // Long enough for the two calls of one answer to overlap.
    tokio::time::sleep(Duration::from_millis(30)).await;
    a + b
}

/// Multiply two integers.
///
/// # Arguments
/// * `a` - The first factor.
/// * `b` - The second factor.
#[tool]
pub async fn mul(a: i64, b: i64) -> i64 {
    tokio::time::sleep(Duration::from_millis(30)).await;
    a * b
}

/// You compute with the tools.
#[agent(tools(add, mul), output = Total)]
pub struct Calculator;

pub fn usage(input: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        requests: 1,
        ..Usage::default()
    }
}

/// Two parallel calls, an answer that is not JSON (re-asked), then the answer.
pub fn script() -> Vec<MockResponse> {
    vec![
        MockResponse::tool_calls(vec![
            ToolCall::new("call_add", "add", r#"{"a": 2, "b": 3}"#),
            ToolCall::new("call_mul", "mul", r#"{"a": 4, "b": 5}"#),
        ])
        .usage(usage(100, 20)),
        MockResponse::text("the total is 25").usage(usage(150, 5)),
        MockResponse::text(r#"{"total": 25}"#).usage(usage(170, 7)),
    ]
}
