//! The job both clients do, and what the mock model answers: one tool, one city, one answer.

use agentry::prelude::*;

/// The model name both clients send.
pub const MODEL: &str = "gpt-4o-mini";

/// The API key both clients send (the mock server accepts any).
pub const API_KEY: &str = "sk-bench-overhead-0000";

/// The system prompt both clients send.
pub const INSTRUCTIONS: &str = "You are a weather assistant. Use the tools to answer.";

/// The user message of every run.
pub const QUESTION: &str = "What is the weather in Paris?";

/// The arguments of the tool call the mock model makes.
pub const TOOL_ARGUMENTS: &str = r#"{"city":"Paris"}"#;

/// The id of the tool call the mock model makes.
pub const TOOL_CALL_ID: &str = "call_weather_1";

/// The final answer the mock model gives once it has the tool result.
pub const ANSWER: &str = "It is 21 degrees and sunny in Paris.";

// `inline`: the baseline calls this function in place, and so does the SDK. (Without it, a
// sync tool runs on tokio's blocking pool: a thread hand-off per call that the hand-written
// client does not make.)
/// Look up the current weather for a city.
///
/// # Arguments
/// * `city` - City name, e.g. "Paris".
#[tool(inline)]
pub fn get_weather(city: String) -> String {
    format!("{city}: 21 degrees, sunny")
}

/// You are a weather assistant. Use the tools to answer.
#[agent(tools(get_weather))]
pub struct Forecaster;

/// The tool result the mock model expects for the run's call.
pub fn expected_tool_result() -> String {
    get_weather("Paris".to_owned())
}
