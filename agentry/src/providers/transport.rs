//! One HTTP client with the request policy every provider shares: rate limit, retries,
//! timeouts, error mapping and redaction of the key.

use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::future::{Either, ready};
use futures::{StreamExt, TryFutureExt, TryStreamExt};
use reqwest::header::{CONTENT_TYPE, HeaderMap, USER_AGENT};

use super::clients::{Clients, Picked, sdk_user_agent};
use crate::cassette::{Cassette, Outgoing, Turn};
use crate::http::refused;
use crate::http::status::truncate;
use crate::http::{
    ApiKey, RateLimitPermit, RateLimiter, ResponseLimit, ResponseLimits, RetryPolicy, Timeouts,
    check_url, map_body_error, map_reqwest_error, retry,
};
use crate::model::ModelError;

/// Maps an HTTP error answer (status, headers, body with the key already redacted) to a typed error.
pub(crate) type ErrorMapper = fn(u16, &HeaderMap, &str) -> ModelError;

/// A built HTTP client with the request policy: rate limit, retries, timeouts, redaction.
pub(crate) struct Transport {
    pub clients: Clients,
    pub api_key: Option<ApiKey>,
    pub header_names: Vec<String>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    pub limiter: Option<RateLimiter>,
    pub limits: ResponseLimits,
    /// Records or replays every request.
    pub cassette: Option<Cassette>,
}

/// What a request is, for logs and error mapping.
pub(crate) struct Call<'a> {
    pub provider: &'a str,
    pub model: &'a str,
    pub url: &'a reqwest::Url,
    pub errors: ErrorMapper,
}

impl Transport {
    /// One attempt: waits for the rate limiter, sends, and maps an error status. The permit
    /// is returned so that a stream holds it until it ends.
    async fn attempt(
        &self,
        call: &Call<'_>,
        body: &Bytes,
        stream: bool,
        attempt: u32,
    ) -> Result<(reqwest::Response, Option<RateLimitPermit>), ModelError> {
        let permit = match &self.limiter {
            Some(l) => Some(l.acquire().await),
            None => None,
        };
        tracing::debug!(
            provider = call.provider,
            model = call.model,
            stream,
            attempt,
            "sending model request"
        );
        // Read only for the log: most runs do not log at this level.
        let started = tracing::enabled!(tracing::Level::DEBUG).then(Instant::now);
        let response = match &self.cassette {
            None => self.send(call, body, stream).await?,
            // Boxed: a model without a cassette does not pay for its state.
            Some(cassette) => Box::pin(self.through(cassette, call, body, stream)).await?,
        };
        let status = response.status();
        tracing::debug!(status = status.as_u16(), elapsed = ?started.map(|at| at.elapsed()).unwrap_or_default(), "response headers received");
        if status.is_success() {
            return Ok((response, permit));
        }
        // Boxed: the error path's state would otherwise widen every request's future.
        Err(Box::pin(self.failure(call, response)).await)
    }

    /// Sends `body` and waits for the response's headers.
    async fn send(
        &self,
        call: &Call<'_>,
        body: &Bytes,
        stream: bool,
    ) -> Result<reqwest::Response, ModelError> {
        let picked = self.clients.pick(stream, &self.timeouts)?;
        // A stream is timed until its headers arrive; a whole request by its client (or
        // `picked.timeout`), to its last byte.
        let sent = if stream {
            match tokio::time::timeout(self.timeouts.request, send(&picked, call.url, body)).await {
                Ok(result) => result,
                Err(_) => return Err(ModelError::Timeout(self.timeouts.request)),
            }
        } else {
            send(&picked, call.url, body).await
        };
        sent.map_err(|e| self.network_error(e, self.timeouts.request))
    }

    /// The response of a request through `cassette`: replayed, or sent (when the network
    /// allows it) and recorded.
    async fn through(
        &self,
        cassette: &Cassette,
        call: &Call<'_>,
        body: &Bytes,
        stream: bool,
    ) -> Result<reqwest::Response, ModelError> {
        let out = Outgoing {
            url: call.url,
            headers: self.clients.headers(),
            secret_headers: &self.header_names,
            key: self.api_key.as_ref(),
            body,
            stream,
        };
        let turn = cassette
            .take(&out)
            .map_err(|e| ModelError::Configuration(e.to_string()))?;
        match turn {
            Turn::Replay(response) => Ok(response),
            Turn::Record(recording) => {
                check_url(call.url)?;
                let response = self.send(call, body, stream).await?;
                Ok(recording.tap(response))
            }
        }
    }

    /// The typed error of an error answer.
    async fn failure(&self, call: &Call<'_>, response: reqwest::Response) -> ModelError {
        let status = response.status();
        let headers = response.headers().clone();
        let raw = read_error_body(response).await;
        let raw = self.redact(&raw);
        let err = (call.errors)(status.as_u16(), &headers, &raw);
        tracing::debug!(provider = call.provider, status = status.as_u16(), error = %err, "request failed");
        err
    }

