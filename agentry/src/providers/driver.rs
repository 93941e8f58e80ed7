//! One model type for every wire format: [`Driver`] sends a request through the shared
//! [`Transport`], decodes the answer or drives the format's stream decoder, records usage, and
//! prints a `Debug` without the key. A provider supplies only its [`WireFormat`].
//!
//! The public model types (`AnthropicModel`, `GeminiModel`, ...) hold a `Driver` and get
//! [`ChatModel`] through [`ProviderModel`].

use std::fmt;
use std::sync::Arc;

use bytes::Bytes;
use futures::future::{BoxFuture, ready};
use futures::{StreamExt, TryFutureExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::answer_guard::check_response;
use super::body_size::BodySize;
use super::stream::{self, SseDecoder, StreamPolicy};
use super::transport::{Call, ErrorMapper, Opened, Transport};
use crate::http::RateLimiter;
use crate::http::secret::redact_error_opt;
use crate::model::{
    ChatModel, ChatRequest, ChatResponse, EventStream, ModelError, ModelProfile, UsageTracker,
};
use crate::telemetry::spans::{ChatCall, InSpan, Server};

/// What differs between providers: the request body, the answer's shape, the stream decoder,
/// the error body and the settings shown by `Debug`.
pub(crate) trait WireFormat: Send + Sync + 'static {
    /// A whole (non-streamed) answer as it is deserialized.
    type Answer: DeserializeOwned;

    /// The streaming decoder.
    type Decoder: SseDecoder<Event = crate::model::StreamEvent>;

    /// The public model type, for `Debug`.
    const MODEL_TYPE: &'static str;

    /// Maps an HTTP error answer to a typed error.
    const ERRORS: ErrorMapper;

    /// The provider's name ([`ChatModel::provider`], logs, errors).
    fn provider(&self) -> &str;

    /// The request body (see [`encode`]) for `model` with what `profile` allows, written into
    /// `buffer`.
    fn body(
        &self,
        model: &str,
        profile: &ModelProfile,
        request: &ChatRequest,
        stream: bool,
        buffer: Vec<u8>,
    ) -> Result<Bytes, ModelError>;

    /// Converts a whole answer; `model` is used when the server names none.
    fn convert(&self, answer: Self::Answer, model: &str) -> Result<ChatResponse, ModelError>;

    /// A decoder for one streamed answer.
    fn decoder(&self, model: &str) -> Self::Decoder;

    /// The typed error for a whole (HTTP 200) body that holds only an error envelope, or
    /// `None` when it is an answer.
    fn error_envelope(&self, answer: &Self::Answer) -> Option<ModelError>;

    /// The format's own settings, appended to the model's `Debug` output.
    fn debug_fields(&self, debug: &mut fmt::DebugStruct<'_, '_>);
}

/// Serializes a lowered request into `buffer`.
pub(crate) fn encode(wire: &impl Serialize, mut buffer: Vec<u8>) -> Result<Bytes, ModelError> {
    serde_json::to_writer(&mut buffer, wire)
        .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))?;
    Ok(Bytes::from(buffer))
}

/// A built model: its endpoints, transport, profile and tracker, and the wire format.
/// Cloning shares all of it.
pub(crate) struct Driver<F> {
    inner: Arc<Parts<F>>,
}

impl<F> Clone for Driver<F> {
    fn clone(&self) -> Self {
        Driver {
            inner: self.inner.clone(),
        }
    }
}

/// What a [`Driver`] is built from and shares between its clones.
pub(crate) struct Parts<F> {
    pub model: String,
    pub endpoint: reqwest::Url,
    /// Where streamed requests go, when not to `endpoint`.
    pub stream_endpoint: Option<reqwest::Url>,
    pub transport: Transport,
    pub profile: ModelProfile,
    pub tracker: Option<UsageTracker>,
    pub format: F,
    /// The size of the last body, to start the next one's buffer with.
    pub body_size: BodySize,
}

impl<F: WireFormat> Driver<F> {
    pub(crate) fn new(parts: Parts<F>) -> Self {
        Driver {
            inner: Arc::new(parts),
        }
    }

    /// The URL of non-streamed requests.
    pub(crate) fn endpoint(&self) -> &str {
        self.inner.endpoint.as_str()
    }

    /// The usage tracker, if any.
    pub(crate) fn tracker(&self) -> Option<&UsageTracker> {
        self.inner.tracker.as_ref()
    }

