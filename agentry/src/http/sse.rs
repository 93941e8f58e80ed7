//! Server-Sent Events: a response body decoded into events.
//!
//! [`SseDecoder`] follows the HTML specification's event-stream interpretation: lines end in
//! `\n`, `\r\n` or `\r`; `data:` lines accumulate (joined with `\n`); `event:` names the
//! event; lines starting with `:` are comments; a blank line dispatches the event; a leading
//! BOM is skipped; an event not terminated by a blank line when the body ends is discarded.
//! Input may be split anywhere — inside a line, inside a UTF-8 character, between `\r` and
//! `\n`. Lines are found with `memchr` and parsed in place; only an unfinished last line is
//! buffered until the next chunk.
//!
//! (The `eventsource-stream` crate implements the same rules, but copies the rest of its
//! buffer for every line it consumes; on a recorded Chat Completions stream it cost 2.7× a
//! hand-written line splitter with 1460-byte reads and 3.9× with 16 KiB reads.)

use std::collections::VecDeque;

use futures::{Stream, StreamExt};

use super::ResponseLimit;
use crate::model::ModelError;

/// One Server-Sent Event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SseEvent {
    /// The event type (`message` when the server named none).
    pub event: String,
    /// The data lines, joined with `\n`.
    pub data: String,
}

/// A Server-Sent Event borrowed from the decoder (no allocation per event).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SseEventRef<'a> {
    /// The event type (`message` when the server named none).
    pub event: &'a str,
    /// The data lines, joined with `\n`.
    pub data: &'a str,
}

/// An incremental Server-Sent Events decoder.
///
/// ```
/// use agentry::http::sse::SseDecoder;
/// use std::collections::VecDeque;
///
/// let mut decoder = SseDecoder::new();
/// let mut events = VecDeque::new();
/// decoder.push(b"data: {\"a\"", &mut events).unwrap();
/// assert!(events.is_empty());
/// decoder.push(b":1}\r\n\r\n: comment\n\nevent: ping\ndata: x\ndata: y\n\n", &mut events).unwrap();
/// assert_eq!(events[0].data, "{\"a\":1}");
/// assert_eq!((events[1].event.as_str(), events[1].data.as_str()), ("ping", "x\ny"));
/// ```
#[derive(Debug)]
pub struct SseDecoder {
    /// The longest line and the largest event data accepted.
    max_event_bytes: usize,
    buf: Vec<u8>,
    data: String,
    event: String,
    has_data: bool,
    started: bool,
    /// The previous chunk ended with `\r`: a `\n` starting the next one belongs to it.
    skip_lf: bool,
}

impl Default for SseDecoder {
    fn default() -> Self {
        SseDecoder {
            max_event_bytes: usize::MAX,
            buf: Vec::new(),
            data: String::new(),
            event: String::new(),
            has_data: false,
            started: false,
            skip_lf: false,
        }
    }
}

impl SseDecoder {
    /// A decoder at the start of a body, without a size cap.
    pub fn new() -> Self {
        SseDecoder::default()
    }

    /// A decoder that fails with [`ModelError::LimitExceeded`] (cap
    /// [`ResponseLimit::EventBytes`]) as soon as a line or an event's data grows past `max`
    /// bytes, without buffering more than that.
    ///
    /// ```
    /// use agentry::http::sse::SseDecoder;
    /// use agentry::model::ModelError;
    /// use std::collections::VecDeque;
    ///
    /// let mut d = SseDecoder::with_max_event_bytes(16);
    /// let err = d.push(&[b'x'; 64], &mut VecDeque::new()).unwrap_err();
    /// assert!(matches!(err, ModelError::LimitExceeded { max: 16, .. }));
    /// ```
    pub fn with_max_event_bytes(max: usize) -> Self {
        SseDecoder {
            max_event_bytes: max,
            ..SseDecoder::default()
        }
    }

    fn check_buf(&self) -> Result<(), ModelError> {
        if self.buf.len() > self.max_event_bytes {
            return Err(ResponseLimit::EventBytes.exceeded(self.max_event_bytes));
        }
        Ok(())
    }

