//! The conversation the thread benches run on.

use agentry::{Message, ToolCall};

/// Message `i` of a weather conversation that repeats every four messages: a question, a tool
/// call, its result, an answer.
pub fn message(i: usize) -> Message {
    match i % 4 {
        0 => Message::user(format!("What is the weather in city {i}?")),
        1 => Message::assistant_tool_calls(vec![ToolCall::new(
            format!("call_{i}"),
            "get_weather",
            r#"{"city":"Paris","units":"celsius"}"#,
        )]),
        2 => Message::tool_result(
            format!("call_{}", i - 1),
            "get_weather",
            "Paris: 18°C, clear skies, light wind from the west at 10 km/h, humidity 60%.",
        ),
        _ => Message::assistant("It is 18°C and clear in Paris, a fine day for a walk."),
    }
}