    /// The shared parts (for format-specific request kinds, e.g. several choices).
    pub(crate) fn parts(&self) -> &Arc<Parts<F>> {
        &self.inner
    }

    /// `Debug` for the model type: the shared settings, then the format's.
    pub(crate) fn fmt_debug(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let i = &*self.inner;
        let t = &i.transport;
        let mut d = f.debug_struct(F::MODEL_TYPE);
        d.field("provider", &i.format.provider())
            .field("model", &i.model)
            .field("endpoint", &i.endpoint.as_str())
            .field("api_key", &t.api_key)
            .field("extra_headers", &t.header_names)
            .field("timeouts", &t.timeouts)
            .field("retry", &t.retry)
            .field("rate_limit", &t.limiter.as_ref().map(RateLimiter::limit))
            .field("limits", &t.limits)
            .field("profile", &i.profile);
        i.format.debug_fields(&mut d);
        d.finish_non_exhaustive()
    }
}

impl<F: WireFormat> Parts<F> {
    fn call<'a>(&'a self, url: &'a reqwest::Url) -> Call<'a> {
        Call {
            provider: self.format.provider(),
            model: &self.model,
            url,
            errors: F::ERRORS,
        }
    }

    /// The `chat` span (and metrics) of one request.
    fn chat_call(&self, request: &ChatRequest) -> ChatCall {
        let server = Server {
            host: self.endpoint.host_str(),
            port: self.endpoint.port_or_known_default(),
        };
        ChatCall::start(self.format.provider(), &self.model, server, request)
    }

    /// Parses a whole body as JSON, the key redacted first so that no provider text carrying
    /// it goes further.
    ///
    /// The body is checked to be UTF-8 once, then parsed as a `str`: parsed from bytes, serde_json
    /// would check each string (every key included) on its own, which costs several times more.
    pub(crate) fn parse<T: DeserializeOwned>(&self, bytes: &[u8]) -> Result<T, ModelError> {
        let bytes = match &self.transport.api_key {
            Some(key) => key.redact_bytes(bytes),
            None => std::borrow::Cow::Borrowed(bytes),
        };
        let text = std::str::from_utf8(&bytes).map_err(|e| {
            self.transport
                .decode_error(format_args!("the answer is not UTF-8 ({e})"), &bytes)
        })?;
        serde_json::from_str(text).map_err(|e| self.transport.decode_error(e, &bytes))
    }

    pub(super) fn decode(&self, bytes: &[u8]) -> Result<ChatResponse, ModelError> {
        let answer: F::Answer = self.parse(bytes)?;
        if let Some(err) = self.format.error_envelope(&answer) {
            return Err(err);
        }
        let mut response = self.format.convert(answer, &self.model)?;
        check_response(&self.transport.limits, &mut response)?;
        Ok(response)
    }

    /// `err` without the key.
    pub(crate) fn redact_error(&self, err: ModelError) -> ModelError {
        redact_error_opt(self.transport.api_key.as_ref(), err)
    }

    /// What every stream of this model applies: the key to redact and the caps.
    pub(crate) fn stream_policy(&self) -> StreamPolicy {
        StreamPolicy {
            key: self.transport.api_key.clone(),
            limits: self.transport.limits,
        }
    }

