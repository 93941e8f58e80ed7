//! Reading a served run's SSE body: its events, and reading on until one of them appears.

use serde_json::Value;

/// The `data:` payloads of an SSE body (`[DONE]` as the string "[DONE]").
pub fn sse_events(body: &str) -> Vec<Value> {
    body.split("\n\n")
        .filter_map(|frame| frame.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap_or_else(|_| Value::String(data.to_owned())))
        .collect()
}

/// Reads `response`'s body until one of its events satisfies `wanted`, and returns what was
/// read; panics if the body ends first.
pub async fn read_until(
    response: &mut reqwest::Response,
    wanted: impl Fn(&Value) -> bool,
) -> String {
    let mut seen = String::new();
    while !sse_events(&seen).iter().any(&wanted) {
        let chunk = response
            .chunk()
            .await
            .unwrap()
            .expect("the stream ended before the awaited event");
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    seen
}
