//! Configuring an [`OpenAiModel`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};

use super::{Inner, MaxTokensField, OpenAiModel};
use crate::http::{ApiKey, RateLimit, RateLimiter, RetryPolicy, Timeouts};
use crate::model::{ModelError, ModelProfile, UsageTracker};

/// OpenAI's API.
pub const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Whether a model needs an API key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyRule {
    /// Required when the base URL is OpenAI's own.
    WhenOpenAi,
    /// Always required.
    Required,
    /// Sent when there is one.
    Optional,
}

/// Builds an [`OpenAiModel`]; see [`OpenAiModel::builder`] and [`OpenAiModel::compatible`].
///
/// ```
/// use std::time::Duration;
/// use agent_sdk::providers::openai::OpenAiModel;
/// use agent_sdk::model::ChatModel;
///
/// let model = OpenAiModel::builder("gpt-4o-mini")
///     .api_key("sk-test-0123456789")
///     .base_url("http://127.0.0.1:9/v1")
///     .header("OpenAI-Organization", "org-123")
///     .timeout(Duration::from_secs(30))
///     .max_retries(1)
///     .build()
///     .unwrap();
/// assert_eq!(model.endpoint(), "http://127.0.0.1:9/v1/chat/completions");
/// assert!(!format!("{model:?}").contains("sk-test-0123456789"));
/// ```
#[must_use]
pub struct OpenAiModelBuilder {
    model: String,
    provider: String,
    base_url: Option<String>,
    base_url_env: Option<String>,
    base_url_required: bool,
    default_base_url: String,
    api_key: Option<ApiKey>,
    api_key_env: Option<String>,
    key_rule: KeyRule,
    headers: Vec<(String, String)>,
    timeouts: Timeouts,
    retry: RetryPolicy,
    limiter: Option<RateLimiter>,
    profile: ModelProfile,
    max_tokens_field: MaxTokensField,
    tracker: Option<UsageTracker>,
    client: Option<reqwest::Client>,
    env: EnvLookup,
}

impl OpenAiModelBuilder {
    fn base(model: String) -> Self {
        OpenAiModelBuilder {
            model,
            provider: "openai".into(),
            base_url: None,
            base_url_env: None,
            base_url_required: false,
            default_base_url: OPENAI_BASE_URL.into(),
            api_key: None,
            api_key_env: None,
            key_rule: KeyRule::Optional,
            headers: Vec::new(),
            timeouts: Timeouts::default(),
            retry: RetryPolicy::default(),
            limiter: None,
            profile: ModelProfile::full(),
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            tracker: None,
            client: None,
            env: Arc::new(|name| std::env::var(name).ok()),
        }
    }

    pub(crate) fn openai(model: String) -> Self {
        let mut b = Self::base(model);
        b.base_url_env = Some("OPENAI_BASE_URL".into());
        b.api_key_env = Some("OPENAI_API_KEY".into());
        b.key_rule = KeyRule::WhenOpenAi;
        b
    }

    pub(crate) fn compatible(model: String) -> Self {
        let mut b = Self::base(model);
        b.provider = "openai-compatible".into();
        b.profile = ModelProfile::conservative();
        b.max_tokens_field = MaxTokensField::MaxTokens;
        b
    }

    /// The provider name reported by [`ChatModel::provider`](crate::model::ChatModel::provider).
    pub fn provider_name(mut self, name: impl Into<String>) -> Self {
        self.provider = name.into();
        self
    }

