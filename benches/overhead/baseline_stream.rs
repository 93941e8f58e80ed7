//! The hand-written client's streamed answer: reqwest's `bytes_stream()`, an SSE line splitter
//! (buffer the bytes, split on `\n`, take the `data: ` lines, stop at `[DONE]`), serde structs
//! for the `chat.completion.chunk` objects, and the deltas added up into one message: the text,
//! and the tool calls by index (id and name from their first chunk, arguments appended).

use futures::StreamExt;
use serde::Deserialize;

use crate::baseline::{BaselineError, InFunction, InMessage, InToolCall, WireUsage};

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    delta: Delta,
}

#[derive(Deserialize, Default)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<DeltaToolCall>,
}

#[derive(Deserialize)]
struct DeltaToolCall {
    index: usize,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<DeltaFunction>,
}

#[derive(Deserialize)]
struct DeltaFunction {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

/// What the chunks add up to so far.
#[derive(Default)]
struct Answer {
    message: InMessage,
    usage: Option<WireUsage>,
}

impl Answer {
    fn add(&mut self, chunk: Chunk) {
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        for choice in chunk.choices {
            let delta = choice.delta;
            if let Some(text) = delta.content {
                match &mut self.message.content {
                    Some(content) => content.push_str(&text),
                    None => self.message.content = Some(text),
                }
            }
            for call in delta.tool_calls {
                let calls = &mut self.message.tool_calls;
                if calls.len() <= call.index {
                    calls.resize_with(call.index + 1, InToolCall::default);
                }
                let slot = &mut calls[call.index];
                if let Some(id) = call.id {
                    slot.id = id;
                }
                if let Some(f) = call.function {
                    let InFunction { name, arguments } = &mut slot.function;
                    if let Some(n) = f.name {
                        *name = n;
                    }
                    if let Some(a) = f.arguments {
                        arguments.push_str(&a);
                    }
                }
            }
        }
    }
}

/// Reads a streamed answer to its `[DONE]` (then the rest of the body, so the connection
/// goes back to the pool).
pub async fn read(
    response: reqwest::Response,
) -> Result<(InMessage, Option<WireUsage>), BaselineError> {
    let mut body = response.bytes_stream();
    let mut buffer: Vec<u8> = Vec::new();
    let mut answer = Answer::default();
    let mut done = false;
    while let Some(bytes) = body.next().await {
        let bytes = bytes?;
        if done {
            continue;
        }
        buffer.extend_from_slice(&bytes);
        let mut start = 0;
        while let Some(end) = buffer[start..].iter().position(|&b| b == b'\n') {
            let line = &buffer[start..start + end];
            start += end + 1;
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            let Some(data) = line.strip_prefix(b"data: ") else {
                continue;
            };
            if data == b"[DONE]" {
                done = true;
                break;
            }
            let chunk: Chunk =
                serde_json::from_slice(data).map_err(|source| BaselineError::Chunk { source })?;
            answer.add(chunk);
        }
        buffer.drain(..start);
    }
    if !done {
        return Err(BaselineError::Truncated);
    }
    Ok((answer.message, answer.usage))
}
