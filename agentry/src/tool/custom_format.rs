//! The input format of a free-form tool (OpenAI Chat Completions `custom` tools).

use serde::{Deserialize, Serialize};

/// How the model writes the input of a free-form tool: plain text instead of JSON arguments.
///
/// Set on a [`ToolDefinition`](super::ToolDefinition) made with
/// [`ToolDefinition::custom`](super::ToolDefinition::custom). OpenAI Chat Completions sends
/// such a tool as a `custom` tool; the model's call comes back as an ordinary
/// [`ToolCall`](crate::ToolCall) whose `arguments` are the raw input text.
///
/// ```
/// use agentry::tool::{CustomToolFormat, GrammarSyntax};
///
/// let sql = CustomToolFormat::Grammar {
///     syntax: GrammarSyntax::Regex,
///     definition: r"SELECT .+ FROM \w+;".to_string(),
/// };
/// assert_ne!(sql, CustomToolFormat::Text);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CustomToolFormat {
    /// Unconstrained text.
    Text,
    /// Text the provider constrains to a grammar.
    Grammar {
        /// The grammar's language.
        syntax: GrammarSyntax,
        /// The grammar itself.
        definition: String,
    },
}

/// The language of a [`CustomToolFormat::Grammar`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum GrammarSyntax {
    /// A Lark context-free grammar.
    Lark,
    /// A regular expression.
    Regex,
}

/// Refuses a free-form tool for a provider without them.
#[cfg(any(feature = "anthropic", feature = "gemini", feature = "openai"))]
pub(crate) fn refuse_custom(
    def: &super::ToolDefinition,
    model: &str,
) -> Result<(), crate::model::ModelError> {
    match def.custom {
        None => Ok(()),
        Some(_) => Err(crate::model::ModelError::Unsupported {
            model: model.to_owned(),
            setting: format!(
                "the free-form (custom) tool `{}` (only OpenAI Chat Completions takes them)",
                def.name
            ),
        }),
    }
}
