//! [`ModelSettings`]: the request settings an agent sends on every request of a run.

/// Request settings passed to the model on every request of a run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelSettings {
    /// Sampling temperature, sent exactly as written.
    pub temperature: Option<f64>,
    /// Nucleus sampling (`top_p`), sent exactly as written.
    pub top_p: Option<f64>,
    /// Whether to ask the provider to cache the system prompt and the tools
    /// ([`PromptCache::system_and_tools`](crate::model::PromptCache::system_and_tools)).
    pub cache_prompt: bool,
    /// Maximum tokens per answer.
    pub max_tokens: Option<u32>,
    /// Whether the model may call several tools per answer (`None`: provider default).
    pub parallel_tool_calls: Option<bool>,
    /// Seed, where supported.
    pub seed: Option<u64>,
}
