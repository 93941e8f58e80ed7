//! Configuring a [`GeminiModel`].

use std::fmt;

use super::{Gemini, GeminiModel, PROVIDER};
use crate::model::{ModelError, ModelProfile};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url, settings_setters};

/// Google's Generative Language API.
pub(super) const GEMINI_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// Builds a [`GeminiModel`]; see [`GeminiModel::builder`].
///
/// ```
/// use agentry::providers::gemini::GeminiModel;
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
    settings: Settings,
    thinking_budget: Option<i32>,
}

impl GeminiModelBuilder {
    pub(crate) fn new(model: String) -> Self {
        let profile = ModelProfile::for_model(PROVIDER, &model);
        GeminiModelBuilder {
            settings: Settings::new(
                model,
                profile,
                Some("GEMINI_BASE_URL"),
                GEMINI_BASE_URL,
                &["GEMINI_API_KEY", "GOOGLE_API_KEY"],
            ),
            thinking_budget: None,
        }
    }

    settings_setters!();

    /// Asks for thought summaries with this thinking budget (`-1`: the model decides; `0`:
    /// off, where the model allows it).
    pub fn thinking(mut self, budget_tokens: i32) -> Self {
        self.thinking_budget = Some(budget_tokens);
        self.settings.profile.reasoning = true;
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// `GEMINI_API_KEY` and `GOOGLE_API_KEY`; none is needed for a loopback base URL), a
    /// malformed URL or header.
    pub fn build(self) -> Result<GeminiModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER)?;
        let root = if base.ends_with("/v1beta") || base.ends_with("/v1") {
            base
        } else {
            format!("{base}/v1beta")
        };
        let endpoint = parse_url(&format!(
            "{root}/models/{}:generateContent",
            self.settings.model
        ))?;
        let stream_endpoint = parse_url(&format!(
            "{root}/models/{}:streamGenerateContent?alt=sse",
            self.settings.model
        ))?;
        let endpoint = Endpoint {
            stream_url: Some(stream_endpoint),
            ..Endpoint::new(endpoint, Auth::Header("x-goog-api-key"))
        };
        let format = Gemini {
            thinking_budget: self.thinking_budget,
        };
        Ok(GeminiModel {
            driver: self.settings.into_driver(endpoint, format)?,
        })
    }
}

impl fmt::Debug for GeminiModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings.fmt_builder("GeminiModelBuilder", PROVIDER, f)
    }
}
