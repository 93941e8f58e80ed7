//! Chat Completions `custom` (free-form) tools: the declaration, the call in an answer (whole
//! or streamed) and the call sent back in the history.
//!
//! * declared as `{"type": "custom", "custom": {"name", "description", "format"}}`, the
//!   format `{"type": "text"}` or `{"type": "grammar", "grammar": {"definition", "syntax"}}`;
//! * called as `{"id", "type": "custom", "custom": {"name", "input"}}`; the input text becomes
//!   the [`ToolCall`](crate::ToolCall)'s `arguments` (a streamed call's `custom.input` pieces
//!   are appended like a function call's `arguments`);
//! * sent back the same way when the request declares a custom tool of that name.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::tool::{CustomToolFormat, DefinitionRef, GrammarSyntax};

/// The `custom` object of a whole call.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireCustomCall {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub input: Option<String>,
}

/// The `custom` object of a streamed call's delta (pieces of the same fields).
pub(crate) type WireCustomDelta = WireCustomCall;

/// A custom call as sent back in an assistant message.
#[derive(Debug, Serialize)]
pub(crate) struct WireCustomToolCall<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub custom: WireCustomInput<'a>,
}

#[derive(Debug, Serialize)]
pub(crate) struct WireCustomInput<'a> {
    pub name: &'a str,
    pub input: &'a str,
}

/// Whether `name` is a custom tool among `tools`.
pub(crate) fn is_custom(tools: &[DefinitionRef], name: &str) -> bool {
    tools.iter().any(|d| d.custom.is_some() && d.name == name)
}

/// The tool entry of a custom definition.
pub(crate) fn declaration(name: &str, description: &str, format: &CustomToolFormat) -> Value {
    let format = match format {
        CustomToolFormat::Grammar { syntax, definition } => {
            let syntax = match syntax {
                GrammarSyntax::Lark => "lark",
                GrammarSyntax::Regex => "regex",
            };
            json!({ "type": "grammar", "grammar": { "definition": definition, "syntax": syntax } })
        }
        CustomToolFormat::Text => json!({ "type": "text" }),
    };
    let mut custom = json!({ "name": name, "format": format });
    if !description.is_empty() {
        custom["description"] = json!(description);
    }
    json!({ "type": "custom", "custom": custom })
}
