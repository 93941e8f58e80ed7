//! `--serve`: the mock model in its own process, so its CPU time is not the client's.
//!
//! It prints `URL <base url>` on stdout, then serves until its stdin is closed (the parent
//! holds the other end, so the server also ends when the parent dies).

use std::io::{Read, Write};

use agentry::ToolCall;
use agentry::testing::{MockResponse, MockServer, RecordedRequest};

use crate::job;

/// The line prefix the URL is printed after.
pub const URL_PREFIX: &str = "URL ";

/// Runs the server until stdin closes.
pub fn serve() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let expected = job::expected_tool_result();
        let server = MockServer::with_handler(move |request| answer(request, &expected)).await;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{URL_PREFIX}{}", server.url())?;
        stdout.flush()?;
        drop(stdout);
        tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            std::io::stdin().read_to_end(&mut sink).map(|_| ())
        })
        .await
        .map_err(std::io::Error::other)??;
        drop(server);
        Ok(())
    })
}

/// The model's part: a tool call for the user's question, the final answer once the tool
/// result is there. Anything else is answered with a 400 so a client that does the job
/// wrong fails instead of being measured.
fn answer(request: &RecordedRequest, expected: &str) -> MockResponse {
    let messages = request.body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    let offers_tool = request.body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == "get_weather"));
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

fn refuse(message: &str) -> MockResponse {
    MockResponse::error(
        400,
        &format!("bench server: {message}"),
        "invalid_request_error",
        None,
        None,
    )
}
