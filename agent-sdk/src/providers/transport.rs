//! What the Anthropic, Gemini and OpenAI Responses providers share: their builder settings,
//! one HTTP client that sends a request under the rate limiter and the retry policy, and the
//! driver that turns a provider's SSE events into [`StreamEvent`]s.
//!
//! Everything here is built from the provider-neutral [`crate::http`] layer; the providers
//! only supply their URLs, auth headers, error-body parsers and event decoders.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures::{Stream, StreamExt, TryStreamExt};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use crate::http::sse::{SseDecoder as SseParser, SseEventRef};
use crate::http::status::truncate;
use crate::http::{
    ApiKey, RateLimit, RateLimitPermit, RateLimiter, RetryPolicy, Timeouts, check_url,
    map_reqwest_error, retry,
};
use crate::message::ContentBlock;
use crate::model::{ChatResponse, EventStream, ModelError, StreamEvent, UsageTracker};

pub(crate) type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Maps an HTTP error answer (status, headers, body with the key already redacted) to a typed error.
pub(crate) type ErrorMapper = fn(u16, &HeaderMap, &str) -> ModelError;

/// The settings every provider builder exposes.
pub(crate) struct Settings {
    pub base_url: Option<String>,
    /// The variable the base URL is read from when none is given.
    pub base_url_env: Option<String>,
    pub default_base_url: String,
    /// Without a base URL given or in `base_url_env`, building fails (no default applies).
    pub base_url_required: bool,
    pub api_key: Option<ApiKey>,
    /// Variables the key is read from, first set wins.
    pub api_key_env: Vec<String>,
    pub headers: Vec<(String, String)>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    pub limiter: Option<RateLimiter>,
    pub tracker: Option<UsageTracker>,
    pub client: Option<reqwest::Client>,
    pub env: EnvLookup,
}

impl Settings {
    pub(crate) fn new(
        base_url_env: Option<&str>,
        default_base_url: &str,
        api_key_env: &[&str],
    ) -> Self {
        Settings {
            base_url: None,
            base_url_env: base_url_env.map(str::to_owned),
            default_base_url: default_base_url.to_owned(),
            base_url_required: false,
            api_key: None,
            api_key_env: api_key_env.iter().map(|v| (*v).to_owned()).collect(),
            headers: Vec::new(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            limiter: None,
            tracker: None,
            client: None,
            env: Arc::new(|name| std::env::var(name).ok()),
        }
    }

    /// The base URL: explicit, else from the variable, else the default (unless a base URL is
    /// required); no trailing slash.
    pub(crate) fn resolve_base_url(
        &self,
        provider: &str,
        model: &str,
    ) -> Result<String, ModelError> {
        let from_env = || {
            self.base_url_env
                .as_deref()
                .and_then(|var| (self.env)(var))
                .filter(|s| !s.trim().is_empty())
        };
        let base = match self.base_url.clone().or_else(from_env) {
            Some(base) => base,
            None if self.base_url_required => {
                return Err(ModelError::Configuration(format!(
                    "no base URL for {provider} model `{model}`: set the {} environment variable or call .base_url(..)",
                    self.base_url_env.as_deref().unwrap_or("base URL")
                )));
            }
            None => self.default_base_url.clone(),
        };
        Ok(base.trim().trim_end_matches('/').to_owned())
    }

    /// The key: explicit, else from the first variable that is set. `None` when the key is
    /// not required and there is none; an error naming the variables when it is required.
    pub(crate) fn resolve_api_key(
        &self,
        provider: &str,
        model: &str,
        required: bool,
    ) -> Result<Option<ApiKey>, ModelError> {
        let key = self.api_key.clone().or_else(|| {
            self.api_key_env
                .iter()
                .find_map(|var| (self.env)(var).filter(|k| !k.trim().is_empty()))
                .map(|k| ApiKey::new(k.trim()))
        });
        if key.is_none() && required {
            let how = if self.api_key_env.is_empty() {
                "call .api_key(..)".to_owned()
            } else {
                let vars = self.api_key_env.join(" or ");
                format!("set the {vars} environment variable or call .api_key(..)")
            };
            return Err(ModelError::Configuration(format!(
                "no API key for {provider} model `{model}`: {how}"
            )));
        }
        Ok(key)
    }

    /// The key (required or not, see [`resolve_api_key`](Self::resolve_api_key)) and the
    /// HTTP client, sending the key as `auth` says, the `fixed` headers and the extra headers.
    /// Header values are marked sensitive so they never show in `Debug` output.
    pub(crate) fn build(
        self,
        target: (&str, &str),
        key_required: bool,
        auth: Auth,
        fixed: &[(&'static str, &'static str)],
    ) -> Result<(Transport, Option<UsageTracker>), ModelError> {
        let (provider, model) = target;
        let api_key = self.resolve_api_key(provider, model, key_required)?;
        let auth = match &api_key {
            Some(key) => Some(auth.header(key)?),
            None => None,
        };
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in fixed {
            headers.insert(*name, HeaderValue::from_static(value));
        }
        if let Some((name, mut value)) = auth {
            value.set_sensitive(true);
            headers.insert(name, value);
        }
        let mut header_names = Vec::new();
        for (name, value) in &self.headers {
            let n = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| ModelError::Configuration(format!("invalid header name `{name}`")))?;
            let mut v = HeaderValue::from_str(value).map_err(|_| {
                ModelError::Configuration(format!("invalid value for header `{name}`"))
            })?;
            v.set_sensitive(true);
            headers.insert(n, v);
            header_names.push(name.clone());
        }
        let (client, request_headers) = match self.client {
            Some(c) => (c, Some(headers)),
            None => (
                reqwest::Client::builder()
                    .default_headers(headers)
                    .connect_timeout(self.timeouts.connect)
                    .read_timeout(self.timeouts.stream_idle)
                    .user_agent(concat!("agent-sdk/", env!("CARGO_PKG_VERSION")))
                    .build()
                    .map_err(|e| {
                        ModelError::Configuration(format!("could not build the HTTP client: {e}"))
                    })?,
                None,
            ),
        };
        Ok((
            Transport {
                client,
                request_headers,
                api_key,
                header_names,
                timeouts: self.timeouts,
                retry: self.retry,
                limiter: self.limiter,
            },
            self.tracker,
        ))
    }
}

