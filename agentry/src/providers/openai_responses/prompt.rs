//! A stored (reusable) prompt for the Responses API: `prompt: {id, version, variables}`.

use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::json;

/// A prompt stored on the OpenAI platform, sent as the request's `prompt`: its id, optionally
/// a version (the current one otherwise), and values for its `{{variables}}`. The prompt's
/// messages come before the request's own input.
///
/// Set it with the builder's [`prompt`](super::OpenAiResponsesModelBuilder::prompt); every
/// request of the model then uses it.
///
/// ```
/// use agentry::providers::openai_responses::{PromptVariable, StoredPrompt};
///
/// let prompt = StoredPrompt::new("pmpt_123")
///     .version("2")
///     .variable("customer_name", "Acme")
///     .variable("invoice", PromptVariable::FileId("file-abc".into()));
/// assert_eq!(
///     serde_json::to_value(&prompt).unwrap(),
///     serde_json::json!({
///         "id": "pmpt_123",
///         "version": "2",
///         "variables": {
///             "customer_name": "Acme",
///             "invoice": { "type": "input_file", "file_id": "file-abc" }
///         }
///     })
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StoredPrompt {
    /// The prompt's id (`pmpt_...`).
    pub id: String,
    /// The version to use; the prompt's current version when `None`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Values for the prompt's variables, by name.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, PromptVariable>,
}

impl StoredPrompt {
    /// The stored prompt `id`, at its current version, without variables.
    pub fn new(id: impl Into<String>) -> Self {
        StoredPrompt {
            id: id.into(),
            version: None,
            variables: BTreeMap::new(),
        }
    }

    /// Uses this version of the prompt.
    #[must_use]
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.version = Some(version.into());
        self
    }

    /// Sets the value of the variable `name`.
    #[must_use]
    pub fn variable(mut self, name: impl Into<String>, value: impl Into<PromptVariable>) -> Self {
        self.variables.insert(name.into(), value.into());
        self
    }
}

/// The value of a [`StoredPrompt`] variable: text, or an image or file input.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PromptVariable {
    /// Text, sent as a plain string.
    Text(String),
    /// An image at this URL (or `data:` URL), sent as an `input_image`.
    ImageUrl(String),
    /// A file uploaded to OpenAI, by id, sent as an `input_file`.
    FileId(String),
}

impl Serialize for PromptVariable {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            PromptVariable::Text(text) => serializer.serialize_str(text),
            PromptVariable::ImageUrl(url) => {
                json!({ "type": "input_image", "image_url": url }).serialize(serializer)
            }
            PromptVariable::FileId(id) => {
                json!({ "type": "input_file", "file_id": id }).serialize(serializer)
            }
        }
    }
}

impl From<String> for PromptVariable {
    fn from(text: String) -> Self {
        PromptVariable::Text(text)
    }
}

impl From<&str> for PromptVariable {
    fn from(text: &str) -> Self {
        PromptVariable::Text(text.to_string())
    }
}
