//! Prompt caching: where a provider may cache the prefix of a request.

use serde::{Deserialize, Serialize};

/// Cache breakpoints for providers with explicit prompt caching (Anthropic's
/// `cache_control`). Everything up to and including a breakpoint may be cached and read back
/// at a tenth of the price on the next request with the same prefix; cache reads and writes
/// are counted in [`Usage`](crate::Usage). Providers that cache on their own (OpenAI, Gemini)
/// ignore it; see [`ChatRequest::prompt_cache_key`](super::ChatRequest::prompt_cache_key) for
/// OpenAI's routing hint.
///
/// ```
/// use agentry::model::PromptCache;
/// let cache = PromptCache::system_and_tools().message(3);
/// assert!(cache.system && cache.tools);
/// assert_eq!(cache.messages, vec![3]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptCache {
    /// A breakpoint after the system prompt.
    pub system: bool,
    /// A breakpoint after the tool definitions.
    pub tools: bool,
    /// Breakpoints after these messages (indices into
    /// [`ChatRequest::messages`](super::ChatRequest::messages)).
    pub messages: Vec<usize>,
}

impl PromptCache {
    /// Breakpoints after the system prompt and after the tools: the usual choice for an agent,
    /// whose instructions and tools repeat on every request.
    pub fn system_and_tools() -> Self {
        PromptCache {
            system: true,
            tools: true,
            messages: Vec::new(),
        }
    }

    /// Adds a breakpoint after message `index`.
    pub fn message(mut self, index: usize) -> Self {
        self.messages.push(index);
        self
    }

    /// Whether there is no breakpoint.
    pub fn is_empty(&self) -> bool {
        !self.system && !self.tools && self.messages.is_empty()
    }
}
