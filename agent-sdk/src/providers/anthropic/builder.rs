//! Configuring an [`AnthropicModel`].

use std::fmt;

use super::{ANTHROPIC_VERSION, Anthropic, AnthropicModel, PROVIDER};
use crate::model::{ModelError, ModelProfile};
use crate::providers::driver::{Driver, Parts};
use crate::providers::transport::{Auth, Settings, is_local, parse_url, settings_setters};

/// Anthropic's API.
pub const ANTHROPIC_BASE_URL: &str = "https://api.anthropic.com";

/// Builds an [`AnthropicModel`]; see [`AnthropicModel::builder`].
///
/// ```
/// use agent_sdk::providers::anthropic::AnthropicModel;
/// use agent_sdk::model::ChatModel;
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
    model: String,
    settings: Settings,
    profile: ModelProfile,
    default_max_tokens: u32,
    thinking_budget: Option<u32>,
}

impl AnthropicModelBuilder {
    pub(crate) fn new(model: String) -> Self {
        AnthropicModelBuilder {
            model,
            settings: Settings::new(
                Some("ANTHROPIC_BASE_URL"),
                ANTHROPIC_BASE_URL,
                &["ANTHROPIC_API_KEY"],
            ),
            profile: profile(),
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
        self.profile.reasoning = true;
        self
    }

    /// What the model supports.
    pub fn profile(mut self, profile: ModelProfile) -> Self {
        self.profile = profile;
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// `ANTHROPIC_API_KEY`; none is needed for a loopback base URL), a malformed URL or header.
    pub fn build(self) -> Result<AnthropicModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER, &self.model)?;
        let full = if base.ends_with("/v1/messages") {
            base
        } else if base.ends_with("/v1") {
            format!("{base}/messages")
        } else {
            format!("{base}/v1/messages")
        };
        let endpoint = parse_url(&full)?;
        let local = endpoint.host_str().is_some_and(is_local);
        let (transport, tracker) = self.settings.build(
            (PROVIDER, &self.model),
            !local,
            Auth::Header("x-api-key"),
            &[("anthropic-version", ANTHROPIC_VERSION)],
        )?;
        Ok(AnthropicModel {
            driver: Driver::new(Parts {
                model: self.model,
                endpoint,
                stream_endpoint: None,
                transport,
                profile: self.profile,
                tracker,
                format: Anthropic {
                    default_max_tokens: self.default_max_tokens,
                    thinking_budget: self.thinking_budget,
                },
            }),
        })
    }
}

/// Claude's current models: native structured output, parallel tool use and every tool
/// choice; no strict tools, no seed.
fn profile() -> ModelProfile {
    ModelProfile {
        native_structured_output: true,
        strict_tools: false,
        parallel_tool_calls: true,
        tool_choice_required: true,
        tool_choice_named: true,
        tool_choice_none: true,
        streaming_usage: true,
        reasoning: false,
        seed: false,
    }
}

impl fmt::Debug for AnthropicModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AnthropicModelBuilder")
            .field("model", &self.model)
            .field("base_url", &self.settings.base_url)
            .field("api_key", &self.settings.api_key)
            .finish_non_exhaustive()
    }
}
