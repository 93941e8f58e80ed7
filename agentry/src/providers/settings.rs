//! What every provider builder shares: the settings behind the common setters
//! ([`settings_setters!`]), resolving the base URL and the key from the environment, and
//! building the HTTP client and the [`Driver`] from them.

use std::sync::Arc;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::body_size::BodySize;
use super::clients::Clients;
use super::driver::{Driver, Parts, WireFormat};
use super::transport::Transport;
use crate::http::{ApiKey, RateLimit, RateLimiter, ResponseLimits, RetryPolicy, Timeouts};
use crate::model::{ModelError, ModelProfile, UsageTracker};

pub(crate) type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// The settings every provider builder exposes.
pub(crate) struct Settings {
    pub model: String,
    pub profile: ModelProfile,
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
    pub limits: ResponseLimits,
    pub tracker: Option<UsageTracker>,
    pub client: Option<reqwest::Client>,
    pub env: EnvLookup,
    pub cassette: Option<crate::cassette::Cassette>,
}

impl Settings {
    pub(crate) fn new(
        model: String,
        profile: ModelProfile,
        base_url_env: Option<&str>,
        default_base_url: &str,
        api_key_env: &[&str],
    ) -> Self {
        Settings {
            model,
            profile,
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
            limits: ResponseLimits::default(),
            tracker: None,
            client: None,
            env: Arc::new(|name| std::env::var(name).ok()),
            cassette: None,
        }
    }

