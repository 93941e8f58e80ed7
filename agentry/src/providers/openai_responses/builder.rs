//! Configuring an [`OpenAiResponsesModel`].

use std::fmt;

use super::{OpenAiResponsesModel, PROVIDER, Responses, StoredPrompt};
use crate::model::{ModelError, ModelProfile};
use crate::providers::settings::{Auth, Endpoint, Settings, parse_url, settings_setters};

/// Builds an [`OpenAiResponsesModel`]; see [`OpenAiResponsesModel::builder`].
///
/// ```
/// use agentry::providers::openai_responses::OpenAiResponsesModel;
///
/// let model = OpenAiResponsesModel::builder("gpt-4.1")
///     .api_key("sk-test-0123456789")
///     .base_url("http://127.0.0.1:9/v1")
///     .build()
///     .unwrap();
/// assert_eq!(model.endpoint(), "http://127.0.0.1:9/v1/responses");
/// assert!(!format!("{model:?}").contains("sk-test-0123456789"));
/// ```
#[must_use]
pub struct OpenAiResponsesModelBuilder {
    settings: Settings,
    store: bool,
    reasoning_effort: Option<String>,
    reasoning_summary: String,
    prompt: Option<StoredPrompt>,
}

impl OpenAiResponsesModelBuilder {
    pub(crate) fn new(model: String) -> Self {
        // The Responses API has no seed.
        let profile = ModelProfile {
            seed: false,
            ..ModelProfile::for_model(PROVIDER, &model)
        };
        OpenAiResponsesModelBuilder {
            settings: Settings::new(
                model,
                profile,
                Some("OPENAI_BASE_URL"),
                "https://api.openai.com/v1",
                &["OPENAI_API_KEY"],
            ),
            store: false,
            reasoning_effort: None,
            reasoning_summary: "auto".into(),
            prompt: None,
        }
    }

    settings_setters!();

    /// Asks a reasoning model for this effort (`minimal`, `low`, `medium`, `high`) with
    /// reasoning summaries; temperature is then not sent.
    pub fn reasoning_effort(mut self, effort: impl Into<String>) -> Self {
        self.reasoning_effort = Some(effort.into());
        self.settings.profile.reasoning = true;
        self
    }

    /// How detailed the reasoning summaries are: `auto` (the default), `concise` or
    /// `detailed`. Sent with [`reasoning_effort`](Self::reasoning_effort).
    pub fn reasoning_summary(mut self, level: impl Into<String>) -> Self {
        self.reasoning_summary = level.into();
        self
    }

    /// Whether OpenAI stores responses (`store`). Off by default: reasoning items then carry
    /// their encrypted content so that the conversation is self-contained.
    pub fn store(mut self, store: bool) -> Self {
        self.store = store;
        self
    }

    /// Uses a prompt stored on the OpenAI platform in every request (`prompt`: its id,
    /// version and variable values); its messages come before each request's input.
    ///
    /// ```
    /// use agentry::providers::openai_responses::{OpenAiResponsesModel, StoredPrompt};
    ///
    /// let model = OpenAiResponsesModel::builder("gpt-4.1")
    ///     .api_key("sk-test-0123456789")
    ///     .prompt(StoredPrompt::new("pmpt_123").variable("city", "Lisbon"))
    ///     .build()
    ///     .unwrap();
    /// # let _ = model;
    /// ```
    pub fn prompt(mut self, prompt: StoredPrompt) -> Self {
        self.prompt = Some(prompt);
        self
    }

    /// Builds the model. Fails with [`ModelError::Configuration`] on a missing key (naming
    /// `OPENAI_API_KEY`; none is needed for a loopback base URL), a malformed URL or header.
    pub fn build(self) -> Result<OpenAiResponsesModel, ModelError> {
        let base = self.settings.resolve_base_url(PROVIDER)?;
        let full = if base.ends_with("/responses") {
            base
        } else {
            format!("{base}/responses")
        };
        let endpoint = Endpoint::new(parse_url(&full)?, Auth::Bearer);
        let format = Responses {
            store: self.store,
            reasoning_effort: self.reasoning_effort,
            reasoning_summary: self.reasoning_summary,
            prompt: self.prompt,
        };
        Ok(OpenAiResponsesModel {
            driver: self.settings.into_driver(endpoint, format)?,
        })
    }
}

impl fmt::Debug for OpenAiResponsesModelBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.settings
            .fmt_builder("OpenAiResponsesModelBuilder", PROVIDER, f)
    }
}
