//! The ReAct prompt: the tools as text, the format instructions, the scratchpad of earlier
//! steps, from a template the user can replace.

use std::borrow::Borrow;

use serde_json::Value;

use crate::tool::ToolDefinition;

/// The stop sequence sent with every ReAct request, so the model stops before inventing an
/// observation (the parser also cuts at one when a model ignores it).
pub const STOP_SEQUENCE: &str = "\nObservation:";

/// The default template. Placeholders: `{tools}`, `{tool_names}`, `{format_instructions}`,
/// `{scratchpad}`; `{{` and `}}` are literal braces.
pub const DEFAULT_TEMPLATE: &str = "\
Answer the user's request as well as you can. You have access to the following tools:

{tools}

{format_instructions}

Begin!
{scratchpad}";

const REQUIRED: [&str; 3] = ["tools", "format_instructions", "scratchpad"];
const KNOWN: [&str; 4] = ["tools", "tool_names", "format_instructions", "scratchpad"];

/// A template that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A required placeholder is absent.
    #[error(
        "the ReAct template has no `{{{0}}}` placeholder; it needs {{tools}}, {{format_instructions}} and {{scratchpad}}"
    )]
    MissingPlaceholder(&'static str),
    /// A placeholder that is not one of the known ones.
    #[error(
        "the ReAct template has an unknown placeholder `{{{0}}}`; known: {{tools}}, {{tool_names}}, {{format_instructions}}, {{scratchpad}} (write `{{{{` and `}}}}` for literal braces)"
    )]
    UnknownPlaceholder(String),
    /// A `{` without its `}`.
    #[error(
        "the ReAct template has an unclosed `{{` at byte {0} (write `{{{{` for a literal brace)"
    )]
    Unclosed(usize),
}

/// One earlier step for the scratchpad.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReactStepRecord {
    /// The thought before the action.
    pub thought: String,
    /// The tool called.
    pub tool: String,
    /// The input as the model wrote it (JSON or text).
    pub input: String,
    /// What the tool returned.
    pub observation: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Piece {
    Text(String),
    Slot(&'static str),
}

/// A validated ReAct prompt template.
///
/// ```
/// use agentry::protocol::react::{ReactPrompt, TemplateError};
/// use agentry::tool::ToolDefinition;
///
/// assert!(matches!(
///     ReactPrompt::with_template("Tools: {tools}\n{scratchpad}"),
///     Err(TemplateError::MissingPlaceholder("format_instructions"))
/// ));
/// let prompt = ReactPrompt::default().render::<ToolDefinition>(&[], &[]);
/// assert!(prompt.contains("Final Answer:"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReactPrompt {
    pieces: Vec<Piece>,
}

impl Default for ReactPrompt {
    fn default() -> Self {
        ReactPrompt::with_template(DEFAULT_TEMPLATE).expect("the default template is valid")
    }
}

