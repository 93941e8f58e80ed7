//! Lowering a [`ChatRequest`] into a Messages API request body.
//!
//! * System messages become the top-level `system` field (joined by blank lines).
//! * Assistant tool calls become `tool_use` blocks after the message's other content; tool
//!   results become `tool_result` blocks, and consecutive results (with any user message that
//!   follows them) are grouped into one user turn, results first, as the API requires.
//! * Reasoning blocks that carry a signature are sent back as `thinking` blocks, unchanged;
//!   reasoning without a signature (from another provider) cannot be verified by Anthropic and
//!   is left out. Blocks this SDK does not interpret (`ContentBlock::Other` from `anthropic`,
//!   e.g. `redacted_thinking` or server tool blocks) are sent back as they came.
//! * Tools carry `input_schema` in the [`Dialect::Anthropic`] dialect; `tool_choice` maps to
//!   `auto` / `any` / `tool` / `none`, and `parallel_tool_calls: false` to
//!   `disable_parallel_tool_use`.
//! * `response_format: json_schema` becomes `output_config.format`; `json_object` has no
//!   Anthropic equivalent and is refused; `seed` is dropped with a warning.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::PROVIDER;
use super::documents::document;
use crate::message::{ContentBlock, ImageSource, Message};
use crate::model::provider_tool::hosted_for;
use crate::model::{ChatRequest, ModelError, ResponseFormat, ToolChoice};
use crate::schema::{self, Dialect};

/// What lowering needs besides the request.
pub(crate) struct LowerOptions<'a> {
    pub model: &'a str,
    pub default_max_tokens: u32,
    pub thinking_budget: Option<u32>,
    /// The model takes `output_config.format` (its profile's native structured output).
    pub structured_output: bool,
}

/// `POST /v1/messages` body.
#[derive(Debug, Serialize)]
pub(crate) struct WireRequest<'a> {
    pub model: &'a str,
    pub max_tokens: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub system: Option<Value>,
    pub messages: Vec<WireMessage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub stop_sequences: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_config: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
}

/// One turn.
#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct WireMessage {
    pub role: &'static str,
    pub content: Vec<Value>,
}

/// Lowers `req`; `stream` asks for a streamed answer.
pub(crate) fn lower<'a>(
    req: &'a ChatRequest,
    opts: &LowerOptions<'a>,
    stream: bool,
) -> Result<WireRequest<'a>, ModelError> {
    let invalid = |message: String, param: &str| ModelError::InvalidRequest {
        message,
        param: Some(param.to_owned()),
    };
    let unsupported = |setting: &str| ModelError::Unsupported {
        model: opts.model.to_owned(),
        setting: setting.to_owned(),
    };

    let mut tools = Vec::with_capacity(req.tools.len());
    for def in &req.tools {
        crate::tool::refuse_custom(def, opts.model)?;
        let mut tool =
            json!({ "name": def.name, "input_schema": def.parameters_for(Dialect::Anthropic)? });
        if !def.description.is_empty() {
            tool["description"] = Value::String(def.description.clone());
        }
        tools.push(tool);
    }
    for hosted in hosted_for(&req.provider_tools, PROVIDER, opts.model)? {
        tools.push(hosted.clone());
    }
    if req.cache.tools
        && let Some(last) = tools.last_mut()
    {
        last["cache_control"] = ephemeral();
    }

    let thinking = opts.thinking_budget.is_some();
    let mut tool_choice = match &req.tool_choice {
        None => None,
        Some(ToolChoice::Auto | ToolChoice::None) if tools.is_empty() => None,
        Some(ToolChoice::Required | ToolChoice::Tool(_)) if tools.is_empty() => {
            return Err(invalid(
                "tool_choice requires a tool call but the request has no tools".into(),
                "tool_choice",
            ));
        }
        Some(ToolChoice::Auto) => Some(json!({ "type": "auto" })),
        Some(ToolChoice::None) => Some(json!({ "type": "none" })),
        Some(ToolChoice::Required) if thinking => {
            return Err(unsupported(
                "tool_choice: required while extended thinking is on",
            ));
        }
        Some(ToolChoice::Required) => Some(json!({ "type": "any" })),
        Some(ToolChoice::Tool(_)) if thinking => {
            return Err(unsupported(
                "tool_choice naming a tool while extended thinking is on",
            ));
        }
        Some(ToolChoice::Tool(name)) => {
            if !req.tools.iter().any(|t| &t.name == name) {
                return Err(invalid(
                    format!("tool_choice names `{name}`, which is not among the request's tools"),
                    "tool_choice",
                ));
            }
            Some(json!({ "type": "tool", "name": name }))
        }
    };
    if req.parallel_tool_calls == Some(false) && !tools.is_empty() {
        let choice = tool_choice.get_or_insert_with(|| json!({ "type": "auto" }));
        if choice["type"] != "none" {
            choice["disable_parallel_tool_use"] = Value::Bool(true);
        }
    }

    if req.seed.is_some() {
        tracing::warn!(
            model = opts.model,
            "Anthropic does not support seed; not sending it"
        );
    }
    let (temperature, top_p) = match (req.temperature, req.top_p) {
        (Some(_), _) if thinking => {
            tracing::warn!(
                model = opts.model,
                "extended thinking does not accept temperature; not sending it"
            );
            (None, req.top_p)
        }
        other => other,
    };

    let max_tokens = req.max_tokens.unwrap_or(opts.default_max_tokens);
    let thinking = match opts.thinking_budget {
        Some(budget) if budget >= max_tokens => {
            return Err(invalid(
                format!(
                    "max_tokens ({max_tokens}) must be greater than the thinking budget ({budget})"
                ),
                "max_tokens",
            ));
        }
        Some(budget) => Some(json!({ "type": "enabled", "budget_tokens": budget })),
        None => None,
    };

    let output_config = match &req.response_format {
        None | Some(ResponseFormat::Text) => None,
        Some(ResponseFormat::JsonObject) => {
            return Err(unsupported(
                "response_format: json_object (use a JSON schema)",
            ));
        }
        Some(ResponseFormat::JsonSchema { .. }) if !opts.structured_output => {
            return Err(unsupported(
                "response_format: json_schema (native structured output)",
            ));
        }
        Some(ResponseFormat::JsonSchema {
            schema: canonical, ..
        }) => Some(json!({
            "format": { "type": "json_schema", "schema": schema::lower(canonical, Dialect::Anthropic)? }
        })),
    };

    let (system, mut messages) =
        lower_messages_cached(&req.messages, opts.model, &req.cache.messages);
    let system = system.map(|text| {
        if req.cache.system {
            json!([{ "type": "text", "text": text, "cache_control": ephemeral() }])
        } else {
            Value::String(text)
        }
    });
    let breakpoints = usize::from(req.cache.system && system.is_some())
        + usize::from(req.cache.tools && !tools.is_empty())
        + count_breakpoints(&mut messages);
    if breakpoints > MAX_CACHE_BREAKPOINTS {
        return Err(invalid(
            format!(
                "Anthropic allows at most {MAX_CACHE_BREAKPOINTS} cache breakpoints; the request asks for {breakpoints}"
            ),
            "cache",
        ));
    }
    Ok(WireRequest {
        model: opts.model,
        max_tokens,
        system,
        messages,
        tools,
        tool_choice,
        temperature,
        top_p,
        stop_sequences: &req.stop,
        thinking,
        output_config,
        stream,
    })
}

