//! Configuring an [`OpenAiModel`].

use std::fmt;

use super::{ChatCompletions, MaxTokensField, OpenAiModel};
use crate::model::{ModelError, ModelProfile};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url, settings_setters};

/// OpenAI's API.
pub(super) const OPENAI_BASE_URL: &str = "https://api.openai.com/v1";

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
/// use agentry::providers::openai::OpenAiModel;
/// use agentry::model::ChatModel;
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
    provider: String,
    settings: Settings,
    key_rule: KeyRule,
    max_tokens_field: MaxTokensField,
    reasoning_effort: Option<String>,
}

impl OpenAiModelBuilder {
    fn base(model: String) -> Self {
        OpenAiModelBuilder {
            provider: "openai".into(),
            settings: Settings::new(model, ModelProfile::full(), None, OPENAI_BASE_URL, &[]),
            key_rule: KeyRule::Optional,
            max_tokens_field: MaxTokensField::MaxCompletionTokens,
            reasoning_effort: None,
        }
    }

    pub(crate) fn openai(model: String) -> Self {
        let mut b = Self::base(model);
        b.settings.profile = ModelProfile::for_model("openai", &b.settings.model);
        b.settings.base_url_env = Some("OPENAI_BASE_URL".into());
        b.settings.api_key_env = vec!["OPENAI_API_KEY".into()];
        b.key_rule = KeyRule::WhenOpenAi;
        b
    }

    pub(crate) fn compatible(model: String) -> Self {
        let mut b = Self::base(model);
        b.provider = "openai-compatible".into();
        b.settings.profile = ModelProfile::conservative();
        b.max_tokens_field = MaxTokensField::MaxTokens;
        b
    }

    settings_setters!();

    /// The provider name reported by [`ChatModel::provider`](crate::model::ChatModel::provider).
    pub fn provider_name(mut self, name: impl Into<String>) -> Self {
        self.provider = name.into();
        self
    }

    /// Reads the key from `var` and requires one (`required`) or sends it only when set.
    pub fn api_key_env(mut self, var: impl Into<String>, required: bool) -> Self {
        self.settings.api_key_env = vec![var.into()];
        self.key_rule = if required {
            KeyRule::Required
        } else {
            KeyRule::Optional
        };
        self
    }

    /// Reads the base URL from `var` when [`base_url`](Self::base_url) is not given, falling
    /// back to `default`.
    pub fn base_url_env(mut self, var: impl Into<String>, default: impl Into<String>) -> Self {
        self.settings.base_url_env = Some(var.into());
        self.settings.default_base_url = default.into();
        self
    }

    pub(crate) fn clear_base_url(mut self) -> Self {
        self.settings.base_url = None;
        self
    }

    /// Makes the base URL mandatory: without [`base_url`](Self::base_url) or the variable set by
    /// [`base_url_env`](Self::base_url_env), building fails naming `var`.
    pub(crate) fn require_base_url(mut self, var: &str) -> Self {
        self.settings.base_url_required = true;
        self.settings.base_url_env = Some(var.to_owned());
        self
    }

    /// Asks a reasoning model for this effort (`reasoning_effort`: `minimal`, `low`, `medium`,
    /// `high`, as the model accepts), and marks the model's profile as reasoning (no
    /// temperature is then sent). The profile of a known reasoning model (o3, gpt-5, ...) is
    /// already reasoning; this only adds the effort.
    ///
    /// ```
    /// use agentry::model::ChatModel;
    /// use agentry::providers::openai::OpenAiModel;
    ///
    /// let model = OpenAiModel::builder("o4-mini")
    ///     .api_key("sk-test-0123456789")
    ///     .reasoning_effort("low")
    ///     .build()
    ///     .unwrap();
    /// assert!(model.profile().reasoning);
    /// ```
    pub fn reasoning_effort(mut self, effort: impl Into<String>) -> Self {
        self.reasoning_effort = Some(effort.into());
        self.settings.profile.reasoning = true;
        self
    }

    /// The request field that carries the token limit.
    pub fn max_tokens_field(mut self, field: MaxTokensField) -> Self {
        self.max_tokens_field = field;
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// the variable to set), a malformed URL or header.
    pub fn build(self) -> Result<OpenAiModel, ModelError> {
        let base = self.settings.resolve_base_url(&self.provider)?;
        let full = if base.ends_with("/chat/completions") {
            base
        } else {
            format!("{base}/chat/completions")
        };
        let url = parse_url(&full)?;
        let key_required = match self.key_rule {
            KeyRule::Required => true,
            KeyRule::WhenOpenAi => url.host_str() == Some("api.openai.com"),
            KeyRule::Optional => false,
        };
        let endpoint = Endpoint {
            key_required,
            ..Endpoint::new(url, Auth::Bearer)
        };
        let format = ChatCompletions {
            provider: self.provider,
            max_tokens_field: self.max_tokens_field,
            reasoning_effort: self.reasoning_effort,
        };
        Ok(OpenAiModel {
            driver: self.settings.into_driver(endpoint, format)?,
        })
    }
}

impl fmt::Debug for OpenAiModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings
            .fmt_builder("OpenAiModelBuilder", &self.provider, f)
    }
}
