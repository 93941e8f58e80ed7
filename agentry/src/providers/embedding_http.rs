//! What the embedding models share with the chat models: the [`Settings`] behind a builder's
//! setters, built into the same [`Transport`] (rate limit, retries, timeouts, cassette, key
//! redaction) without a chat [`Driver`](super::driver::Driver).

use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::clients::Clients;
use super::settings::{Endpoint, Settings};
use super::transport::{Call, ErrorMapper, Transport};
use crate::model::ModelError;

/// A built embedding endpoint: where requests go and the transport they go through.
pub(crate) struct EmbeddingHttp {
    pub provider: String,
    pub model: String,
    pub url: reqwest::Url,
    pub transport: Transport,
    pub errors: ErrorMapper,
}

impl Settings {
    /// The transport for an embedding model: the key (required as `endpoint` says, unless a
    /// cassette replays), the auth header and the extra headers (all marked sensitive).
    pub(crate) fn into_embedding_http(
        self,
        provider: String,
        endpoint: Endpoint,
        errors: ErrorMapper,
    ) -> Result<EmbeddingHttp, ModelError> {
        let replays = self.cassette.as_ref().is_some_and(|c| c.replays_only());
        let api_key = self.resolve_api_key(&provider, endpoint.key_required && !replays)?;
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &api_key {
            let (name, mut value) = endpoint.auth.header(key)?;
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
        let clients = Clients::new(self.client, headers, &self.timeouts)?;
        Ok(EmbeddingHttp {
            provider,
            model: self.model,
            url: endpoint.url,
            transport: Transport {
                clients,
                api_key,
                header_names,
                timeouts: self.timeouts,
                retry: self.retry,
                limiter: self.limiter,
                limits: self.limits,
                cassette: self.cassette,
            },
            errors,
        })
    }
}

impl EmbeddingHttp {
    /// POSTs `body` to the endpoint and decodes the JSON answer, with the transport's retries.
    pub(crate) async fn post<W: Serialize, A: DeserializeOwned>(
        &self,
        body: &W,
    ) -> Result<A, ModelError> {
        let bytes = serde_json::to_vec(body)
            .map_err(|e| ModelError::Decode(format!("could not encode the request: {e}")))?;
        let call = Call {
            provider: &self.provider,
            model: &self.model,
            url: &self.url,
            errors: self.errors,
        };
        let transport = &self.transport;
        transport
            .post(call, Bytes::from(bytes), |raw| {
                serde_json::from_slice::<A>(raw).map_err(|e| transport.decode_error(e, raw))
            })
            .await
    }
}

impl std::fmt::Debug for EmbeddingHttp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddingHttp")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("url", &self.url.as_str())
            .field("api_key", &self.transport.api_key)
            .finish_non_exhaustive()
    }
}

/// The setters of an embedding model's builder (`settings` is its [`Settings`] field): the
/// chat builders' transport settings, without the chat-only ones.
macro_rules! embedding_setters {
    () => {
        /// The API key (otherwise read from the provider's environment variable).
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.settings.api_key = Some($crate::http::ApiKey::new(key));
            self
        }

        /// The base URL, e.g. `http://127.0.0.1:8080/v1` for a local server; the API's path
        /// is appended.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.settings.base_url = Some(url.into());
            self
        }

        /// An extra header sent with every request (its value is treated as a secret).
        pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
            self.settings.headers.push((name.into(), value.into()));
            self
        }

        /// The timeout of a whole request.
        pub fn timeout(mut self, timeout: std::time::Duration) -> Self {
            self.settings.timeouts.request = timeout;
            self
        }

        /// Retries after a retryable failure (keeps the rest of the retry policy).
        pub fn max_retries(mut self, n: u32) -> Self {
            self.settings.retry.max_retries = n;
            self
        }

        /// The whole retry policy (the chat models' [`RetryPolicy`]($crate::http::RetryPolicy)).
        pub fn retry_policy(mut self, policy: $crate::http::RetryPolicy) -> Self {
            self.settings.retry = policy;
            self
        }

        /// A client-side rate limit for this model and its clones.
        pub fn rate_limit(mut self, limit: $crate::http::RateLimit) -> Self {
            self.settings.limiter = $crate::providers::settings::limiter(limit);
            self
        }

        /// A rate limiter shared with other models (e.g. a chat model on the same account).
        pub fn rate_limiter(mut self, limiter: $crate::http::RateLimiter) -> Self {
            self.settings.limiter = Some(limiter);
            self
        }

        /// The largest response body, in bytes (default 32 MiB).
        pub fn max_body_bytes(mut self, n: usize) -> Self {
            self.settings.limits.max_body_bytes = n;
            self
        }

        /// A ready `reqwest` client, e.g. to share a connection pool with chat models.
        pub fn http_client(mut self, client: reqwest::Client) -> Self {
            self.settings.client = Some(client);
            self
        }

        /// Records this model's requests to, or replays them from, a
        /// [`Cassette`]($crate::cassette::Cassette).
        pub fn cassette(mut self, cassette: $crate::cassette::Cassette) -> Self {
            self.settings.cassette = Some(cassette);
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

        /// The length of the vectors to ask for (OpenAI's `dimensions`, Gemini's
        /// `outputDimensionality`); the model's default when not set.
        pub fn dimensions(mut self, n: usize) -> Self {
            self.dimensions = Some(n);
            self
        }

        /// The most texts one request carries; longer inputs are split (at least 1).
        pub fn batch_size(mut self, n: usize) -> Self {
            self.batch_size = n.max(1);
            self
        }
    };
}
#[cfg(any(feature = "openai", feature = "gemini"))]
pub(crate) use embedding_setters;