    fn network_error(&self, err: reqwest::Error, timeout: Duration) -> ModelError {
        map_reqwest_error(err, timeout, self.api_key.as_ref())
    }

    /// `text` without the key.
    pub(crate) fn redact(&self, text: &str) -> String {
        match &self.api_key {
            Some(k) => k.redact(text),
            None => text.to_owned(),
        }
    }

    /// Reads a whole body, at most [`ResponseLimits::max_body_bytes`] of it. An I/O error
    /// while reading is a (retryable) network error. A body that arrives in one piece (most
    /// answers) is returned as it is, without a copy.
    ///
    /// Not an `async fn`: that would keep `response` twice in its state (the argument and
    /// the moved value), and this future is part of every request's. Read piece by piece
    /// rather than with `Response::bytes`, whose future is more than twice the size of this
    /// one (≈ 580 bytes).
    fn read_body(
        &self,
        mut response: reqwest::Response,
    ) -> impl Future<Output = Result<Bytes, ModelError>> + Send + '_ {
        let max = self.limits.max_body_bytes;
        let failed = move |e| {
            map_body_error(
                e,
                self.timeouts.request,
                self.api_key.as_ref(),
                "the connection failed while reading the answer",
            )
        };
        async move {
            let declared = response.content_length();
            if declared.is_some_and(|n| n > max as u64) {
                return Err(ResponseLimit::BodyBytes.exceeded(max));
            }
            let Some(first) = response.chunk().await.map_err(failed)? else {
                return Ok(Bytes::new());
            };
            if first.len() > max {
                return Err(ResponseLimit::BodyBytes.exceeded(max));
            }
            let Some(second) = response.chunk().await.map_err(failed)? else {
                return Ok(first);
            };
            // Room for what the server declared (capped), else for what came so far.
            let room = declared.map_or(0, |n| n as usize).min(max);
            let mut body = Vec::with_capacity(room.max(first.len() + second.len()));
            let mut next = Some(second);
            body.extend_from_slice(&first);
            drop(first);
            while let Some(chunk) = next {
                if body.len() + chunk.len() > max {
                    return Err(ResponseLimit::BodyBytes.exceeded(max));
                }
                body.extend_from_slice(&chunk);
                next = response.chunk().await.map_err(failed)?;
            }
            Ok(Bytes::from(body))
        }
    }

    /// Sends `body`, reads the whole answer body and converts it with `decode`, retrying as
    /// the policy allows (a connection reset while the body is read, or a retryable error
    /// that `decode` finds in the body, is retried like one before the headers).
    #[allow(clippy::manual_async_fn)] // an `async fn` would hold its arguments twice
    pub(crate) fn post<'a, T: 'a>(
        &'a self,
        call: Call<'a>,
        body: Bytes,
        decode: impl Fn(&[u8]) -> Result<T, ModelError> + 'a,
    ) -> impl Future<Output = Result<T, ModelError>> + 'a {
        // An `async` block rather than an `async fn`, which would hold its arguments twice.
        async move {
            if self.cassette.is_none() {
                check_url(call.url)?;
            }
            let (call, body, decode) = (&call, &body, &decode);
            retry(&self.retry, call.provider, move |n| async move {
                let (response, _permit) = self.attempt(call, body, false, n).await?;
                let bytes = self.read_body(response).await?;
                decode(&bytes)
            })
            .await
        }
    }

    /// Sends `body` asking for a stream; returns the body as byte chunks and the rate-limit
    /// permit to hold while it is read, or the whole body when the server answered in JSON.
    pub(crate) async fn open(&self, call: &Call<'_>, body: Bytes) -> Result<Opened, ModelError> {
        if self.cassette.is_none() {
            check_url(call.url)?;
        }
        // The answer is taken apart inside this block, so the response is not kept in this
        // future beside the read of a JSON body (which holds it).
        let opened = {
            let (response, permit) = retry(&self.retry, call.provider, |n| {
                self.attempt(call, &body, true, n)
            })
            .await?;
            let is_json = response
                .headers()
                .get(CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .is_some_and(|v| v.starts_with("application/json"));
            if is_json {
                tracing::debug!(
                    provider = call.provider,
                    "streamed request answered with JSON; converting"
                );
                // The permit is held until the body is read, as a whole request's is.
                Either::Left(self.read_body(response).map_ok(move |bytes| {
                    drop(permit);
                    Opened::Json(bytes)
                }))
            } else {
                let idle = self.timeouts.stream_idle;
                let key = self.api_key.clone();
                let body = response
                    .bytes_stream()
                    .map_err(move |e| map_body_error(e, idle, key.as_ref(), "the stream was cut"));
                Either::Right(ready(Ok(Opened::Sse {
                    body: idle_timeout(body, idle),
                    guard: permit.map(|p| Box::new(p) as Box<dyn Send>),
                })))
            }
        };
        opened.await
    }

    /// A decode error quoting the start of the (redacted) answer.
    pub(crate) fn decode_error(&self, err: impl std::fmt::Display, bytes: &[u8]) -> ModelError {
        let text = self.redact(&String::from_utf8_lossy(bytes));
        ModelError::Decode(format!(
            "{err}; the answer began with: {}",
            truncate(&text, 200)
        ))
    }
}

