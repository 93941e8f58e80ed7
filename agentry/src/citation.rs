//! [`Citation`]: a source a provider cites for a piece of answer text.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A source the provider cites for a text block
/// ([`ContentBlock::Text`](crate::ContentBlock::Text)'s `citations`).
///
/// The citation is kept exactly as the provider sent it (`value`), so it goes back unchanged
/// when the message is resent; the accessors read its common fields. Anthropic's kinds are
/// `char_location`, `page_location`, `content_block_location` (citable documents),
/// `search_result_location` and `web_search_result_location` (web search).
///
/// ```
/// use agentry::Citation;
/// use serde_json::json;
///
/// let citation = Citation::new("anthropic", json!({
///     "type": "web_search_result_location",
///     "url": "https://example.com/rust",
///     "title": "Rust 1.0",
///     "cited_text": "Rust 1.0 shipped on 15 May 2015.",
///     "encrypted_index": "Eo8BCioIAhgB"
/// }));
/// assert_eq!(citation.kind(), Some("web_search_result_location"));
/// assert_eq!(citation.url(), Some("https://example.com/rust"));
/// assert_eq!(citation.title(), Some("Rust 1.0"));
/// assert_eq!(citation.cited_text(), Some("Rust 1.0 shipped on 15 May 2015."));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Citation {
    /// The provider whose wire format `value` is in, e.g. `"anthropic"`.
    pub provider: String,
    /// The citation exactly as the provider sent it.
    pub value: Value,
}

impl Citation {
    /// A citation of `provider`, as it sent it.
    pub fn new(provider: impl Into<String>, value: Value) -> Self {
        Citation {
            provider: provider.into(),
            value,
        }
    }

    /// The citation's kind (its `type`), e.g. `web_search_result_location`.
    pub fn kind(&self) -> Option<&str> {
        self.field("type")
    }

    /// The text quoted from the source.
    pub fn cited_text(&self) -> Option<&str> {
        self.field("cited_text")
    }

    /// The source's URL (a web search result).
    pub fn url(&self) -> Option<&str> {
        self.field("url")
    }

    /// The source's title: a web page's, a search result's, or a document's
    /// (`document_title`).
    pub fn title(&self) -> Option<&str> {
        self.field("title").or_else(|| self.field("document_title"))
    }

    fn field(&self, name: &str) -> Option<&str> {
        self.value.get(name).and_then(Value::as_str)
    }
}
