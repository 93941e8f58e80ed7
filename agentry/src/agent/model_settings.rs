//! The request settings an agent sends with every model request (temperature, sampling,
//! caching, limits per answer), set on its builder.

use super::builder::AgentBuilder;
use crate::model::ModelSettings;

impl<T, O, C, S> AgentBuilder<T, O, C, S> {
    /// Sampling temperature, sent exactly as written (`0.1` goes out as `0.1`).
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.parts.settings.temperature = Some(temperature);
        self
    }

    /// Nucleus sampling (`top_p`), sent exactly as written.
    pub fn top_p(mut self, top_p: f64) -> Self {
        self.parts.settings.top_p = Some(top_p);
        self
    }

    /// Asks the provider to cache the system prompt and the tools, which repeat on every
    /// request of a run (Anthropic's `cache_control`; providers that cache on their own ignore
    /// it). Cache reads and writes show in the run's usage.
    pub fn cache_prompt(mut self, on: bool) -> Self {
        self.parts.settings.cache_prompt = on;
        self
    }

    /// Maximum tokens per answer.
    pub fn max_tokens(mut self, max: u32) -> Self {
        self.parts.settings.max_tokens = Some(max);
        self
    }

    /// Whether the model may call several tools per answer.
    pub fn parallel_tool_calls(mut self, allowed: bool) -> Self {
        self.parts.settings.parallel_tool_calls = Some(allowed);
        self
    }

    /// A sampling seed, where the provider supports one (for repeatable answers).
    pub fn seed(mut self, seed: u64) -> Self {
        self.parts.settings.seed = Some(seed);
        self
    }

    /// Every request setting at once, replacing those set before.
    ///
    /// ```
    /// use agentry::agent::{AgentBuilder, NoTools};
    /// use agentry::model::ModelSettings;
    /// use agentry::testing::{ScriptedModel, Turn};
    ///
    /// let settings = ModelSettings {
    ///     temperature: Some(0.2),
    ///     seed: Some(7),
    ///     ..ModelSettings::default()
    /// };
    /// let agent = AgentBuilder::<_, _, (), ()>::new(ScriptedModel::new([Turn::text("hi")]), NoTools)
    ///     .model_settings(settings.clone())
    ///     .build();
    /// assert_eq!(agent.model_settings(), &settings);
    /// ```
    pub fn model_settings(mut self, settings: ModelSettings) -> Self {
        self.parts.settings = settings;
        self
    }
}
