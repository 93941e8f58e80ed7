//! Server-Sent Events: a response body decoded into events.
//!
//! Decoding is done by [`eventsource_stream`], which buffers across arbitrary chunk
//! boundaries (inside a line, inside a UTF-8 character) and follows the HTML specification
//! (`\n`, `\r\n` and `\r` line ends, multi-line `data:`, comments, a leading BOM).

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};

use crate::model::ModelError;

/// One Server-Sent Event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type (`message` when the server named none).
    pub event: String,
    /// The data lines, joined with `\n`.
    pub data: String,
}

/// Decodes a body, given as a stream of byte chunks, into events. Transport errors pass
/// through; malformed UTF-8 or SSE syntax becomes [`ModelError::Decode`].
///
/// ```
/// use agent_sdk::http::sse::{SseEvent, decode};
/// use futures::{StreamExt, stream};
///
/// let chunks = ["data: {\"a\"", ":1}\n", "\ndata: [DONE]\n\n"];
/// let body = stream::iter(chunks.map(|c| Ok(bytes::Bytes::from(c))));
/// let events: Vec<_> = futures::executor::block_on(decode(body).collect());
/// assert_eq!(events[0].as_ref().unwrap().data, "{\"a\":1}");
/// assert_eq!(events[1].as_ref().unwrap().data, "[DONE]");
/// ```
pub fn decode<S, B>(body: S) -> impl Stream<Item = Result<SseEvent, ModelError>> + Send
where
    S: Stream<Item = Result<B, ModelError>> + Send,
    B: AsRef<[u8]> + Send,
{
    body.eventsource().map(|item| match item {
        Ok(e) => Ok(SseEvent {
            event: e.event,
            data: e.data,
        }),
        Err(EventStreamError::Transport(err)) => Err(err),
        Err(EventStreamError::Utf8(err)) => {
            Err(ModelError::Decode(format!("stream is not valid UTF-8: {err}")))
        }
        Err(EventStreamError::Parser(err)) => {
            Err(ModelError::Decode(format!("malformed server-sent event: {err}")))
        }
    })
}
