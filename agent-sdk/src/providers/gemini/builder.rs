//! Configuring a [`GeminiModel`].

use std::fmt;

use super::{Gemini, GeminiModel, PROVIDER};
use crate::model::{ModelError, ModelProfile};
use crate::providers::driver::{Driver, Parts};
use crate::providers::transport::{Auth, Settings, is_local, parse_url, settings_setters};

/// Google's Generative Language API.
pub const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// Builds a [`GeminiModel`]; see [`GeminiModel::builder`].
///
/// ```
/// use agent_sdk::providers::gemini::GeminiModel;
///
/// let model = GeminiModel::builder("gemini-2.5-flash")
///     .api_key("AIza-test-0123456789")
///     .base_url("http://127.0.0.1:9")
///     .build()
///     .unwrap();
/// assert_eq!(model.endpoint(), "http://127.0.0.1:9/v1beta/models/gemini-2.5-flash:generateContent");
/// assert!(!format!("{model:?}").contains("AIza-test-0123456789"));
/// ```
#[must_use]
pub struct GeminiModelBuilder {
    model: String,
    settings: Settings,
    profile: ModelProfile,
    thinking_budget: Option<i32>,
}

impl GeminiModelBuilder {
    pub(crate) fn new(model: String) -> Self {
        GeminiModelBuilder {
            model,
            settings: Settings::new(
                Some("GEMINI_BASE_URL"),
                GEMINI_BASE_URL,
                &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            ),
            profile: ModelProfile {
                native_structured_output: true,
                strict_tools: false,
                parallel_tool_calls: true,
                tool_choice_required: true,
                tool_choice_named: true,
                tool_choice_none: true,
                streaming_usage: true,
                reasoning: false,
                seed: true,
            },
            thinking_budget: None,
        }
    }

    settings_setters!();

    /// Asks for thought summaries with this thinking budget (`-1`: the model decides; `0`:
    /// off, where the model allows it).
    pub fn thinking(mut self, budget_tokens: i32) -> Self {
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
    /// `GEMINI_API_KEY` and `GOOGLE_API_KEY`; none is needed for a loopback base URL), a
    /// malformed URL or header.
    pub fn build(self) -> Result<GeminiModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER, &self.model)?;
        let root = if base.ends_with("/v1beta") || base.ends_with("/v1") {
            base
        } else {
            format!("{base}/v1beta")
        };
        let endpoint = parse_url(&format!("{root}/models/{}:generateContent", self.model))?;
        let stream_endpoint = parse_url(&format!(
            "{root}/models/{}:streamGenerateContent?alt=sse",
            self.model
        ))?;
        let local = endpoint.host_str().is_some_and(is_local);
        let (transport, tracker) = self.settings.build(
            (PROVIDER, &self.model),
            !local,
            Auth::Header("x-goog-api-key"),
            &[],
        )?;
        Ok(GeminiModel {
            driver: Driver::new(Parts {
                model: self.model,
                endpoint,
                stream_endpoint: Some(stream_endpoint),
                transport,
                profile: self.profile,
                tracker,
                format: Gemini {
                    thinking_budget: self.thinking_budget,
                },
            }),
        })
    }
}

impl fmt::Debug for GeminiModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GeminiModelBuilder")
            .field("model", &self.model)
            .field("base_url", &self.settings.base_url)
            .field("api_key", &self.settings.api_key)
            .finish_non_exhaustive()
    }
}
