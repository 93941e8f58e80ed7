//! Where the transport meets the cassette: a request either gets its recorded response,
//! built as a real `reqwest::Response` so that everything after the send runs as for a
//! real one, or is sent for real and its response is recorded while it is read.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures::Stream;
use futures::StreamExt as _;
use futures::stream::BoxStream;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};

use super::file::{self, Interaction};
use super::scrub::{self, Names};
use super::{Cassette, CassetteError, CassetteMode, State, drift};
use crate::http::ApiKey;

/// A request about to be sent.
pub(crate) struct Outgoing<'a> {
    pub(crate) url: &'a reqwest::Url,
    /// The headers every request of the model carries.
    pub(crate) headers: &'a HeaderMap,
    /// The names of the model's extra headers (secrets).
    pub(crate) secret_headers: &'a [String],
    pub(crate) key: Option<&'a ApiKey>,
    pub(crate) body: &'a [u8],
    /// Whether a stream was asked for.
    pub(crate) stream: bool,
}

/// What to do with a request.
pub(crate) enum Turn {
    /// Use this (recorded) response.
    Replay(reqwest::Response),
    /// Send the request and give its response to [`Recording::tap`].
    Record(Recording),
}

impl Cassette {
    /// The turn of the next request.
    pub(crate) fn take(&self, out: &Outgoing<'_>) -> Result<Turn, CassetteError> {
        let mut state = self.lock();
        if let Some(source) = state.write_error.take() {
            return Err(CassetteError::Io {
                path: self.path.to_path_buf(),
                source,
            });
        }
        let index = state.next;
        state.next += 1;
        if let Some(recorded) = state.recorded.get(index) {
            return self.replay_turn(index, recorded, out);
        }
        if self.mode == CassetteMode::Replay {
            return Err(CassetteError::Exhausted {
                path: self.path.to_path_buf(),
                index,
                recorded: state.recorded.len(),
            });
        }
        drop(state);
        let mut secrets: Vec<String> = out.key.map(|k| k.expose().to_owned()).into_iter().collect();
        let names = &self.config.names;
        let request = file::Request {
            method: "POST".into(),
            url: names.url(out.url, &mut secrets),
            headers: names.headers(out.headers, out.secret_headers, &mut secrets),
            body: drift::body_value(out.body),
        };
        Ok(Turn::Record(Recording {
            state: self.state.clone(),
            names: self.config.names.clone(),
            index,
            request: Some(request),
            secrets,
            stream: out.stream,
        }))
    }

    /// The recorded response of place `index`, when the request matches its recording.
    fn replay_turn(
        &self,
        index: usize,
        recorded: &Interaction,
        out: &Outgoing<'_>,
    ) -> Result<Turn, CassetteError> {
        let body = drift::body_value(out.body);
        let url = self.config.names.url(out.url, &mut Vec::new());
        if let Some(diff) =
            drift::compare(&recorded.request, "POST", &url, &body, &self.config.ignored)
        {
            return Err(CassetteError::Drift {
                path: self.path.to_path_buf(),
                index,
                diff,
            });
        }
        let response = response(&recorded.response).map_err(|message| CassetteError::Parse {
            path: self.path.to_path_buf(),
            line: index + 1,
            message,
        })?;
        Ok(Turn::Replay(response))
    }
}

/// A recorded response as a `reqwest::Response`: a whole body in one piece (as a response
/// with a `content-length` arrives), a streamed one in its recorded pieces, then the
/// recorded failure, if any.
fn response(recorded: &file::Response) -> Result<reqwest::Response, String> {
    let bytes = recorded.bytes()?;
    let body = match (&recorded.chunks, &recorded.cut) {
        (None, None) => reqwest::Body::from(bytes),
        (chunks, cut) => {
            let mut pieces: Vec<Result<Bytes, std::io::Error>> = Vec::new();
            let mut rest = bytes;
            for &len in chunks.as_deref().unwrap_or(&[]) {
                pieces.push(Ok(rest.split_to(len.min(rest.len()))));
            }
            if !rest.is_empty() {
                pieces.push(Ok(rest));
            }
            if let Some(message) = cut {
                pieces.push(Err(std::io::Error::other(message.clone())));
            }
            reqwest::Body::wrap_stream(futures::stream::iter(pieces))
        }
    };
    let mut response = http::Response::new(body);
    *response.status_mut() = http::StatusCode::from_u16(recorded.status)
        .map_err(|_| format!("status {} is not an HTTP status", recorded.status))?;
    for (name, value) in &recorded.headers {
        let name = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| format!("`{name}` is not a header name"))?;
        let value = HeaderValue::from_str(value)
            .map_err(|_| format!("the value of header `{name}` is not a header value"))?;
        response.headers_mut().append(name, value);
    }
    Ok(reqwest::Response::from(response))
}