/// Anthropic's limit on `cache_control` breakpoints in one request.
const MAX_CACHE_BREAKPOINTS: usize = 4;

fn ephemeral() -> Value {
    json!({ "type": "ephemeral" })
}

fn count_breakpoints(messages: &mut [WireMessage]) -> usize {
    messages
        .iter()
        .flat_map(|m| &m.content)
        .filter(|b| b.get("cache_control").is_some())
        .count()
}

/// The `system` text and the turns, consecutive turns of one role merged.
#[cfg(test)]
pub(crate) fn lower_messages(
    messages: &[Message],
    model: &str,
) -> (Option<String>, Vec<WireMessage>) {
    lower_messages_cached(messages, model, &[])
}

/// [`lower_messages`], with a cache breakpoint on the last block of each message whose index
/// is in `cache_after`.
fn lower_messages_cached(
    messages: &[Message],
    model: &str,
    cache_after: &[usize],
) -> (Option<String>, Vec<WireMessage>) {
    let mut system: Vec<&str> = Vec::new();
    let mut out: Vec<WireMessage> = Vec::new();
    fn push_turn(out: &mut Vec<WireMessage>, role: &'static str, blocks: Vec<Value>) {
        if blocks.is_empty() {
            return;
        }
        match out.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => out.push(WireMessage {
                role,
                content: blocks,
            }),
        }
    }
    for (i, message) in messages.iter().enumerate() {
        let before: usize = out.iter().map(|m| m.content.len()).sum();
        let mut push = |role: &'static str, blocks: Vec<Value>| push_turn(&mut out, role, blocks);
        match message {
            Message::System { content } => system.push(content),
            Message::User(m) => push(
                "user",
                m.content
                    .iter()
                    .filter_map(|b| block(b, model, "user"))
                    .collect(),
            ),
            Message::Assistant(m) => {
                let mut blocks: Vec<Value> = m
                    .content
                    .iter()
                    .filter_map(|b| block(b, model, "assistant"))
                    .collect();
                for call in &m.tool_calls {
                    blocks.push(json!({
                        "type": "tool_use",
                        "id": call.id,
                        "name": call.name,
                        "input": tool_input(&call.arguments, &call.name, model),
                    }));
                }
                if blocks.is_empty() {
                    tracing::warn!(%model, "an empty assistant message cannot be sent to Anthropic; left out");
                }
                push("assistant", blocks);
            }
            Message::Tool(m) => {
                let content: Vec<Value> = m
                    .content
                    .iter()
                    .filter_map(|b| block(b, model, "tool"))
                    .collect();
                let mut result = json!({ "type": "tool_result", "tool_use_id": m.call_id });
                match content.as_slice() {
                    [] => {}
                    [single] if single["type"] == "text" => {
                        result["content"] = single["text"].clone()
                    }
                    _ => result["content"] = Value::Array(content),
                }
                if m.is_error {
                    result["is_error"] = Value::Bool(true);
                }
                push("user", vec![result]);
            }
        }
        let after: usize = out.iter().map(|m| m.content.len()).sum();
        if cache_after.contains(&i) {
            match out.last_mut().and_then(|m| m.content.last_mut()) {
                Some(last) if after > before => last["cache_control"] = ephemeral(),
                _ => {
                    tracing::warn!(%model, message = i, "no content block to put a cache breakpoint on")
                }
            }
        }
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    (system, out)
}