/// How a provider sends its API key.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Auth {
    /// `Authorization: Bearer <key>`.
    Bearer,
    /// The key as the value of this header.
    Header(&'static str),
}

impl Auth {
    /// The header carrying `key`, or a configuration error that does not show it.
    fn header(self, key: &ApiKey) -> Result<(HeaderName, HeaderValue), ModelError> {
        let (name, value) = match self {
            Auth::Bearer => (
                AUTHORIZATION,
                HeaderValue::from_str(&format!("Bearer {}", key.expose())),
            ),
            Auth::Header(name) => (
                HeaderName::from_static(name),
                HeaderValue::from_str(key.expose()),
            ),
        };
        let value = value.map_err(|_| {
            ModelError::Configuration(
                "the API key contains characters not allowed in a header".into(),
            )
        })?;
        Ok((name, value))
    }
}

/// Parses and checks an endpoint URL.
pub(crate) fn parse_url(url: &str) -> Result<reqwest::Url, ModelError> {
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| ModelError::Configuration(format!("invalid base URL in `{url}`: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ModelError::Configuration(format!(
            "invalid base URL in `{url}`: the scheme must be http or https"
        )));
    }
    Ok(parsed)
}

/// Generates the builder setters shared by every provider in this module (`settings` is the
/// builder's [`Settings`] field).
macro_rules! settings_setters {
    () => {
        /// The API key (otherwise read from the provider's environment variable).
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.settings.api_key = Some($crate::http::ApiKey::new(key));
            self
        }

        /// The base URL, e.g. `http://127.0.0.1:8080` for a local server; the API's path is
        /// appended unless the URL already ends with it.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.settings.base_url = Some(url.into());
            self
        }

        /// An extra header sent with every request (its value is treated as a secret).
        pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
            self.settings.headers.push((name.into(), value.into()));
            self
        }

        /// The timeout of a whole request (of the wait for headers, for a stream).
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeouts.request = timeout;
            self
        }

        /// The timeout for establishing a connection.
        pub fn connect_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeouts.connect = timeout;
            self
        }

        /// The longest silence allowed inside a streamed answer.
        pub fn stream_idle_timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeouts.stream_idle = timeout;
            self
        }

        /// Every timeout at once.
        pub fn timeouts(mut self, timeouts: $crate::http::Timeouts) -> Self {
            self.settings.timeouts = timeouts;
            self
        }

        /// Retries after a retryable failure (keeps the rest of the retry policy).
        pub fn max_retries(mut self, n: u32) -> Self {
            self.settings.retry.max_retries = n;
            self
        }

        /// The whole retry policy.
        pub fn retry_policy(mut self, policy: $crate::http::RetryPolicy) -> Self {
            self.settings.retry = policy;
            self
        }

        /// A client-side rate limit for this model and its clones.
        pub fn rate_limit(mut self, limit: $crate::http::RateLimit) -> Self {
            self.settings.limiter = $crate::providers::transport::limiter(limit);
            self
        }

        /// A rate limiter shared with other models (e.g. several models on one account).
        pub fn rate_limiter(mut self, limiter: $crate::http::RateLimiter) -> Self {
            self.settings.limiter = Some(limiter);
            self
        }

        /// Counts this model's usage in `tracker`.
        pub fn usage_tracker(mut self, tracker: $crate::model::UsageTracker) -> Self {
            self.settings.tracker = Some(tracker);
            self
        }

        /// A ready `reqwest` client, e.g. to share a connection pool between models. Its own
        /// timeouts apply; the key and extra headers are sent with each request.
        pub fn http_client(mut self, client: reqwest::Client) -> Self {
            self.settings.client = Some(client);
            self
        }

        /// Where environment variables are read from (default: the process environment).
        pub fn env(
            mut self,
            lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
        ) -> Self {
            self.settings.env = std::sync::Arc::new(lookup);
            self
        }
    };
}
pub(crate) use settings_setters;

