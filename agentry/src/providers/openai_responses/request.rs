//! Lowering a [`ChatRequest`] into a Responses API request body (`input` items).
//!
//! * System messages are `system` input items in place; user messages `user` items with
//!   `input_text` / `input_image` / `input_file` parts (`file_data`, `file_url` or `file_id`);
//!   assistant text an `assistant` item. Audio is refused (the API takes none).
//! * Tool calls are `function_call` items and results `function_call_output` items, by
//!   `call_id`; a result with images or files has a list of input parts as its `output`.
//! * Reasoning items come back as [`ContentBlock::Reasoning`] whose signature is the item as
//!   the API sent it (id, summary and, with `store: false`, the encrypted content); they are
//!   sent back unchanged and in place, which the API requires for a follow-up to a reasoning
//!   model's tool call. Reasoning from other providers is not sent.
//! * Tools are flat `function` tools, strict ones in [`Dialect::OpenAiStrict`]; structured
//!   output is `text.format` of type `json_schema`.

use std::borrow::Cow;

use serde_json::{Map, Value, json};

use super::PROVIDER;
use crate::media::{FileSource, default_filename};
use crate::message::{ContentBlock, ImageSource, Message};
use crate::model::provider_tool::hosted_for;
use crate::model::{ChatRequest, ModelError, ModelProfile, ResponseFormat, ToolChoice};
use crate::providers::inputs::Place;
use crate::schema::{self, Dialect};

/// What lowering needs besides the request.
pub(crate) struct LowerOptions<'a> {
    pub model: &'a str,
    pub profile: &'a ModelProfile,
    pub store: bool,
    pub reasoning_effort: Option<&'a str>,
    pub reasoning_summary: &'a str,
    /// A stored prompt to use (`prompt`).
    pub prompt: Option<&'a super::StoredPrompt>,
}

