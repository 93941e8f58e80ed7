//! What a dead server's error quotes from its stderr.

use super::*;

#[tokio::test]
async fn a_dead_server_s_message_quotes_only_the_stderr_written_since_the_last_call() {
    let client = McpClient::stdio("everything-py", python())
        .arg(script("everything_server.py"))
        .reconnect(Reconnect::Never)
        .connect()
        .await
        .unwrap();
    // Over 2 KB of harmless log lines, then a round trip more so the reader has them all
    // before the crashing call begins.
    client
        .call_tool("noise", json!({ "lines": 80 }))
        .await
        .unwrap();
    client
        .call_tool("echo", json!({ "text": "still fine" }))
        .await
        .unwrap();
    let err = client.call_tool("crash", json!({})).await.unwrap_err();
    let McpError::ServerGone { message, .. } = &err else {
        panic!("expected ServerGone, got {err}");
    };
    assert!(message.contains("crashing on purpose"), "{message}");
    assert!(
        !message.contains("old noise"),
        "old output is left out: {message}"
    );
}