impl ReactPrompt {
    /// Validates a user template.
    pub fn with_template(template: &str) -> Result<Self, TemplateError> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut rest = template;
        let mut offset = 0;
        while let Some(i) = rest.find(['{', '}']) {
            text.push_str(&rest[..i]);
            let c = rest.as_bytes()[i];
            if rest[i + 1..].starts_with(c as char) {
                text.push(c as char);
                rest = &rest[i + 2..];
                offset += i + 2;
                continue;
            }
            if c == b'}' {
                text.push('}');
                rest = &rest[i + 1..];
                offset += i + 1;
                continue;
            }
            let close = rest[i..]
                .find('}')
                .ok_or(TemplateError::Unclosed(offset + i))?;
            let name = &rest[i + 1..i + close];
            let slot = KNOWN
                .iter()
                .find(|k| **k == name)
                .ok_or_else(|| TemplateError::UnknownPlaceholder(name.to_string()))?;
            pieces.push(Piece::Text(std::mem::take(&mut text)));
            pieces.push(Piece::Slot(slot));
            rest = &rest[i + close + 1..];
            offset += i + close + 1;
        }
        text.push_str(rest);
        pieces.push(Piece::Text(text));
        for required in REQUIRED {
            if !pieces.contains(&Piece::Slot(required)) {
                return Err(TemplateError::MissingPlaceholder(required));
            }
        }
        Ok(ReactPrompt { pieces })
    }

    /// The prompt for these tools after these steps.
    ///
    /// `tools` are [`ToolDefinition`]s or the [`DefinitionRef`](crate::tool::DefinitionRef)s a
    /// request holds. In an agent run the scratchpad is the conversation itself (each step is
    /// the model's reply followed by its `Observation:`), so the loop renders the prompt with
    /// no steps.
    pub fn render<D: Borrow<ToolDefinition>>(
        &self,
        tools: &[D],
        steps: &[ReactStepRecord],
    ) -> String {
        let names = tools
            .iter()
            .map(|t| t.borrow().name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Slot("tools") => out.push_str(&render_tools(tools)),
                Piece::Slot("tool_names") => out.push_str(&names),
                Piece::Slot("format_instructions") => out.push_str(&format_instructions(&names)),
                Piece::Slot(_) => out.push_str(&render_scratchpad(steps)),
            }
        }
        out
    }

    /// The stop sequences to send with each request.
    pub fn stop_sequences(&self) -> Vec<String> {
        vec![STOP_SEQUENCE.to_string()]
    }
}

/// The format instructions for tools named `names` (comma-separated).
pub fn format_instructions(names: &str) -> String {
    format!(
        "Use this format:

Thought: think about what to do next
Action: the tool to use, one of [{names}]
Action Input: the tool's arguments as one JSON object
Observation: the result of the tool (written for you; stop after Action Input)
... (Thought / Action / Action Input / Observation can repeat)
Thought: I now know the final answer
Final Answer: the answer to the user's request

Write either Action and Action Input, or Final Answer, never both in one reply."
    )
}

/// The tools, one per line with a compact argument schema.
pub fn render_tools<D: Borrow<ToolDefinition>>(tools: &[D]) -> String {
    tools
        .iter()
        .map(|t| {
            let t = t.borrow();
            format!(
                "{}: {}\n  Action Input: {}",
                t.name,
                t.description.trim(),
                compact_schema(&t.parameters)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The earlier steps as the model would have written them, observations included.
pub fn render_scratchpad(steps: &[ReactStepRecord]) -> String {
    let mut out = String::new();
    for s in steps {
        if !s.thought.is_empty() {
            out.push_str(&format!("\nThought: {}", s.thought));
        }
        out.push_str(&format!(
            "\nAction: {}\nAction Input: {}\nObservation: {}",
            s.tool, s.input, s.observation
        ));
    }
    out
}

/// `{"query": string, "limit"?: integer}`: required keys first (in `required` order), then
/// the optional ones marked `?` (by name); a property's description follows its type.
pub fn compact_schema(schema: &Value) -> String {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return "{}".to_string();
    };
    let mut ordered: Vec<(&String, &Value)> = required
        .iter()
        .filter_map(|r| props.get_key_value(*r))
        .collect();
    ordered.extend(
        props
            .iter()
            .filter(|(n, _)| !required.contains(&n.as_str())),
    );
    let fields = ordered
        .into_iter()
        .map(|(name, p)| {
            let opt = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let mut s = format!("\"{name}\"{opt}: {}", type_of(p));
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                s.push_str(&format!(" ({})", d.trim()));
            }
            s
        })
        .collect::<Vec<_>>();
    format!("{{{}}}", fields.join(", "))
}

fn type_of(p: &Value) -> String {
    if let Some(values) = p.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    match p.get("type") {
        Some(Value::String(t)) if t == "array" => match p.get("items") {
            Some(items) => format!("array of {}", type_of(items)),
            None => "array".into(),
        },
        Some(Value::String(t)) if t == "object" && p.get("properties").is_some() => {
            compact_schema(p)
        }
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .collect::<Vec<_>>()
            .join(" | "),
        _ => "any".into(),
    }
}
