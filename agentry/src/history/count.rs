//! [`token_counter`]: the token counter for a provider's model.

use std::sync::Arc;

#[cfg(feature = "tiktoken")]
use crate::message::Message;
use crate::middleware::{CharCounter, TokenCounter};

/// The counter for `model` of `provider`: with the `tiktoken` cargo feature, OpenAI's models
/// (`openai`, `openai-responses`) are counted exactly with their BPE ([`Tiktoken`]); every
/// other model, and OpenAI's without the feature, gets an estimate ([`CharCounter`]: four
/// characters a token, LangChain's approximation), since Anthropic and Google publish no
/// tokenizer for their current models (their token-counting endpoints need a request).
///
/// Only text and tool-call arguments are counted; images and other media are not.
///
/// ```
/// use agentry::history::token_counter;
/// use agentry::Message;
///
/// let counter = token_counter("gemini", "gemini-2.5-flash");
/// assert!(counter.count(&[Message::user("Hello there, how are you?")]) > 0);
/// ```
pub fn token_counter(provider: &str, model: &str) -> Arc<dyn TokenCounter> {
    let openai = matches!(
        provider.trim().to_ascii_lowercase().as_str(),
        "openai" | "openai-responses" | "openai_responses"
    );
    #[cfg(feature = "tiktoken")]
    if openai {
        return Arc::new(Tiktoken::for_model(model));
    }
    let _ = (openai, model);
    Arc::new(CharCounter::default())
}

/// Exact counts for OpenAI models (the `tiktoken` cargo feature), with the framing the Chat
/// Completions API adds: three tokens a message, and three to prime the answer on each count.
/// A count of several parts is so never less than the count of the whole.
#[cfg(feature = "tiktoken")]
#[derive(Clone, Copy)]
pub struct Tiktoken {
    bpe: &'static tiktoken_rs::CoreBPE,
}

#[cfg(feature = "tiktoken")]
impl Tiktoken {
    /// The encoding of `model`: `o200k_base` for gpt-4o, gpt-4.1, gpt-5 and the o-series,
    /// `cl100k_base` for gpt-4 and gpt-3.5, `o200k_base` for a model tiktoken does not know.
    pub fn for_model(model: &str) -> Self {
        use tiktoken_rs::tokenizer::{Tokenizer, get_tokenizer};
        let tokenizer = get_tokenizer(model).unwrap_or(Tokenizer::O200kBase);
        let bpe = match tokenizer {
            Tokenizer::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            _ => tiktoken_rs::o200k_base_singleton(),
        };
        Tiktoken { bpe }
    }

    /// The tokens of `text` alone.
    pub fn count_text(&self, text: &str) -> u64 {
        self.bpe.encode_with_special_tokens(text).len() as u64
    }
}

#[cfg(feature = "tiktoken")]
impl std::fmt::Debug for Tiktoken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tiktoken").finish_non_exhaustive()
    }
}

#[cfg(feature = "tiktoken")]
impl TokenCounter for Tiktoken {
    fn count(&self, messages: &[Message]) -> u64 {
        const PER_MESSAGE: u64 = 3;
        const PRIMING: u64 = 3;
        let body: u64 = messages
            .iter()
            .map(|m| {
                let calls: u64 = match m {
                    Message::Assistant(a) => a
                        .tool_calls
                        .iter()
                        .map(|c| self.count_text(&c.name) + self.count_text(&c.arguments))
                        .sum(),
                    _ => 0,
                };
                PER_MESSAGE + self.count_text(&m.text()) + calls
            })
            .sum();
        body + PRIMING
    }
}

#[cfg(all(test, feature = "tiktoken"))]
mod tests {
    use super::*;

    #[test]
    fn openai_counts_are_exact() {
        let t = Tiktoken::for_model("gpt-4o");
        // "hello world" is two tokens in o200k_base.
        assert_eq!(t.count_text("hello world"), 2);
        assert_eq!(t.count(&[Message::user("hello world")]), 3 + 2 + 3);
        let counter = token_counter("openai", "gpt-4o-mini");
        assert_eq!(counter.count(&[Message::user("hello world")]), 8);
        // Not OpenAI: an estimate.
        let estimate = token_counter("anthropic", "claude-sonnet-4-5");
        assert_eq!(estimate.count(&[Message::user("hello world")]), 3);
    }
}