pub(crate) fn lower(
    req: &ChatRequest,
    opts: &LowerOptions<'_>,
    stream: bool,
) -> Result<Value, ModelError> {
    let invalid = |message: String| ModelError::InvalidRequest {
        message,
        param: Some("tool_choice".into()),
    };
    let mut body = Map::new();
    body.insert("model".into(), json!(opts.model));
    crate::providers::inputs::check(&req.messages, PROVIDER, opts.model, opts.profile, accepts)?;
    body.insert(
        "input".into(),
        Value::Array(lower_messages(&req.messages, opts.model)),
    );

    let mut tools = Vec::with_capacity(req.tools.len());
    for def in &req.tools {
        crate::tool::refuse_custom(def, opts.model)?;
        let strict = def.strict && opts.profile.strict_tools;
        let dialect = if strict {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        };
        let mut tool = json!({ "type": "function", "name": def.name, "parameters": def.parameters_for(dialect)?, "strict": strict });
        if !def.description.is_empty() {
            tool["description"] = json!(def.description);
        }
        tools.push(tool);
    }
    for hosted in hosted_for(&req.provider_tools, PROVIDER, opts.model)? {
        tools.push(hosted.clone());
    }
    let choice = match &req.tool_choice {
        None => None,
        Some(ToolChoice::Auto | ToolChoice::None) if tools.is_empty() => None,
        Some(ToolChoice::Required | ToolChoice::Tool(_)) if tools.is_empty() => {
            return Err(invalid(
                "tool_choice requires a tool call but the request has no tools".into(),
            ));
        }
        Some(ToolChoice::Auto) => Some(json!("auto")),
        Some(ToolChoice::None) => Some(json!("none")),
        Some(ToolChoice::Required) => Some(json!("required")),
        Some(ToolChoice::Tool(name)) => {
            if !req.tools.iter().any(|t| &t.name == name) {
                return Err(invalid(format!(
                    "tool_choice names `{name}`, which is not among the request's tools"
                )));
            }
            Some(json!({ "type": "function", "name": name }))
        }
    };
    if let Some(parallel) = req.parallel_tool_calls.filter(|_| !tools.is_empty()) {
        body.insert("parallel_tool_calls".into(), json!(parallel));
    }
    if !tools.is_empty() {
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(choice) = choice {
        body.insert("tool_choice".into(), choice);
    }
    let reasoning = opts.reasoning_effort.is_some() || opts.profile.reasoning;
    match (req.temperature, req.top_p) {
        (None, None) => {}
        _ if reasoning => {
            tracing::warn!(
                model = opts.model,
                "reasoning models do not accept temperature or top_p; not sending them"
            );
        }
        (t, p) => {
            if let Some(t) = t {
                body.insert("temperature".into(), json!(t));
            }
            if let Some(p) = p {
                body.insert("top_p".into(), json!(p));
            }
        }
    }
    if let Some(key) = &req.prompt_cache_key {
        body.insert("prompt_cache_key".into(), json!(key));
    }
    if let Some(n) = req.max_tokens {
        body.insert("max_output_tokens".into(), json!(n));
    }
    if !req.stop.is_empty() {
        tracing::warn!(
            model = opts.model,
            "the Responses API has no stop sequences; not sending them"
        );
    }
    if req.seed.is_some() {
        tracing::warn!(
            model = opts.model,
            "the Responses API has no seed; not sending it"
        );
    }
    let format = match &req.response_format {
        None | Some(ResponseFormat::Text) => None,
        Some(ResponseFormat::JsonObject) => Some(json!({ "type": "json_object" })),
        Some(ResponseFormat::JsonSchema {
            name,
            description,
            schema: canonical,
            strict,
        }) => {
            let dialect = if *strict {
                Dialect::OpenAiStrict
            } else {
                Dialect::OpenAi
            };
            let mut f = json!({ "type": "json_schema", "name": schema_name(name), "schema": schema::lower(canonical, dialect)?, "strict": strict });
            if let Some(d) = description {
                f["description"] = json!(d);
            }
            Some(f)
        }
    };
    if let Some(format) = format {
        body.insert("text".into(), json!({ "format": format }));
    }
    if let Some(effort) = opts.reasoning_effort {
        body.insert(
            "reasoning".into(),
            json!({ "effort": effort, "summary": opts.reasoning_summary }),
        );
    }
    // Without stored responses, a reasoning model's items come back encrypted so that the
    // next turn can carry them (a function call's reasoning must precede it).
    if reasoning && !opts.store {
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
    }
    if let Some(prompt) = opts.prompt {
        body.insert("prompt".into(), json!(prompt));
    }
    body.insert("store".into(), json!(opts.store));
    if stream {
        body.insert("stream".into(), json!(true));
    }
    Ok(Value::Object(body))
}

/// OpenAI requires `^[a-zA-Z0-9_-]{1,64}$`.
fn schema_name(name: &str) -> Cow<'_, str> {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !name.is_empty() && name.len() <= 64 && name.chars().all(ok) {
        return Cow::Borrowed(name);
    }
    let out: String = name
        .chars()
        .map(|c| if ok(c) { c } else { '_' })
        .take(64)
        .collect();
    Cow::Owned(if out.is_empty() { "output".into() } else { out })
}

/// The reasoning item a [`ContentBlock::Reasoning`] carries, if it came from this API.
pub(crate) fn reasoning_item(signature: Option<&str>) -> Option<Value> {
    let item: Value = serde_json::from_str(signature?).ok()?;
    (item.get("type").and_then(Value::as_str) == Some("reasoning")).then_some(item)
}

