//! `--serve`: the mock model in its own process, so its CPU time is not the client's.
//!
//! It prints `URL <base url>` on stdout, then serves until its stdin is closed (the parent
//! holds the other end, so the server also ends when the parent dies).

use agentry::ToolCall;
use agentry::testing::{MockResponse, RecordedRequest};

use crate::job;
use crate::process_server::{messages, offers_tool, refuse};

pub use crate::process_server::URL_PREFIX;

/// Runs the server until stdin closes.
pub fn serve() -> std::io::Result<()> {
    let expected = job::expected_tool_result();
    crate::process_server::serve(move |request| answer(request, &expected))
}

/// The model's part: a tool call for the user's question, the final answer once the tool
/// result is there. Anything else is answered with a 400 so a client that does the job
/// wrong fails instead of being measured.
fn answer(request: &RecordedRequest, expected: &str) -> MockResponse {
    let messages = messages(request);
    let offers_tool = offers_tool(request, "get_weather");
    let Some(last) = messages.last() else {
        return refuse("the request has no messages");
    };
    match last["role"].as_str() {
        Some("user") if offers_tool && last["content"] == job::QUESTION => {
            MockResponse::tool_calls(vec![ToolCall::new(
                job::TOOL_CALL_ID,
                "get_weather",
                job::TOOL_ARGUMENTS,
            )])
        }
        Some("user") => refuse("expected the question with the get_weather tool offered"),
        Some("tool")
            if last["tool_call_id"] == job::TOOL_CALL_ID && last["content"] == expected =>
        {
            MockResponse::text(job::ANSWER)
        }
        Some("tool") => refuse(&format!(
            "expected the tool result {expected:?} for {}, got {}",
            job::TOOL_CALL_ID,
            last
        )),
        _ => refuse("the last message is neither the question nor a tool result"),
    }
}
