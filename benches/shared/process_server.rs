//! The mock model of a bench whose client runs in another process: the SDK's `MockServer`
//! answering with a handler, its URL printed as `URL <base url>` on stdout, served until
//! stdin closes (the parent holds the other end, so the server also ends when the parent
//! dies). Included with `#[path]` by the benches that use it.

use std::io::{Read, Write};

use agentry::testing::{MockResponse, MockServer, RecordedRequest};
use serde_json::Value;

/// The line prefix the URL is printed after.
pub const URL_PREFIX: &str = "URL ";

/// Serves `handler` until stdin closes.
pub fn serve(
    handler: impl Fn(&RecordedRequest) -> MockResponse + Send + Sync + 'static,
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let server = MockServer::with_handler(handler).await;
        let mut stdout = std::io::stdout().lock();
        writeln!(stdout, "{URL_PREFIX}{}", server.url())?;
        stdout.flush()?;
        drop(stdout);
        tokio::task::spawn_blocking(|| std::io::stdin().read_to_end(&mut Vec::new()).map(|_| ()))
            .await
            .map_err(std::io::Error::other)??;
        drop(server);
        Ok(())
    })
}

/// The request's messages (none when it has no list).
pub fn messages(request: &RecordedRequest) -> &[Value] {
    request.body["messages"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// Whether the request offers a function tool named `name`.
pub fn offers_tool(request: &RecordedRequest, name: &str) -> bool {
    request.body["tools"]
        .as_array()
        .is_some_and(|tools| tools.iter().any(|t| t["function"]["name"] == name))
}

/// A 400 answer, so a client that does the job wrong fails instead of being measured.
pub fn refuse(message: &str) -> MockResponse {
    MockResponse::error(
        400,
        &format!("bench server: {message}"),
        "invalid_request_error",
        None,
        None,
    )
}