/// Sends `body` through `picked`, and again at once when the server refused it unprocessed
/// ([`refused::MAX_RESENDS`] times at most).
///
/// The request is built as a [`reqwest::Request`], not with a `RequestBuilder`, which would
/// hold a second reference to the client and be moved whole by each of its methods.
async fn send(
    picked: &Picked<'_>,
    url: &reqwest::Url,
    body: &Bytes,
) -> Result<reqwest::Response, reqwest::Error> {
    let mut resends = 0;
    loop {
        // Built by a plain function and moved straight into `execute`: a request bound to a
        // local here would keep its room (≈ 260 bytes) in this future across the await.
        match picked.client.execute(request(picked, url, body)).await {
            Err(e) if resends < refused::MAX_RESENDS && refused::is_refused(&e) => {
                resends += 1;
                tracing::debug!(
                    resends,
                    "the server refused the request unprocessed; resending"
                );
            }
            sent => return sent,
        }
    }
}

/// The request [`send`] sends: `body` to `url` with `picked`'s headers and timeout.
fn request(picked: &Picked<'_>, url: &reqwest::Url, body: &Bytes) -> reqwest::Request {
    let mut request = reqwest::Request::new(reqwest::Method::POST, url.clone());
    *request.body_mut() = Some(body.clone().into());
    if let Some(headers) = picked.headers {
        *request.headers_mut() = headers.clone();
    }
    if picked.user_agent {
        request.headers_mut().insert(USER_AGENT, sdk_user_agent());
    }
    if let Some(timeout) = picked.timeout {
        // Only when set: the first access makes the request's map of extensions.
        *request.timeout_mut() = Some(timeout);
    }
    request
}

/// `body`, ended by [`ModelError::Timeout`] when no piece arrives for `idle`. (Not the HTTP
/// client's read timeout: that one would also time every read of every non-streamed answer,
/// which the request's own timeout already bounds.)
fn idle_timeout<S>(
    body: S,
    idle: Duration,
) -> futures::stream::BoxStream<'static, Result<Bytes, ModelError>>
where
    S: futures::Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
{
    IdleTimeout {
        body,
        timer: tokio::time::sleep(idle),
        idle,
        waiting: false,
        ended: false,
    }
    .boxed()
}

pin_project_lite::pin_project! {
    /// See [`idle_timeout`]: one timer for the whole body, armed while a piece is awaited.
    struct IdleTimeout<S> {
        #[pin]
        body: S,
        #[pin]
        timer: tokio::time::Sleep,
        idle: Duration,
        waiting: bool,
        ended: bool,
    }
}

impl<S> futures::Stream for IdleTimeout<S>
where
    S: futures::Stream<Item = Result<Bytes, ModelError>>,
{
    type Item = Result<Bytes, ModelError>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let mut this = self.project();
        if *this.ended {
            return Poll::Ready(None);
        }
        if let Poll::Ready(piece) = this.body.poll_next(cx) {
            *this.waiting = false;
            *this.ended = piece.is_none();
            return Poll::Ready(piece);
        }
        if !*this.waiting {
            *this.waiting = true;
            // Capped like `tokio::time::sleep` caps it: `Instant + Duration::MAX` overflows.
            let idle = (*this.idle).min(Duration::from_secs(86_400 * 365 * 30));
            this.timer
                .as_mut()
                .reset(tokio::time::Instant::now() + idle);
        }
        match this.timer.poll(cx) {
            Poll::Ready(()) => {
                *this.ended = true;
                Poll::Ready(Some(Err(ModelError::Timeout(*this.idle))))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The start of an error answer's body (at most 64 KiB: only its message matters), as text.
async fn read_error_body(mut response: reqwest::Response) -> String {
    const MAX: usize = 64 << 10;
    let mut body = Vec::new();
    while body.len() < MAX {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk[..chunk.len().min(MAX - body.len())]),
            _ => break,
        }
    }
    String::from_utf8_lossy(&body).into_owned()
}

/// An opened streamed answer.
pub(crate) enum Opened {
    /// The server ignored the stream request and answered in one JSON body.
    Json(Bytes),
    /// Server-sent events, and what to hold until they end.
    Sse {
        body: futures::stream::BoxStream<'static, Result<Bytes, ModelError>>,
        guard: Option<Box<dyn Send>>,
    },
}