    /// Feeds the next piece of the body; complete events are appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut VecDeque<SseEvent>) -> Result<(), ModelError> {
        self.push_each(bytes, |e| {
            out.push_back(SseEvent {
                event: e.event.to_owned(),
                data: e.data.to_owned(),
            });
            Ok(())
        })
    }

    /// Feeds the next piece of the body, calling `f` with each complete event as it is
    /// decoded; an error from `f` stops decoding and is returned.
    pub fn push_each<F>(&mut self, mut bytes: &[u8], mut f: F) -> Result<(), ModelError>
    where
        F: FnMut(SseEventRef<'_>) -> Result<(), ModelError>,
    {
        let out = &mut f;
        if self.skip_lf {
            if bytes.is_empty() {
                return Ok(());
            }
            self.skip_lf = false;
            if bytes[0] == b'\n' {
                bytes = &bytes[1..];
            }
        }
        if !self.started {
            // Wait for three bytes to tell a BOM from ordinary content.
            self.buf.extend_from_slice(bytes);
            self.check_buf()?;
            if self.buf.len() < 3 && b"\xEF\xBB\xBF".starts_with(&self.buf) {
                return Ok(());
            }
            self.started = true;
            if self.buf.starts_with(b"\xEF\xBB\xBF") {
                self.buf.drain(..3);
            }
            let buf = std::mem::take(&mut self.buf);
            let rest = self.lines(&buf, out)?;
            self.buf.extend_from_slice(&buf[rest..]);
            return self.check_buf();
        }
        if !self.buf.is_empty() {
            // Finish the pending partial line with the head of the input, without copying
            // the rest of the input into the buffer.
            let Some(i) = memchr::memchr2(b'\n', b'\r', bytes) else {
                self.buf.extend_from_slice(bytes);
                return self.check_buf();
            };
            self.buf.extend_from_slice(&bytes[..i]);
            self.check_buf()?;
            let mut next = i + 1;
            if bytes[i] == b'\r' {
                match bytes.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            let line = std::mem::take(&mut self.buf);
            let result = self.line(&line, out);
            self.buf = line;
            self.buf.clear();
            result?;
            bytes = &bytes[next..];
        }
        // The common case: scan the input in place; keep only an unfinished last line.
        let rest = self.lines(bytes, out)?;
        self.buf.extend_from_slice(&bytes[rest..]);
        self.check_buf()
    }

    /// Processes the complete lines of `input`; returns where the incomplete tail begins.
    fn lines<F>(&mut self, input: &[u8], out: &mut F) -> Result<usize, ModelError>
    where
        F: FnMut(SseEventRef<'_>) -> Result<(), ModelError>,
    {
        let mut start = 0;
        while let Some(off) = memchr::memchr2(b'\n', b'\r', &input[start..]) {
            let end = start + off;
            let mut next = end + 1;
            if input[end] == b'\r' {
                match input.get(next) {
                    Some(b'\n') => next += 1,
                    Some(_) => {}
                    None => self.skip_lf = true,
                }
            }
            let line = &input[start..end];
            start = next;
            // The blank line that usually follows (`\n\n`) is taken without another search.
            let blank_follows = input.get(start) == Some(&b'\n') && !self.skip_lf;
            if blank_follows {
                start += 1;
            }
            let parsed = if line.is_empty() {
                None
            } else {
                field_value(line)
            };
            match parsed {
                // The usual event, one `data` line and the blank line ending it: its data
                // is handed on from the input, not copied into `self.data` first.
                Some((b"data", value)) if blank_follows && !self.has_data => {
                    self.single_data_event(value, out)?;
                    continue;
                }
                Some((field, value)) => self.field(field, value)?,
                None if line.is_empty() => self.dispatch(out)?,
                None => {} // a comment
            }
            if blank_follows {
                self.dispatch(out)?;
            }
        }
        Ok(start)
    }

    /// Dispatches an event whose data is the one line `value`.
    fn single_data_event<F>(&mut self, value: &[u8], out: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseEventRef<'_>) -> Result<(), ModelError>,
    {
        let data = utf8(value)?;
        if data.len() >= self.max_event_bytes {
            return Err(ResponseLimit::EventBytes.exceeded(self.max_event_bytes));
        }
        let result = out(SseEventRef {
            event: self.event_name(),
            data,
        });
        self.event.clear();
        result
    }

    /// The pending event's type: `message` unless an `event` field named one.
    fn event_name(&self) -> &str {
        if self.event.is_empty() {
            "message"
        } else {
            &self.event
        }
    }

    fn line<F>(&mut self, line: &[u8], out: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseEventRef<'_>) -> Result<(), ModelError>,
    {
        if line.is_empty() {
            return self.dispatch(out);
        }
        match field_value(line) {
            Some((field, value)) => self.field(field, value),
            None => Ok(()), // a comment
        }
    }

    /// A blank line: dispatches the pending event, if it has data, and starts the next.
    fn dispatch<F>(&mut self, out: &mut F) -> Result<(), ModelError>
    where
        F: FnMut(SseEventRef<'_>) -> Result<(), ModelError>,
    {
        let result = if self.has_data {
            self.data.pop(); // the `\n` after the last data line
            out(SseEventRef {
                event: self.event_name(),
                data: &self.data,
            })
        } else {
            Ok(())
        };
        self.has_data = false;
        self.data.clear();
        self.event.clear();
        result
    }

    /// A field line's value, kept if it is `data` or `event`.
    fn field(&mut self, field: &[u8], value: &[u8]) -> Result<(), ModelError> {
        match field {
            b"data" => {
                let value = utf8(value)?;
                if self.data.len() + value.len() >= self.max_event_bytes {
                    return Err(ResponseLimit::EventBytes.exceeded(self.max_event_bytes));
                }
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            b"event" => {
                let value = utf8(value)?;
                self.event.clear();
                self.event.push_str(value);
            }
            _ => {} // `id`, `retry` and unknown fields do not matter here.
        }
        Ok(())
    }
}

/// A non-blank line's field name and value (without the one space that may follow the
/// colon); `None` for a comment. The name is compared as bytes; only the values kept are
/// checked as UTF-8.
fn field_value(line: &[u8]) -> Option<(&[u8], &[u8])> {
    if line.first() == Some(&b':') {
        return None;
    }
    Some(match memchr::memchr(b':', line) {
        Some(at) => {
            let value = &line[at + 1..];
            (&line[..at], value.strip_prefix(b" ").unwrap_or(value))
        }
        None => (line, &b""[..]),
    })
}

fn utf8(value: &[u8]) -> Result<&str, ModelError> {
    std::str::from_utf8(value)
        .map_err(|e| ModelError::Decode(format!("stream is not valid UTF-8: {e}")))
}

/// Decodes a body, given as a stream of byte chunks, into events. Transport errors pass
/// through; malformed UTF-8 becomes [`ModelError::Decode`].
///
/// ```
/// use agentry::http::sse::decode;
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
    S: Stream<Item = Result<B, ModelError>> + Send + 'static,
    B: AsRef<[u8]> + Send,
{
    let state = (body.boxed(), SseDecoder::new(), VecDeque::new(), false);
    futures::stream::unfold(
        state,
        |(mut body, mut decoder, mut pending, mut done)| async move {
            loop {
                if let Some(event) = pending.pop_front() {
                    return Some((Ok(event), (body, decoder, pending, done)));
                }
                if done {
                    return None;
                }
                match body.next().await {
                    Some(Ok(bytes)) => {
                        if let Err(e) = decoder.push(bytes.as_ref(), &mut pending) {
                            done = true;
                            return Some((Err(e), (body, decoder, pending, done)));
                        }
                    }
                    Some(Err(e)) => {
                        done = true;
                        return Some((Err(e), (body, decoder, pending, done)));
                    }
                    None => done = true,
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(pieces: &[&[u8]]) -> Vec<SseEvent> {
        let mut d = SseDecoder::new();
        let mut out = VecDeque::new();
        for p in pieces {
            d.push(p, &mut out).unwrap();
        }
        out.into()
    }

    /// `body` decodes to `expected` whole, split anywhere in two, and fed byte by byte.
    fn decodes_however_split(body: &[u8], expected: &[SseEvent]) {
        assert_eq!(all(&[body]), expected);
        for at in 0..body.len() {
            assert_eq!(all(&[&body[..at], &body[at..]]), expected, "split at {at}");
        }
        let singles: Vec<&[u8]> = body.chunks(1).collect();
        assert_eq!(all(&singles), expected);
    }

    fn ev(event: &str, data: &str) -> SseEvent {
        SseEvent {
            event: event.into(),
            data: data.into(),
        }
    }

    #[test]
    fn spec_rules() {
        let body: &[u8] = b"\xEF\xBB\xBFdata: a\r\rdata:b\ndata:  c\n\nevent: e\ndata\n\n:c\nid: 1\nretry: 5\n\ndata: tail";
        let expected = vec![ev("message", "a"), ev("message", "b\n c"), ev("e", "")];
        decodes_however_split(body, &expected);
    }

    #[test]
    fn one_line_events_read_in_place_follow_the_same_rules() {
        let body: &[u8] = b"data: {\"a\":1}\n\nevent: x\ndata: y\n\ndata: z\r\n\r\ndata: 1\ndata: 2\n\n: c\ndata\n\ndata:last\n\n";
        let expected = vec![
            ev("message", "{\"a\":1}"),
            ev("x", "y"),
            ev("message", "z"),
            ev("message", "1\n2"),
            ev("message", ""),
            ev("message", "last"),
        ];
        decodes_however_split(body, &expected);
    }

    #[test]
    fn a_one_line_event_over_the_cap_is_refused() {
        let mut d = SseDecoder::with_max_event_bytes(8);
        let err = d
            .push(b"data: 0123456789\n\n", &mut VecDeque::new())
            .unwrap_err();
        assert!(matches!(err, ModelError::LimitExceeded { max: 8, .. }));
    }

    #[test]
    fn crlf_split_between_cr_and_lf() {
        assert_eq!(
            all(&[b"data: x\r", b"\n\r", b"\n"]),
            vec![ev("message", "x")]
        );
    }

    #[test]
    fn invalid_utf8_is_a_decode_error() {
        let mut d = SseDecoder::new();
        let err = d
            .push(b"data: \xff\xfe\n\n", &mut VecDeque::new())
            .unwrap_err();
        assert!(matches!(err, ModelError::Decode(_)));
    }
}
