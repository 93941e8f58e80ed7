//! Tools the provider runs itself (web search, code execution...), declared beside function
//! tools.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A tool hosted by the provider, passed through exactly as the provider defines it.
///
/// The model calls such a tool on the provider's side; the SDK never runs it. Its calls and
/// results come back as provider blocks ([`ContentBlock::Other`](crate::ContentBlock::Other))
/// and are sent back unchanged on the next request. A request holding a hosted tool of
/// another provider is refused with [`ModelError::Unsupported`](super::ModelError::Unsupported).
///
/// ```
/// use agentry::model::{ChatRequest, ProviderTool};
/// use agentry::Message;
///
/// let mut request = ChatRequest::new(vec![Message::user("What happened today?")]);
/// request.provider_tools.push(ProviderTool::anthropic_web_search(Some(3)));
/// assert_eq!(request.provider_tools[0].definition["name"], "web_search");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProviderTool {
    /// The provider that hosts it: `anthropic`, `openai-responses` or `gemini`.
    pub provider: String,
    /// The tool entry exactly as the provider's API takes it.
    pub definition: Value,
}

impl ProviderTool {
    /// Any hosted tool of `provider`, as its API defines it.
    pub fn new(provider: impl Into<String>, definition: Value) -> Self {
        ProviderTool {
            provider: provider.into(),
            definition,
        }
    }

    /// Anthropic's web search (`web_search_20250305`), with at most `max_uses` searches.
    pub fn anthropic_web_search(max_uses: Option<u32>) -> Self {
        let mut definition = json!({ "type": "web_search_20250305", "name": "web_search" });
        if let Some(n) = max_uses {
            definition["max_uses"] = json!(n);
        }
        ProviderTool::new("anthropic", definition)
    }

    /// Anthropic's code execution (`code_execution_20250825`; it needs the matching beta header,
    /// set with the builder's `.header(..)`).
    pub fn anthropic_code_execution() -> Self {
        ProviderTool::new(
            "anthropic",
            json!({ "type": "code_execution_20250825", "name": "code_execution" }),
        )
    }

    /// The Responses API's web search.
    pub fn openai_web_search() -> Self {
        ProviderTool::new("openai-responses", json!({ "type": "web_search" }))
    }

    /// The Responses API's file search over these vector stores.
    pub fn openai_file_search<I, S>(vector_store_ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let ids: Vec<String> = vector_store_ids.into_iter().map(Into::into).collect();
        ProviderTool::new(
            "openai-responses",
            json!({ "type": "file_search", "vector_store_ids": ids }),
        )
    }

    /// Gemini's grounding with Google Search.
    pub fn gemini_google_search() -> Self {
        ProviderTool::new("gemini", json!({ "google_search": {} }))
    }
}

/// The definitions of `tools` for `provider`, or the error naming a tool of another one.
pub(crate) fn hosted_for<'a>(
    tools: &'a [ProviderTool],
    provider: &str,
    model: &str,
) -> Result<Vec<&'a Value>, super::ModelError> {
    tools
        .iter()
        .map(|t| {
            if t.provider == provider {
                Ok(&t.definition)
            } else {
                Err(super::ModelError::Unsupported {
                    model: model.to_owned(),
                    setting: format!(
                        "a tool hosted by `{}` (this model's provider is `{provider}`)",
                        t.provider
                    ),
                })
            }
        })
        .collect()
}