/// A request being recorded: its place and what is written with its response.
pub(crate) struct Recording {
    state: Arc<Mutex<State>>,
    names: Names,
    index: usize,
    /// Taken when the line is written.
    request: Option<file::Request>,
    secrets: Vec<String>,
    stream: bool,
}

impl Recording {
    /// `response`, whose body is recorded as it is read; the line is written when the body
    /// ends, fails or is dropped.
    pub(crate) fn tap(mut self, response: reqwest::Response) -> reqwest::Response {
        let status = response.status();
        let version = response.version();
        let headers = response.headers().clone();
        let recorded = file::Response {
            status: status.as_u16(),
            headers: self.names.headers(&headers, &[], &mut self.secrets),
            body: None,
            body_base64: None,
            chunks: None,
            cut: None,
        };
        let tap = Tap {
            body: response.bytes_stream().boxed(),
            pieces: Vec::new(),
            ended: false,
            recording: Some((self, recorded)),
        };
        let mut out = http::Response::new(reqwest::Body::wrap_stream(tap));
        *out.status_mut() = status;
        *out.version_mut() = version;
        *out.headers_mut() = headers;
        reqwest::Response::from(out)
    }

    /// Writes the line of this request with `response` and the body `pieces`.
    fn finish(mut self, mut response: file::Response, pieces: &[Bytes], cut: Option<String>) {
        let Some(request) = self.request.take() else {
            return;
        };
        let body: Vec<u8> = pieces.concat();
        let mut lengths: Vec<usize> = pieces.iter().map(Bytes::len).collect();
        let clean = match String::from_utf8(body) {
            Ok(text) => scrub::redact(&text, &self.secrets).into_bytes(),
            Err(e) => scrub::redact_bytes(e.into_bytes(), &self.secrets),
        };
        if clean.len() != lengths.iter().sum::<usize>() {
            // A secret was replaced: the pieces no longer add up; keep one.
            lengths = vec![clean.len()];
        }
        let body = clean;
        response.set_body(body);
        response.chunks = self.stream.then_some(lengths);
        response.cut = cut.map(|c| scrub::redact(&c, &self.secrets));
        let line = file::line(&Interaction { request, response });
        let line = scrub::redact(&line, &self.secrets);
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.finish(self.index, Some(line));
    }
}

impl Drop for Recording {
    /// A request that got no response (it failed to send) leaves no line.
    fn drop(&mut self) {
        if self.request.is_some() {
            let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
            state.finish(self.index, None);
        }
    }
}

/// A response body that keeps a copy of what passes through it (as much as the reader
/// reads: the response caps bound it) and records it when it ends, fails or is dropped.
struct Tap {
    body: BoxStream<'static, reqwest::Result<Bytes>>,
    pieces: Vec<Bytes>,
    ended: bool,
    recording: Option<(Recording, file::Response)>,
}

impl Tap {
    fn record(&mut self, cut: Option<String>) {
        if let Some((recording, response)) = self.recording.take() {
            recording.finish(response, &self.pieces, cut);
            self.pieces = Vec::new();
        }
    }
}

impl Stream for Tap {
    type Item = reqwest::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let item = match self.body.poll_next_unpin(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(item) => item,
        };
        match &item {
            Some(Ok(piece)) => self.pieces.push(piece.clone()),
            Some(Err(err)) => {
                self.ended = true;
                let message = err.to_string();
                self.record(Some(message));
            }
            None => {
                self.ended = true;
                self.record(None);
            }
        }
        Poll::Ready(item)
    }
}

impl Drop for Tap {
    fn drop(&mut self) {
        self.record(None);
    }
}