pub(crate) fn limiter(limit: RateLimit) -> Option<RateLimiter> {
    (!limit.is_unlimited()).then(|| RateLimiter::new(limit))
}

/// A built HTTP client with the request policy: rate limit, retries, timeouts, redaction.
pub(crate) struct Transport {
    client: reqwest::Client,
    request_headers: Option<HeaderMap>,
    pub api_key: Option<ApiKey>,
    pub header_names: Vec<String>,
    pub timeouts: Timeouts,
    pub retry: RetryPolicy,
    pub limiter: Option<RateLimiter>,
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
        body: Bytes,
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
        let started = Instant::now();
        let mut builder = self.client.post(call.url.clone()).body(body);
        if let Some(headers) = &self.request_headers {
            builder = builder.headers(headers.clone());
        }
        let sent = if stream {
            match tokio::time::timeout(self.timeouts.request, builder.send()).await {
                Ok(result) => result,
                Err(_) => return Err(ModelError::Timeout(self.timeouts.request)),
            }
        } else {
            builder.timeout(self.timeouts.request).send().await
        };
        let response = sent.map_err(|e| self.network_error(e, self.timeouts.request))?;
        let status = response.status();
        tracing::debug!(status = status.as_u16(), elapsed = ?started.elapsed(), "response headers received");
        if status.is_success() {
            return Ok((response, permit));
        }
        let headers = response.headers().clone();
        let raw = response.text().await.unwrap_or_default();
        let raw = self.redact(&raw);
        let err = (call.errors)(status.as_u16(), &headers, &raw);
        tracing::debug!(provider = call.provider, status = status.as_u16(), error = %err, "request failed");
        Err(err)
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

    /// Sends `body` and returns the whole answer body, retrying as the policy allows.
    pub(crate) async fn post(&self, call: &Call<'_>, body: Bytes) -> Result<Bytes, ModelError> {
        check_url(call.url)?;
        retry(&self.retry, call.provider, |n| {
            let body = body.clone();
            async move {
                let (response, _permit) = self.attempt(call, body, false, n).await?;
                response
                    .bytes()
                    .await
                    .map_err(|e| self.network_error(e, self.timeouts.request))
            }
        })
        .await
    }

