//! What the parser makes of one ReAct reply: the thought and the step (an action with its
//! input, or a final answer), or why it could not be read (the correction sent back to the
//! model).

use serde_json::{Map, Value};

/// A parsed reply.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactReply {
    /// The model's reasoning before the action or final answer (may be empty).
    pub thought: String,
    /// What the model decided.
    pub step: ReactStep,
    /// Whether non-blank text after the first complete action was discarded (a second action, a
    /// final answer written too early, commentary). Always `false` for a final answer.
    pub discarded_tail: bool,
}

/// What the model decided to do.
#[derive(Clone, Debug, PartialEq)]
pub enum ReactStep {
    /// Call a tool.
    Action(ReactAction),
    /// Answer (the text after `Final Answer:`, trimmed).
    FinalAnswer(String),
}

/// A tool call written as text.
#[derive(Clone, Debug, PartialEq)]
pub struct ReactAction {
    /// The tool's name, cleaned of quoting.
    pub tool: String,
    /// The raw input; see [`ActionInput::into_arguments`].
    pub input: ActionInput,
}

/// The raw `Action Input:`.
#[derive(Clone, Debug, PartialEq)]
pub enum ActionInput {
    /// A JSON object, as the model wrote it.
    Json(JsonObject),
    /// Anything else, trimmed (a quoted JSON string is unquoted).
    Text(String),
}

/// A syntactically valid JSON object, kept as the model wrote it (so a tool call's arguments
/// need no second serialization); compare it with a [`Map`] or get one with
/// [`to_map`](Self::to_map).
///
/// ```
/// use agentry::protocol::react::JsonObject;
/// use serde_json::json;
///
/// let object = JsonObject::from(json!({"q": "Rust"}).as_object().unwrap().clone());
/// assert_eq!(object.as_str(), r#"{"q":"Rust"}"#);
/// assert_eq!(object, *json!({"q": "Rust"}).as_object().unwrap());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonObject(pub(super) String);

impl JsonObject {
    /// Checks that `text` is one JSON object.
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str::<Map<String, Value>>(text)?;
        Ok(JsonObject(text.to_string()))
    }

    /// The object's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The object's text, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The object as a map.
    pub fn to_map(&self) -> Map<String, Value> {
        // Checked when made, so it parses.
        serde_json::from_str(&self.0).unwrap_or_default()
    }
}

impl From<Map<String, Value>> for JsonObject {
    fn from(map: Map<String, Value>) -> Self {
        JsonObject(Value::Object(map).to_string())
    }
}

impl PartialEq<Map<String, Value>> for JsonObject {
    fn eq(&self, other: &Map<String, Value>) -> bool {
        self.to_map() == *other
    }
}

impl ActionInput {
    /// The tool arguments: an object as is; a bare string becomes the one string argument of a
    /// tool whose `parameters` schema has exactly one required property (or, with nothing
    /// required, exactly one property), of type string. Otherwise the error is a correction for
    /// the model.
    pub fn into_arguments(
        self,
        tool: &str,
        parameters: &Value,
    ) -> Result<Map<String, Value>, String> {
        let text = match self {
            ActionInput::Json(object) => return Ok(object.to_map()),
            ActionInput::Text(text) => text,
        };
        let Some(props) = parameters.get("properties").and_then(Value::as_object) else {
            return Ok(Map::new());
        };
        if props.is_empty() {
            return Ok(Map::new());
        }
        let required: Vec<&str> = parameters
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let candidates: Vec<(&String, &Value)> = if required.is_empty() {
            props.iter().collect()
        } else {
            props
                .iter()
                .filter(|(name, _)| required.contains(&name.as_str()))
                .collect()
        };
        let [(name, schema)] = candidates.as_slice() else {
            return Err(format!(
                "The Action Input for `{tool}` must be a JSON object with its arguments, not plain text."
            ));
        };
        let is_string = match schema.get("type") {
            Some(Value::String(t)) => t == "string",
            Some(Value::Array(types)) => types.iter().any(|t| t == "string"),
            _ => false,
        };
        if is_string {
            let mut map = Map::new();
            map.insert((*name).clone(), Value::String(text));
            return Ok(map);
        }
        Err(format!(
            "The Action Input for `{tool}` must be a JSON object like {{\"{name}\": ...}}, not plain text."
        ))
    }
}

/// Why a reply could not be parsed; its `Display` is the correction sent back to the model.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReactParseError {
    /// The reply has both an action and a final answer.
    #[error(
        "Your reply contains both an `Action:` and a `Final Answer:`. Write either `Action:` and `Action Input:` to use a tool (then stop and wait for the Observation), or `Final Answer:` when you are done, never both."
    )]
    BothActionAndFinalAnswer,
    /// Neither an action nor a final answer.
    #[error(
        "Invalid format: your reply has neither `Action:` nor `Final Answer:`. To use a tool write `Action: <tool name>` and `Action Input: <JSON object>` on their own lines; to answer write `Final Answer: <answer>`."
    )]
    NoActionOrFinalAnswer,
    /// `Action Input:` with no `Action:` before it.
    #[error(
        "Invalid format: `Action Input:` must follow an `Action: <tool name>` line naming the tool."
    )]
    ActionInputWithoutAction,
    /// `Action:` with an empty tool name.
    #[error("Invalid format: `Action:` must be followed by the name of one of the tools.")]
    MissingToolName,
    /// `Action:` without `Action Input:`.
    #[error(
        "Invalid format: `Action: {tool}` must be followed by an `Action Input:` line with the tool's arguments as a JSON object."
    )]
    MissingActionInput {
        /// The tool named.
        tool: String,
    },
    /// The JSON object of the input is malformed.
    #[error(
        "The Action Input for `{tool}` is not valid JSON: {message} at line {line} column {column} of the input. Write the arguments as one JSON object."
    )]
    InvalidJson {
        /// The tool named.
        tool: String,
        /// serde_json's description.
        message: String,
        /// 1-based line within the input.
        line: usize,
        /// 1-based column within the input.
        column: usize,
    },
}
