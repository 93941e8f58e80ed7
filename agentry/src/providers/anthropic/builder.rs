//! Configuring an [`AnthropicModel`].

use std::fmt;

use super::{ANTHROPIC_VERSION, Anthropic, AnthropicModel, PROVIDER};
use crate::model::{ModelError, ModelProfile};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url, settings_setters};

/// Anthropic's API.
pub(super) const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// Builds an [`AnthropicModel`]; see [`AnthropicModel::builder`].
///
/// ```
/// use agentry::providers::anthropic::AnthropicModel;
/// use agentry::model::ChatModel;
///
/// let model = AnthropicModel::builder("claude-sonnet-4-5")
///     .api_key("sk-ant-test-0123456789")
///     .base_url("http://127.0.0.1:9")
///     .default_max_tokens(1024)
///     .build()
///     .unwrap();
/// assert_eq!(model.endpoint(), "http://127.0.0.1:9/v1/messages");
/// assert_eq!(model.provider(), "anthropic");
/// assert!(!format!("{model:?}").contains("sk-ant-test-0123456789"));
/// ```
#[must_use]
pub struct AnthropicModelBuilder {
    settings: Settings,
    default_max_tokens: u32,
    thinking_budget: Option<u32>,
}

impl AnthropicModelBuilder {
    pub(crate) fn new(model: String) -> Self {
        let profile = ModelProfile::for_model(PROVIDER, &model);
        AnthropicModelBuilder {
            settings: Settings::new(
                model,
                profile,
                Some("ANTHROPIC_BASE_URL"),
                ANTHROPIC_BASE_URL,
                &["ANTHROPIC_API_KEY"],
            ),
            default_max_tokens: 4096,
            thinking_budget: None,
        }
    }

    settings_setters!();

    /// `max_tokens` for requests that set none (Anthropic requires one). Default 4096.
    pub fn default_max_tokens(mut self, n: u32) -> Self {
        self.default_max_tokens = n;
        self
    }

    /// Turns extended thinking on with this token budget. Thinking blocks then come back as
    /// [`ContentBlock::Reasoning`](crate::ContentBlock::Reasoning) with their signature and
    /// are sent back unchanged on the next turn, as Anthropic requires.
    pub fn thinking(mut self, budget_tokens: u32) -> Self {
        self.thinking_budget = Some(budget_tokens);
        self.settings.profile.reasoning = true;
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// `ANTHROPIC_API_KEY`; none is needed for a loopback base URL), a malformed URL or header.
    pub fn build(self) -> Result<AnthropicModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER)?;
        let full = if base.ends_with("/v1/messages") {
            base
        } else if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        };
        let endpoint = Endpoint {
            fixed_headers: &[("anthropic-version", ANTHROPIC_VERSION)],
            ..Endpoint::new(parse_url(&full)?, Auth::Header("x-api-key"))
        };
        let format = Anthropic {
            default_max_tokens: self.default_max_tokens,
            thinking_budget: self.thinking_budget,
        };
        Ok(AnthropicModel {
            driver: self.settings.into_driver(endpoint, format)?,
        })
    }
}

impl fmt::Debug for AnthropicModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings
            .fmt_builder("AnthropicModelBuilder", PROVIDER, f)
    }
}