    /// Sends `body` asking for a stream; returns the body as byte chunks and the rate-limit
    /// permit to hold while it is read, or the whole body when the server answered in JSON.
    pub(crate) async fn open(&self, call: &Call<'_>, body: Bytes) -> Result<Opened, ModelError> {
        check_url(call.url)?;
        let (response, permit) = retry(&self.retry, call.provider, |n| {
            self.attempt(call, body.clone(), true, n)
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
            let bytes = response
                .bytes()
                .await
                .map_err(|e| self.network_error(e, self.timeouts.request))?;
            return Ok(Opened::Json(bytes));
        }
        let idle = self.timeouts.stream_idle;
        let key = self.api_key.clone();
        let body = response
            .bytes_stream()
            .map_err(move |e| map_reqwest_error(e, idle, key.as_ref()))
            .boxed();
        Ok(Opened::Sse {
            body,
            guard: permit.map(|p| Box::new(p) as Box<dyn Send>),
        })
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

/// A provider's streaming decoder: fed SSE events in order, it pushes [`StreamEvent`]s and
/// ends the stream by pushing [`StreamEvent::Completed`].
pub(crate) trait SseDecoder: Send + 'static {
    /// One event. Returning an error ends the stream with it.
    fn on_event(
        &mut self,
        event: SseEventRef<'_>,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), ModelError>;

    /// The body ended without [`StreamEvent::Completed`] having been pushed: either complete
    /// the answer (for formats without an end marker) or report the cut.
    fn on_end(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), ModelError>;
}

/// Drives `decoder` over an SSE `body`. The stream ends after the first `Completed` event or
/// the first error (events decoded before an error are delivered first); `guard` is dropped as
/// soon as it ends. Events are handed to the decoder as they are parsed, borrowed from the
/// parser (no allocation per event).
pub(crate) fn drive<S, D>(body: S, decoder: D, guard: Option<Box<dyn Send>>) -> EventStream
where
    S: Stream<Item = Result<Bytes, ModelError>> + Send + 'static,
    D: SseDecoder,
{
    let state = Driven {
        body: body.boxed(),
        parser: SseParser::new(),
        events: Decoded {
            decoder,
            pending: VecDeque::new(),
            done: false,
        },
        finished: false,
        error: None,
        guard,
    };
    futures::stream::unfold(state, |mut st| async move {
        loop {
            if let Some(ev) = st.events.pending.pop_front() {
                return Some((Ok(ev), st));
            }
            if let Some(err) = st.error.take() {
                return Some((Err(err), st));
            }
            if st.finished {
                return None;
            }
            let step = match st.body.next().await {
                Some(Ok(bytes)) => {
                    let events = &mut st.events;
                    st.parser.push_each(&bytes, |e| events.on_event(e))
                }
                Some(Err(err)) => Err(err),
                None => st.events.on_end(),
            };
            if let Err(err) = step {
                // Events decoded before the error (from the same read) come first.
                st.finish();
                st.error = Some(err);
                continue;
            }
            if st.events.done {
                st.finish();
            }
        }
    })
    .boxed()
}

/// The state of a [`drive`]n stream.
struct Driven<D> {
    body: futures::stream::BoxStream<'static, Result<Bytes, ModelError>>,
    parser: SseParser,
    events: Decoded<D>,
    finished: bool,
    error: Option<ModelError>,
    guard: Option<Box<dyn Send>>,
}

impl<D> Driven<D> {
    fn finish(&mut self) {
        self.finished = true;
        self.guard = None;
        self.body = futures::stream::empty().boxed();
    }
}

/// A decoder and the events it has produced but not yet delivered.
struct Decoded<D> {
    decoder: D,
    pending: VecDeque<StreamEvent>,
    /// `Completed` has been queued; later events are ignored.
    done: bool,
}

impl<D: SseDecoder> Decoded<D> {
    fn on_event(&mut self, event: SseEventRef<'_>) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        let result = self.decoder.on_event(event, &mut self.pending);
        self.check_done(from);
        result
    }

    fn on_end(&mut self) -> Result<(), ModelError> {
        if self.done {
            return Ok(());
        }
        let from = self.pending.len();
        self.decoder.on_end(&mut self.pending)?;
        self.check_done(from);
        if self.done {
            Ok(())
        } else {
            Err(ModelError::Incomplete(
                "the body ended before the answer was complete".into(),
            ))
        }
    }

    /// Marks the stream done at the first `Completed` among the events queued from `from` on,
    /// and drops what follows it.
    fn check_done(&mut self, from: usize) {
        if let Some(at) = self
            .pending
            .range(from..)
            .position(|e| matches!(e, StreamEvent::Completed { .. }))
        {
            self.pending.truncate(from + at + 1);
            self.done = true;
        }
    }
}

/// The events a stream of `answer` would have produced (for a server that answered a
/// streamed request with one JSON body).
pub(crate) fn events_of(answer: ChatResponse) -> Vec<StreamEvent> {
    let mut events = Vec::new();
    for block in &answer.message.content {
        match block {
            ContentBlock::Reasoning { text, .. } if !text.is_empty() => {
                events.push(StreamEvent::ReasoningDelta { text: text.clone() })
            }
            ContentBlock::Text { text } => {
                events.push(StreamEvent::TextDelta { text: text.clone() })
            }
            _ => {}
        }
    }
    if let Some(r) = &answer.message.refusal {
        events.push(StreamEvent::RefusalDelta { text: r.clone() });
    }
    for (index, call) in answer.message.tool_calls.iter().enumerate() {
        events.push(StreamEvent::ToolCallStart {
            index,
            id: call.id.clone(),
            name: call.name.clone(),
        });
        if !call.arguments.is_empty() {
            events.push(StreamEvent::ToolCallDelta {
                index,
                arguments: call.arguments.clone(),
            });
        }
    }
    events.push(StreamEvent::Usage {
        usage: answer.usage,
    });
    events.push(StreamEvent::Completed { response: answer });
    events
}

/// A host that needs no key: a local test or proxy server.
pub(crate) fn is_local(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}