    /// Sends `body` to the non-streaming endpoint and decodes the answer with `decode`
    /// (inside the retry loop).
    pub(crate) fn post_with<'a, T: 'a>(
        &'a self,
        body: Bytes,
        decode: impl Fn(&[u8]) -> Result<T, ModelError> + 'a,
    ) -> impl Future<Output = Result<T, ModelError>> + 'a {
        self.transport
            .post(self.call(&self.endpoint), body, decode)
            .map_err(|e| self.redact_error(e))
    }

    /// Sends `body` to the streaming endpoint.
    pub(crate) async fn open(&self, body: Bytes) -> Result<Opened, ModelError> {
        let url = self.stream_endpoint.as_ref().unwrap_or(&self.endpoint);
        self.transport
            .open(&self.call(url), body)
            .await
            .map_err(|e| self.redact_error(e))
    }

    /// The request's body, for the streaming endpoint or not.
    fn body(&self, request: &ChatRequest, stream: bool) -> Result<Bytes, ModelError> {
        let buffer = self.body_size.buffer();
        let body = self
            .format
            .body(&self.model, &self.profile, request, stream, buffer)
            .map_err(|e| self.redact_error(e))?;
        self.body_size.note(body.len());
        Ok(body)
    }

    /// Opens a streamed answer. A stream cut before its first event (a reset after the
    /// headers) is opened again within the retry policy's budget; once an event has been
    /// delivered, a cut ends the stream with a network error saying so.
    async fn open_stream(&self, body: Bytes) -> Result<EventStream, ModelError> {
        // Built on the first cut, as `retry` does: most streams open at once. Boxed, so this
        // future does not keep room for it (≈ 120 bytes) on every streamed request.
        let mut delays = None;
        loop {
            let mut events = match self.open(body.clone()).await? {
                Opened::Json(bytes) => {
                    let answer = self.decode(&bytes).map_err(|e| self.redact_error(e))?;
                    return Ok(futures::stream::iter(
                        stream::events_of(answer).into_iter().map(Ok),
                    )
                    .boxed());
                }
                Opened::Sse { body, guard } => stream::drive(
                    body,
                    self.format.decoder(&self.model),
                    guard,
                    self.stream_policy(),
                ),
            };
            let Some(first) = events.next().await else {
                return Ok(events.boxed());
            };
            if let Err(err @ ModelError::Network(_)) = &first
                && let Some(wait) = delays
                    .get_or_insert_with(|| Box::new(self.transport.retry.backoff()))
                    .next()
            {
                tracing::warn!(provider = self.format.provider(), error = %err, ?wait, "the stream was cut before its first event; retrying");
                drop(events);
                tokio::time::sleep(wait).await;
                continue;
            }
            events.put_back(first);
            return Ok(events.boxed());
        }
    }
}

/// A public model type backed by a [`Driver`]; it implements [`ChatModel`] through it.
pub(crate) trait ProviderModel: Send + Sync + 'static {
    /// The wire format.
    type Format: WireFormat;

    /// The driver.
    fn driver(&self) -> &Driver<Self::Format>;
}

#[diagnostic::do_not_recommend]
impl<M: ProviderModel> ChatModel for M {
    fn model_name(&self) -> &str {
        &self.driver().inner.model
    }

    fn provider(&self) -> &str {
        self.driver().inner.format.provider()
    }

    fn profile(&self) -> &ModelProfile {
        &self.driver().inner.profile
    }

    fn invoke(&self, request: ChatRequest) -> BoxFuture<'_, Result<ChatResponse, ModelError>> {
        let inner = &self.driver().inner;
        let call = inner.chat_call(&request);
        // The body is written before the future is made, so neither the request nor the
        // lowering is part of it: the boxed future stays small (a small allocation, no large
        // copies).
        let body = call.in_span(|| inner.body(&request, false));
        drop(request);
        Box::pin(async move {
            let result = match body {
                Ok(body) => {
                    // Awaited in place, not bound to a local: a local would keep its room in
                    // this future a second time. The request's whole future (≈ 650 bytes)
                    // is then part of this one, in the one allocation of the call, which
                    // stays under the 1,032 bytes glibc's per-thread cache serves.
                    InSpan::new(
                        inner.post_with(body, |bytes| inner.decode(bytes)),
                        call.span().clone(),
                    )
                    .await
                }
                Err(err) => Err(err),
            };
            call.finish(result.as_ref());
            let response = result?;
            if let Some(t) = &inner.tracker {
                t.record(&inner.model, response.usage);
            }
            Ok(response)
        })
    }

    fn stream(&self, request: ChatRequest) -> EventStream {
        let inner = self.driver().inner.clone();
        let call = inner.chat_call(&request);
        let body = call.in_span(|| inner.body(&request, true));
        drop(request);
        // The body's error is taken out before the stream is made: an `async` block holding
        // the `Result` (and `?`'s temporary, kept across the await) would be 176 bytes larger.
        let stream = match body {
            Ok(body) => async move { inner.open_stream(body).await }
                .try_flatten_stream()
                .boxed(),
            Err(err) => futures::stream::once(ready(Err(err))).boxed(),
        };
        let stream = call.wrap_stream(stream);
        let inner = &self.driver().inner;
        match &inner.tracker {
            Some(t) => t.track_stream(&inner.model, stream),
            None => stream,
        }
    }
}