    /// The API key (otherwise read from the provider's environment variable).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(ApiKey::new(key));
        self
    }

    /// Reads the key from `var` and requires one (`required`) or sends it only when set.
    pub fn api_key_env(mut self, var: impl Into<String>, required: bool) -> Self {
        self.api_key_env = Some(var.into());
        self.key_rule = if required {
            KeyRule::Required
        } else {
            KeyRule::Optional
        };
        self
    }

    /// The base URL, e.g. `http://localhost:11434/v1`; `/chat/completions` is appended
    /// unless the URL already ends with it.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// Reads the base URL from `var` when [`base_url`](Self::base_url) is not given, falling
    /// back to `default`.
    pub fn base_url_env(mut self, var: impl Into<String>, default: impl Into<String>) -> Self {
        self.base_url_env = Some(var.into());
        self.default_base_url = default.into();
        self
    }

    pub(crate) fn clear_base_url(mut self) -> Self {
        self.base_url = None;
        self
    }

    /// Makes the base URL mandatory: without [`base_url`](Self::base_url) or the variable set by
    /// [`base_url_env`](Self::base_url_env), building fails naming `var`.
    pub(crate) fn require_base_url(mut self, var: &str) -> Self {
        self.base_url_required = true;
        self.base_url_env = Some(var.to_owned());
        self
    }

    /// An extra header sent with every request (its value is treated as a secret).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The timeout of a whole request (of the wait for headers, for a stream).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.request = timeout;
        self
    }

    /// The timeout for establishing a connection.
    pub fn connect_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.connect = timeout;
        self
    }

    /// The longest silence allowed inside a streamed answer.
    pub fn stream_idle_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.stream_idle = timeout;
        self
    }

    /// Every timeout at once.
    pub fn timeouts(mut self, timeouts: Timeouts) -> Self {
        self.timeouts = timeouts;
        self
    }

    /// Retries after a retryable failure (keeps the rest of the retry policy).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.retry.max_retries = n;
        self
    }

    /// The whole retry policy.
    pub fn retry_policy(mut self, policy: RetryPolicy) -> Self {
        self.retry = policy;
        self
    }

    /// A client-side rate limit for this model and its clones.
    pub fn rate_limit(mut self, limit: RateLimit) -> Self {
        self.limiter = (!limit.is_unlimited()).then(|| RateLimiter::new(limit));
        self
    }

    /// A rate limiter shared with other models (e.g. several models on one account).
    pub fn rate_limiter(mut self, limiter: RateLimiter) -> Self {
        self.limiter = Some(limiter);
        self
    }

    /// What the model supports.
    pub fn profile(mut self, profile: ModelProfile) -> Self {
        self.profile = profile;
        self
    }

    /// The request field that carries the token limit.
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    /// Counts this model's usage in `tracker`.
    pub fn usage_tracker(mut self, tracker: UsageTracker) -> Self {
        self.tracker = Some(tracker);
        self
    }

    /// A ready `reqwest` client, e.g. to share a connection pool between models. Its own
    /// timeouts apply; the key and extra headers are sent with each request.
    pub fn http_client(mut self, client: reqwest::Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Where environment variables are read from (default: the process environment).
    pub fn env(mut self, lookup: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        self.env = Arc::new(lookup);
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// the variable to set), a malformed URL or header.
    pub fn build(self) -> Result<OpenAiModel, ModelError> {
        let env = &self.env;
        let from_env = || {
            self.base_url_env
                .as_deref()
                .and_then(|v| env(v))
                .filter(|s| !s.trim().is_empty())
        };
        let base = match self.base_url.clone().or_else(from_env) {
            Some(base) => base,
            None if self.base_url_required => {
                return Err(ModelError::Configuration(format!(
                    "no base URL for {} model `{}`: set the {} environment variable or call .base_url(..)",
                    self.provider,
                    self.model,
                    self.base_url_env.as_deref().unwrap_or("base URL")
                )));
            }
            None => self.default_base_url.clone(),
        };
        let endpoint = endpoint(&base)?;
        let api_key = self.api_key.clone().or_else(|| {
            self.api_key_env
                .as_deref()
                .and_then(|v| env(v))
                .filter(|k| !k.trim().is_empty())
                .map(|k| ApiKey::new(k.trim()))
        });
        let key_needed = match self.key_rule {
            KeyRule::Required => true,
            KeyRule::WhenOpenAi => endpoint.host_str() == Some("api.openai.com"),
            KeyRule::Optional => false,
        };
        if api_key.is_none() && key_needed {
            let how = match &self.api_key_env {
                Some(var) => format!("set the {var} environment variable or call .api_key(..)"),
                None => "call .api_key(..)".into(),
            };
            return Err(ModelError::Configuration(format!(
                "no API key for {} model `{}`: {how}",
                self.provider, self.model
            )));
        }

        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(key) = &api_key {
            let mut value =
                HeaderValue::from_str(&format!("Bearer {}", key.expose())).map_err(|_| {
                    ModelError::Configuration(
                        "the API key contains characters not allowed in a header".into(),
                    )
                })?;
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
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

        Ok(OpenAiModel {
            inner: Arc::new(Inner {
                model: self.model,
                provider: self.provider,
                endpoint,
                api_key,
                header_names,
                client,
                request_headers,
                timeouts: self.timeouts,
                retry: self.retry,
                limiter: self.limiter,
                profile: self.profile,
                max_tokens_field: self.max_tokens_field,
                tracker: self.tracker,
            }),
        })
    }
}

fn endpoint(base: &str) -> Result<reqwest::Url, ModelError> {
    let base = base.trim().trim_end_matches('/');
    let full = if base.ends_with("/chat/completions") {
        base.to_owned()
    } else {
        format!("{base}/chat/completions")
    };
    let url = reqwest::Url::parse(&full)
        .map_err(|e| ModelError::Configuration(format!("invalid base URL `{base}`: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ModelError::Configuration(format!(
            "invalid base URL `{base}`: the scheme must be http or https"
        )));
    }
    Ok(url)
}

impl fmt::Debug for OpenAiModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OpenAiModelBuilder")
            .field("provider", &self.provider)
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key)
            .finish_non_exhaustive()
    }
}
