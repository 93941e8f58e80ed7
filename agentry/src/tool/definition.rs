//! The description of a tool that is sent to a model.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::CustomToolFormat;
use crate::schema::{self, Dialect, SchemaError};

/// A tool as a model sees it.
///
/// `parameters` holds the canonical JSON schema; [`ToolDefinition::parameters_for`] lowers it
/// into a provider's dialect once and caches the result.
#[derive(Debug, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// The name the model calls the tool by.
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// The canonical JSON schema of the arguments (an object schema).
    pub parameters: Value,
    /// Whether to ask the provider to enforce the schema exactly (OpenAI `strict`).
    #[serde(default)]
    pub strict: bool,
    /// Whether this is a synthetic final-answer tool (the tool output strategy) rather than
    /// one of the agent's tools. Providers ignore it; test doubles use it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub final_answer: bool,
    /// Set for a free-form tool (see [`ToolDefinition::custom`]): the model writes its input
    /// as text in this format, not as JSON arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom: Option<CustomToolFormat>,
    #[serde(skip)]
    lowered: [OnceLock<Result<Value, SchemaError>>; 4],
    #[serde(skip)]
    lowered_json: [OnceLock<Result<Box<RawValue>, SchemaError>>; 4],
}

impl ToolDefinition {
    /// A definition from its parts.
    pub fn new(
        name: impl Into<String>,
        description: impl Into<String>,
        parameters: Value,
        strict: bool,
    ) -> Self {
        ToolDefinition {
            name: name.into(),
            description: description.into(),
            parameters,
            strict,
            final_answer: false,
            custom: None,
            lowered: Default::default(),
            lowered_json: Default::default(),
        }
    }

    /// A free-form tool: the model writes its input as plain text in `format` instead of JSON
    /// arguments (OpenAI Chat Completions `custom` tools; other providers refuse it). Its
    /// calls are ordinary [`ToolCall`](crate::ToolCall)s whose `arguments` are that text; an
    /// agent's dynamic tool receives it as a JSON string. `parameters` is
    /// `{"type": "string"}`.
    ///
    /// ```
    /// use agentry::tool::{CustomToolFormat, ToolDefinition};
    ///
    /// let def = ToolDefinition::custom("run_python", "Run Python code.", CustomToolFormat::Text);
    /// assert_eq!(def.custom, Some(CustomToolFormat::Text));
    /// assert_eq!(def.parameters["type"], "string");
    /// ```
    pub fn custom(
        name: impl Into<String>,
        description: impl Into<String>,
        format: CustomToolFormat,
    ) -> Self {
        let mut def = ToolDefinition::new(
            name,
            description,
            serde_json::json!({ "type": "string" }),
            false,
        );
        def.custom = Some(format);
        def
    }

    /// Marks this definition as a synthetic final-answer tool.
    pub fn into_final_answer(mut self) -> Self {
        self.final_answer = true;
        self
    }

    /// The parameters schema lowered into `dialect`, computed once per dialect.
    ///
    /// ```
    /// use agentry::{Dialect, ToolDefinition};
    /// use serde_json::json;
    ///
    /// let def = ToolDefinition::new("ping", "Ping a host.", json!({
    ///     "type": "object", "properties": { "host": { "type": "string" } }, "required": ["host"]
    /// }), true);
    /// let strict = def.parameters_for(Dialect::OpenAiStrict).unwrap();
    /// assert_eq!(strict["additionalProperties"], false);
    /// ```
    pub fn parameters_for(&self, dialect: Dialect) -> Result<&Value, SchemaError> {
        self.lowered[dialect.index()]
            .get_or_init(|| schema::lower(&self.parameters, dialect))
            .as_ref()
            .map_err(Clone::clone)
    }

    /// [`parameters_for`](Self::parameters_for) as JSON text, written once per dialect: a
    /// request copies it into its body instead of serializing the schema again.
    pub(crate) fn parameters_json_for(&self, dialect: Dialect) -> Result<&RawValue, SchemaError> {
        self.lowered_json[dialect.index()]
            .get_or_init(|| {
                let value = self.parameters_for(dialect)?;
                serde_json::value::to_raw_value(value).map_err(|e| {
                    SchemaError::new(
                        dialect,
                        "",
                        format!("the lowered schema does not serialize: {e}"),
                    )
                })
            })
            .as_deref()
            .map_err(Clone::clone)
    }
}

impl Clone for ToolDefinition {
    fn clone(&self) -> Self {
        let mut copy = ToolDefinition::new(
            self.name.clone(),
            self.description.clone(),
            self.parameters.clone(),
            self.strict,
        );
        copy.final_answer = self.final_answer;
        copy.custom = self.custom.clone();
        copy
    }
}

impl PartialEq for ToolDefinition {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.description == other.description
            && self.parameters == other.parameters
            && self.strict == other.strict
            && self.final_answer == other.final_answer
            && self.custom == other.custom
    }
}

/// A tool definition held by a request: borrowed for the life of the process (what
/// `#[tool]` produces, so lowered schemas stay cached across requests) or shared.
#[derive(Clone, Debug)]
pub enum DefinitionRef {
    /// A definition that lives for the whole process.
    Static(&'static ToolDefinition),
    /// A definition built at run time (e.g. a tool discovered from an MCP server).
    Shared(std::sync::Arc<ToolDefinition>),
}

impl std::ops::Deref for DefinitionRef {
    type Target = ToolDefinition;
    fn deref(&self) -> &ToolDefinition {
        match self {
            DefinitionRef::Static(d) => d,
            DefinitionRef::Shared(d) => d,
        }
    }
}

impl std::borrow::Borrow<ToolDefinition> for DefinitionRef {
    fn borrow(&self) -> &ToolDefinition {
        self
    }
}

impl From<&'static ToolDefinition> for DefinitionRef {
    fn from(d: &'static ToolDefinition) -> Self {
        DefinitionRef::Static(d)
    }
}

impl From<std::sync::Arc<ToolDefinition>> for DefinitionRef {
    fn from(d: std::sync::Arc<ToolDefinition>) -> Self {
        DefinitionRef::Shared(d)
    }
}

impl From<ToolDefinition> for DefinitionRef {
    fn from(d: ToolDefinition) -> Self {
        DefinitionRef::Shared(std::sync::Arc::new(d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_json_text_of_a_lowered_schema_is_that_schema_written_once() {
        let def = ToolDefinition::new(
            "ping",
            "Ping a host.",
            json!({ "type": "object", "properties": { "host": { "type": "string" } } }),
            true,
        );
        let text = def.parameters_json_for(Dialect::OpenAiStrict).unwrap();
        let value = def.parameters_for(Dialect::OpenAiStrict).unwrap();
        assert_eq!(text.get(), serde_json::to_string(value).unwrap());
        let again = def.parameters_json_for(Dialect::OpenAiStrict).unwrap();
        assert!(std::ptr::eq(text, again), "written once, then shared");
    }
}