    /// The base URL: explicit, else from the variable, else the default (unless a base URL is
    /// required); no trailing slash.
    pub(crate) fn resolve_base_url(&self, provider: &str) -> Result<String, ModelError> {
        let model = &self.model;
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
        required: bool,
    ) -> Result<Option<ApiKey>, ModelError> {
        let model = &self.model;
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

    /// The key (see [`resolve_api_key`](Self::resolve_api_key); none is needed when a
    /// cassette only replays, since a replayed model sends nothing), and the transport whose
    /// HTTP client sends it as `endpoint.auth` says with the fixed and the extra headers —
    /// what chat and embedding models share. Header values are marked sensitive so they never
    /// show in `Debug` output. Returns the settings' model, profile and tracker with it.
    pub(crate) fn into_transport(
        self,
        provider: &str,
        endpoint: &Endpoint,
    ) -> Result<(Transport, ModelParts), ModelError> {
        let replays = self.cassette.as_ref().is_some_and(|c| c.replays_only());
        let api_key = self.resolve_api_key(provider, endpoint.key_required && !replays)?;
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        for (name, value) in endpoint.fixed_headers {
            headers.insert(*name, HeaderValue::from_static(value));
        }
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
        let transport = Transport {
            clients,
            api_key,
            header_names,
            timeouts: self.timeouts,
            retry: self.retry,
            limiter: self.limiter,
            limits: self.limits,
            cassette: self.cassette,
        };
        let rest = ModelParts {
            model: self.model,
            profile: self.profile,
            tracker: self.tracker,
        };
        Ok((transport, rest))
    }

    /// The model: its [transport](Self::into_transport) and the driver.
    pub(crate) fn into_driver<F: WireFormat>(
        self,
        endpoint: Endpoint,
        format: F,
    ) -> Result<Driver<F>, ModelError> {
        let (transport, rest) = self.into_transport(format.provider(), &endpoint)?;
        Ok(Driver::new(Parts {
            model: rest.model,
            endpoint: endpoint.url,
            stream_endpoint: endpoint.stream_url,
            transport,
            profile: rest.profile,
            tracker: rest.tracker,
            format,
            body_size: BodySize::default(),
        }))
    }

    /// `Debug` for a builder: what identifies the model, never the key.
    pub(crate) fn fmt_builder(
        &self,
        name: &str,
        provider: &str,
        f: &mut std::fmt::Formatter<'_>,
    ) -> std::fmt::Result {
        f.debug_struct(name)
            .field("provider", &provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .finish_non_exhaustive()
    }
}

/// What is left of the [`Settings`] once the transport is built.
pub(crate) struct ModelParts {
    pub model: String,
    pub profile: ModelProfile,
    pub tracker: Option<UsageTracker>,
}

/// Where a model's requests go and how its key is sent.
pub(crate) struct Endpoint {
    /// Non-streamed requests.
    pub url: reqwest::Url,
    /// Streamed requests, when not to `url`.
    pub stream_url: Option<reqwest::Url>,
    /// Building fails without a key.
    pub key_required: bool,
    pub auth: Auth,
    /// Headers sent with every request.
    pub fixed_headers: &'static [(&'static str, &'static str)],
}

impl Endpoint {
    /// `url` for every request, with a key required unless its host is local.
    pub(crate) fn new(url: reqwest::Url, auth: Auth) -> Self {
        Endpoint {
            key_required: !url.host_str().is_some_and(is_local),
            url,
            stream_url: None,
            auth,
            fixed_headers: &[],
        }
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
    pub(crate) fn header(self, key: &ApiKey) -> Result<(HeaderName, HeaderValue), ModelError> {
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

/// The setters of every model builder, chat and embedding (`settings` is the builder's
/// [`Settings`] field): the key, extra headers, the request timeout, retries, rate limits,
/// the body cap, the HTTP client, the cassette and the environment.
macro_rules! transport_setters {
    () => {
        /// The API key (otherwise read from the provider's environment variable).
        pub fn api_key(mut self, key: impl Into<String>) -> Self {
            self.settings.api_key = Some($crate::http::ApiKey::new(key));
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
            self.settings.limiter = $crate::providers::settings::limiter(limit);
            self
        }

        /// A rate limiter shared with other models (e.g. several models on one account).
        pub fn rate_limiter(mut self, limiter: $crate::http::RateLimiter) -> Self {
            self.settings.limiter = Some(limiter);
            self
        }

        /// The largest non-streamed response body, in bytes (default 32 MiB).
        pub fn max_body_bytes(mut self, n: usize) -> Self {
            self.settings.limits.max_body_bytes = n;
            self
        }

        /// A ready `reqwest` client, e.g. to share a connection pool between models. Its own
        /// timeouts apply; the key and extra headers are sent with each request.
        pub fn http_client(mut self, client: reqwest::Client) -> Self {
            self.settings.client = Some(client);
            self
        }

        /// Records this model's requests to, or replays them from, a
        /// [`Cassette`]($crate::cassette::Cassette). In replay mode no key is needed and
        /// nothing is sent.
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
    };
}
pub(crate) use transport_setters;

/// Generates the builder setters of every chat provider in this module (`settings` is the
/// builder's [`Settings`] field): [`transport_setters!`] and the chat-only ones.
macro_rules! settings_setters {
    () => {
        $crate::providers::settings::transport_setters!();

        /// The base URL, e.g. `http://127.0.0.1:8080` for a local server; the API's path is
        /// appended unless the URL already ends with it.
        pub fn base_url(mut self, url: impl Into<String>) -> Self {
            self.settings.base_url = Some(url.into());
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

        /// Every cap on what the server may send at once (see
        /// [`ResponseLimits`]($crate::http::ResponseLimits) for the defaults).
        pub fn response_limits(mut self, limits: $crate::http::ResponseLimits) -> Self {
            self.settings.limits = limits;
            self
        }

        /// The longest SSE line and largest SSE event, in bytes (default 8 MiB).
        pub fn max_event_bytes(mut self, n: usize) -> Self {
            self.settings.limits.max_event_bytes = n;
            self
        }

        /// The most bytes of one streamed answer (default 64 MiB).
        pub fn max_stream_bytes(mut self, n: usize) -> Self {
            self.settings.limits.max_stream_bytes = n;
            self
        }

        /// The longest arguments of one tool call, in bytes (default 4 MiB).
        pub fn max_tool_call_bytes(mut self, n: usize) -> Self {
            self.settings.limits.max_tool_call_bytes = n;
            self
        }

        /// The most tool calls in one answer (default 256).
        pub fn max_tool_calls(mut self, n: usize) -> Self {
            self.settings.limits.max_tool_calls = n;
            self
        }

        /// Counts this model's usage in `tracker`.
        pub fn usage_tracker(mut self, tracker: $crate::model::UsageTracker) -> Self {
            self.settings.tracker = Some(tracker);
            self
        }

        /// What the model supports, replacing the profile from the table of known models
        /// ([`ModelProfile::for_model`]($crate::model::ModelProfile::for_model)).
        pub fn profile(mut self, profile: $crate::model::ModelProfile) -> Self {
            self.settings.profile = profile;
            self
        }

        /// Changes some of what the model supports, keeping the rest of its profile: e.g.
        /// `.adjust_profile(|p| p.context_window = Some(32_000))` for a deployment with a
        /// smaller window, or `|p| p.reasoning = true` for a model the table does not know.
        pub fn adjust_profile(
            mut self,
            adjust: impl FnOnce(&mut $crate::model::ModelProfile),
        ) -> Self {
            adjust(&mut self.settings.profile);
            self
        }
    };
}
pub(crate) use settings_setters;

pub(crate) fn limiter(limit: RateLimit) -> Option<RateLimiter> {
    (!limit.is_unlimited()).then(|| RateLimiter::new(limit))
}

/// A host that needs no key: a local test or proxy server.
pub(crate) fn is_local(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    host.eq_ignore_ascii_case("localhost")
        || bare
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}