fn lower_messages(messages: &[Message], model: &str) -> Vec<Value> {
    let mut items = Vec::new();
    for message in messages {
        match message {
            Message::System { content } => {
                items.push(json!({ "role": "system", "content": content }))
            }
            Message::User(m) => {
                let parts: Vec<Value> = m
                    .content
                    .iter()
                    .filter_map(|b| user_part(b, model))
                    .collect();
                items.push(json!({ "role": "user", "content": parts }));
            }
            Message::Assistant(m) => {
                let mut text = String::new();
                let flush = |text: &mut String, items: &mut Vec<Value>| {
                    if !text.is_empty() {
                        items.push(json!({ "role": "assistant", "content": std::mem::take(text) }));
                    }
                };
                for block in &m.content {
                    match block {
                        ContentBlock::Text { text: t, .. } => text.push_str(t),
                        ContentBlock::Reasoning { signature, .. } => {
                            match reasoning_item(signature.as_deref()) {
                                Some(item) => {
                                    flush(&mut text, &mut items);
                                    items.push(item);
                                }
                                None => {
                                    tracing::debug!(%model, "reasoning from another provider is not sent to the Responses API")
                                }
                            }
                        }
                        ContentBlock::Other { provider, value } if provider == PROVIDER => {
                            flush(&mut text, &mut items);
                            items.push(value.clone());
                        }
                        _ => {
                            tracing::warn!(%model, "the Responses API has no place for this assistant block; dropped")
                        }
                    }
                }
                if let Some(refusal) = &m.refusal {
                    text.push_str(refusal);
                }
                flush(&mut text, &mut items);
                for call in &m.tool_calls {
                    items.push(json!({ "type": "function_call", "call_id": call.id, "name": call.name, "arguments": call.arguments }));
                }
            }
            Message::Tool(m) => {
                let media = m.content.iter().any(|b| crate::PartKind::of(b).is_some());
                let output = if media {
                    // Images and files go back as a list of input parts.
                    Value::Array(
                        m.content
                            .iter()
                            .filter_map(|b| user_part(b, model))
                            .collect(),
                    )
                } else {
                    Value::String(m.content.iter().filter_map(ContentBlock::as_text).collect())
                };
                items.push(json!({ "type": "function_call_output", "call_id": m.call_id, "output": output }));
            }
        }
    }
    items
}

fn user_part(block: &ContentBlock, model: &str) -> Option<Value> {
    match block {
        ContentBlock::Text { text, .. } => Some(json!({ "type": "input_text", "text": text })),
        ContentBlock::Image { source } => Some(json!({
            "type": "input_image",
            "image_url": match source {
                ImageSource::Url { url } => url.clone(),
                ImageSource::Base64 { media_type, data } => format!("data:{media_type};base64,{data}"),
            },
        })),
        ContentBlock::File { source, filename } => Some(match source {
            FileSource::Text { text } => json!({ "type": "input_text", "text": text }),
            FileSource::Base64 { media_type, data } => json!({
                "type": "input_file",
                "filename": filename.as_deref().unwrap_or(default_filename(media_type)),
                "file_data": format!("data:{media_type};base64,{data}"),
            }),
            FileSource::Url { url, .. } => {
                let mut part = json!({ "type": "input_file", "file_url": url });
                if let Some(name) = filename {
                    part["filename"] = json!(name);
                }
                part
            }
            FileSource::FileId { id, .. } => json!({ "type": "input_file", "file_id": id }),
        }),
        ContentBlock::Audio { .. } => {
            // Refused before lowering (`accepts`).
            tracing::warn!(%model, "the Responses API takes no audio input; dropped");
            None
        }
        ContentBlock::Reasoning { .. } => None,
        ContentBlock::Other { provider, value } if provider == PROVIDER => Some(value.clone()),
        ContentBlock::Other { provider, .. } => {
            tracing::warn!(%model, %provider, "a block from another provider cannot be sent to the Responses API; dropped");
            None
        }
    }
}

/// What the Responses API takes: images and files (inline, by URL or by file id) in user
/// messages and in `function_call_output`; no audio input.
pub(crate) fn accepts(block: &ContentBlock, _place: Place) -> Result<(), String> {
    match block {
        ContentBlock::Audio { .. } => Err(
            "the Responses API takes no audio input (Chat Completions `input_audio` or Gemini do)"
                .into(),
        ),
        _ => Ok(()),
    }
}