fn block(block: &ContentBlock, model: &str, role: &str) -> Option<Value> {
    match block {
        ContentBlock::Text { text, .. } if text.is_empty() => None,
        ContentBlock::Text { text, citations } => {
            let mut out = json!({ "type": "text", "text": text });
            // Anthropic's own citations go back with their text; another provider's cannot.
            let ours: Vec<&Value> = citations
                .iter()
                .filter(|c| c.provider == super::PROVIDER)
                .map(|c| &c.value)
                .collect();
            if !ours.is_empty() {
                out["citations"] = json!(ours);
            }
            Some(out)
        }
        ContentBlock::Image { source } => Some(json!({
            "type": "image",
            "source": match source {
                ImageSource::Url { url } => json!({ "type": "url", "url": url }),
                ImageSource::Base64 { media_type, data } => {
                    json!({ "type": "base64", "media_type": media_type, "data": data })
                }
            },
        })),
        ContentBlock::File { .. } | ContentBlock::Audio { .. } if role == "assistant" => {
            tracing::warn!(%model, "Anthropic takes no documents or audio in assistant turns; dropped");
            None
        }
        ContentBlock::File { source, filename } => Some(document(source, filename.as_deref())),
        ContentBlock::Audio { .. } => {
            // Refused before lowering (`accepts`).
            tracing::warn!(%model, "Anthropic takes no audio; dropped");
            None
        }
        ContentBlock::Reasoning {
            text,
            signature: Some(signature),
        } if role == "assistant" => {
            Some(json!({ "type": "thinking", "thinking": text, "signature": signature }))
        }
        ContentBlock::Reasoning { .. } => {
            tracing::debug!(%model, %role, "reasoning without an Anthropic signature is not sent back");
            None
        }
        ContentBlock::Other { provider, value } if provider == PROVIDER => Some(value.clone()),
        ContentBlock::Other { provider, .. } => {
            tracing::warn!(%model, %provider, "a block from another provider cannot be sent to Anthropic; dropped");
            None
        }
    }
}

/// A tool call's arguments as the `input` object Anthropic requires.
fn tool_input(arguments: &str, name: &str, model: &str) -> Value {
    if arguments.trim().is_empty() {
        return Value::Object(Map::new());
    }
    match serde_json::from_str::<Value>(arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ => {
            tracing::warn!(%model, tool = %name, "tool call arguments are not a JSON object; sent as {{}}");
            Value::Object(Map::new())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::ToolCall;

    #[test]
    fn results_are_grouped_in_one_user_turn_before_user_text() {
        let messages = vec![
            Message::system("Be brief."),
            Message::user("Weather in Paris and Rome?"),
            Message::assistant_tool_calls(vec![
                ToolCall::new("toolu_1", "weather", r#"{"city":"Paris"}"#),
                ToolCall::new("toolu_2", "weather", r#"{"city":"Rome"}"#),
            ]),
            Message::tool_result("toolu_1", "weather", "18C"),
            Message::tool_result("toolu_2", "weather", "24C"),
            Message::user("And tomorrow?"),
        ];
        let (system, turns) = lower_messages(&messages, "m");
        assert_eq!(system.as_deref(), Some("Be brief."));
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[1].content[1]["input"], json!({"city": "Rome"}));
        let kinds: Vec<_> = turns[2]
            .content
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["tool_result", "tool_result", "text"]);
        assert_eq!(turns[2].content[0]["content"], "18C");
    }

    #[test]
    fn unsigned_reasoning_and_foreign_blocks_are_not_sent() {
        let messages = vec![Message::Assistant(crate::message::AssistantMessage {
            content: vec![
                ContentBlock::Reasoning {
                    text: "hmm".into(),
                    signature: None,
                },
                ContentBlock::Other {
                    provider: "gemini".into(),
                    value: json!({}),
                },
                ContentBlock::text("Hi"),
            ],
            ..Default::default()
        })];
        let (_, turns) = lower_messages(&messages, "m");
        assert_eq!(
            turns[0].content,
            vec![json!({"type": "text", "text": "Hi"})]
        );
    }
}
