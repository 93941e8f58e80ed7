//! Lowering a [`ChatRequest`] into a `generateContent` request body.
//!
//! * System messages become `systemInstruction`; the conversation becomes `contents`, each a
//!   `role` (`user` or `model`) with `parts`, consecutive turns of one role merged.
//! * Images, files and audio become `inlineData` parts (inline) or `fileData` parts (by URL or
//!   file URI, with the media type); a text document is a `text` part. A tool result's inline
//!   media go in its `functionResponse`'s own `parts`.
//! * Tool calls become `functionCall` parts and tool results `functionResponse` parts (matched
//!   by name and order; Gemini's own call ids are sent back when it gave some, the ids this SDK
//!   synthesizes are not). A result is sent as `{"output": <value>}`, or `{"error": ...}` for a
//!   failed call, the value being the result's JSON when it is JSON and its text otherwise.
//! * Thought signatures go back on the part they came with: a reasoning block's own signature
//!   on its `thought` part, a signature-only reasoning block on the text part after it, and a
//!   function call's signature (kept as a `gemini` [`ContentBlock::Other`] naming the call) on
//!   that `functionCall` part.
//! * Tools are `functionDeclarations` in the [`Dialect::Gemini`] dialect, as `parameters`; a
//!   recursive type, which that dialect refuses, goes as `parametersJsonSchema` (JSON Schema
//!   with `$defs` and `$ref`, the same keywords otherwise); `tool_choice` is
//!   `toolConfig.functionCallingConfig` (`AUTO`, `NONE`, `ANY`, or `ANY` with one allowed name).
//! * `response_format: json_schema` is `generationConfig.responseJsonSchema` (the schema is
//!   lowered for Gemini — every `$ref` inlined but recursive ones — then written in JSON Schema
//!   terms), with
//!   `responseMimeType: application/json`.

use serde_json::{Map, Value, json};

use super::response::GROUNDING_TYPE;
use super::{PROVIDER, SYNTHETIC_ID_PREFIX};
use crate::media::FileSource;
use crate::message::{ContentBlock, ImageSource, Message, ToolCall};
use crate::model::provider_tool::hosted_for;
use crate::model::{ChatRequest, ModelError, ResponseFormat, ToolChoice};
use crate::providers::inputs::Place;
use crate::schema::{self, Dialect};

/// Lowers `req` for `model`; `thinking_budget` turns thinking (with thought summaries) on.
pub(crate) fn lower(
    req: &ChatRequest,
    model: &str,
    thinking_budget: Option<i32>,
) -> Result<Value, ModelError> {
    let invalid = |message: String| ModelError::InvalidRequest {
        message,
        param: Some("tool_choice".into()),
    };
    let mut body = Map::new();
    let (system, contents) = lower_messages(&req.messages, model);
    if let Some(system) = system {
        body.insert(
            "systemInstruction".into(),
            json!({ "parts": [{ "text": system }] }),
        );
    }
    body.insert("contents".into(), Value::Array(contents));

    if !req.tools.is_empty() {
        let mut declarations = Vec::with_capacity(req.tools.len());
        for def in &req.tools {
            crate::tool::refuse_custom(def, model)?;
            let mut d = json!({ "name": def.name });
            if !def.description.is_empty() {
                d["description"] = Value::String(def.description.clone());
            }
            let params = match def.parameters_for(Dialect::Gemini) {
                Ok(params) => params,
                Err(_) => {
                    // Refused for `parameters`: a recursive type still goes as
                    // `parametersJsonSchema`; anything else Gemini cannot take stays refused.
                    let mut json_schema = schema::lower_gemini_json(&def.parameters)?;
                    to_json_schema(&mut json_schema);
                    d["parametersJsonSchema"] = json_schema;
                    declarations.push(d);
                    continue;
                }
            };
            // Gemini rejects an object schema without properties; a tool without parameters
            // simply has none.
            if params
                .get("properties")
                .and_then(Value::as_object)
                .is_some_and(|p| !p.is_empty())
            {
                d["parameters"] = params.clone();
            }
            declarations.push(d);
        }
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
    }
    let hosted = hosted_for(&req.provider_tools, PROVIDER, model)?;
    if !hosted.is_empty() {
        let tools = body.entry("tools").or_insert_with(|| json!([]));
        if let Value::Array(tools) = tools {
            tools.extend(hosted.into_iter().cloned());
        }
    }
    let config = match &req.tool_choice {
        None => None,
        Some(ToolChoice::Auto | ToolChoice::None) if req.tools.is_empty() => None,
        Some(ToolChoice::Required | ToolChoice::Tool(_)) if req.tools.is_empty() => {
            return Err(invalid(
                "tool_choice requires a tool call but the request has no tools".into(),
            ));
        }
        Some(ToolChoice::Auto) => Some(json!({ "mode": "AUTO" })),
        Some(ToolChoice::None) => Some(json!({ "mode": "NONE" })),
        Some(ToolChoice::Required) => Some(json!({ "mode": "ANY" })),
        Some(ToolChoice::Tool(name)) => {
            if !req.tools.iter().any(|t| &t.name == name) {
                return Err(invalid(format!(
                    "tool_choice names `{name}`, which is not among the request's tools"
                )));
            }
            Some(json!({ "mode": "ANY", "allowedFunctionNames": [name] }))
        }
    };
    if let Some(config) = config {
        body.insert(
            "toolConfig".into(),
            json!({ "functionCallingConfig": config }),
        );
    }
    if req.parallel_tool_calls == Some(false) && !req.tools.is_empty() {
        tracing::warn!(%model, "Gemini cannot disable parallel function calls; parallel_tool_calls not sent");
    }

    let mut generation = Map::new();
    if let Some(t) = req.temperature {
        generation.insert("temperature".into(), json!(t));
    }
    if let Some(p) = req.top_p {
        generation.insert("topP".into(), json!(p));
    }
    if let Some(n) = req.max_tokens {
        generation.insert("maxOutputTokens".into(), json!(n));
    }
    if !req.stop.is_empty() {
        generation.insert("stopSequences".into(), json!(req.stop));
    }
    if let Some(seed) = req.seed {
        generation.insert("seed".into(), json!(seed));
    }
    match &req.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::JsonObject) => {
            generation.insert("responseMimeType".into(), json!("application/json"));
        }
        Some(ResponseFormat::JsonSchema {
            schema: canonical, ..
        }) => {
            // `responseJsonSchema` takes `$defs` and `$ref`: a recursive type is kept.
            let mut lowered = schema::lower_gemini_json(canonical)?;
            to_json_schema(&mut lowered);
            generation.insert("responseMimeType".into(), json!("application/json"));
            generation.insert("responseJsonSchema".into(), lowered);
        }
    }
    if let Some(budget) = thinking_budget {
        generation.insert(
            "thinkingConfig".into(),
            json!({ "includeThoughts": true, "thinkingBudget": budget }),
        );
    }
    if !generation.is_empty() {
        body.insert("generationConfig".into(), Value::Object(generation));
    }
    Ok(Value::Object(body))
}

/// Rewrites the OpenAPI `nullable: true` of the Gemini dialect as JSON Schema's `"null"` type.
fn to_json_schema(node: &mut Value) {
    match node {
        Value::Object(map) => {
            if map.remove("nullable") == Some(Value::Bool(true)) {
                match map.get_mut("type") {
                    Some(Value::String(t)) => {
                        let t = std::mem::take(t);
                        map.insert("type".into(), json!([t, "null"]));
                    }
                    _ => {
                        if let Some(Value::Array(any)) = map.get_mut("anyOf") {
                            any.push(json!({ "type": "null" }));
                        }
                    }
                }
            }
            for v in map.values_mut() {
                to_json_schema(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(to_json_schema),
        _ => {}
    }
}

fn lower_messages(messages: &[Message], model: &str) -> (Option<String>, Vec<Value>) {
    let mut system: Vec<&str> = Vec::new();
    let mut contents: Vec<Value> = Vec::new();
    let mut push = |role: &str, parts: Vec<Value>| {
        if parts.is_empty() {
            return;
        }
        match contents.last_mut() {
            Some(last) if last["role"] == role => {
                if let Some(existing) = last["parts"].as_array_mut() {
                    existing.extend(parts);
                }
            }
            _ => contents.push(json!({ "role": role, "parts": parts })),
        }
    };
    for message in messages {
        match message {
            Message::System { content } => system.push(content),
            Message::User(m) => push(
                "user",
                m.content
                    .iter()
                    .filter_map(|b| user_part(b, model))
                    .collect(),
            ),
            Message::Assistant(m) => {
                let mut parts = Vec::new();
                let mut pending_signature: Option<&str> = None;
                // Calls already placed where their marker block stood.
                let mut placed: Vec<&str> = Vec::new();
                for block in &m.content {
                    match block {
                        ContentBlock::Reasoning { text, signature } if text.is_empty() => {
                            pending_signature = signature.as_deref();
                        }
                        ContentBlock::Reasoning { text, signature } => {
                            let mut part = json!({ "text": text, "thought": true });
                            if let Some(s) = signature {
                                part["thoughtSignature"] = json!(s);
                            }
                            parts.push(part);
                        }
                        ContentBlock::Text { text, .. } => {
                            let mut part = json!({ "text": text });
                            if let Some(s) = pending_signature.take() {
                                part["thoughtSignature"] = json!(s);
                            }
                            parts.push(part);
                        }
                        ContentBlock::Other { provider, value } if provider == PROVIDER => {
                            if let Some(id) = value.get("tool_call_id").and_then(Value::as_str) {
                                // A call's place (and signature): the call goes here.
                                let sig = value.get("thought_signature").and_then(Value::as_str);
                                if let Some(call) = m.tool_calls.iter().find(|c| c.id == id)
                                    && !placed.contains(&id)
                                {
                                    parts.push(function_call_part(call, sig, model));
                                    placed.push(id);
                                }
                            } else if value.get("type").and_then(Value::as_str)
                                == Some(GROUNDING_TYPE)
                            {
                                // Search results shown to the caller; Gemini takes no part back.
                            } else {
                                parts.push(value.clone());
                            }
                        }
                        other => {
                            if let Some(p) = user_part(other, model) {
                                parts.push(p);
                            }
                        }
                    }
                }
                // Calls without a marker (another provider's, or an older history): last.
                for call in &m.tool_calls {
                    if !placed.contains(&call.id.as_str()) {
                        parts.push(function_call_part(call, None, model));
                    }
                }
                push("model", parts);
            }
            Message::Tool(m) => {
                let mut text = String::new();
                let mut media = Vec::new();
                for block in &m.content {
                    match block {
                        ContentBlock::Text { text: t, .. }
                        | ContentBlock::File {
                            source: FileSource::Text { text: t },
                            ..
                        } => text.push_str(t),
                        other => media.extend(inline_data(other)),
                    }
                }
                let value = serde_json::from_str::<Value>(&text).unwrap_or(Value::String(text));
                let key = if m.is_error { "error" } else { "output" };
                let mut fr = json!({ "name": m.name, "response": { key: value } });
                if !media.is_empty() {
                    // Multimodal function responses: the media as the response's own parts.
                    fr["parts"] = Value::Array(media);
                }
                if !m.call_id.is_empty() && !m.call_id.starts_with(SYNTHETIC_ID_PREFIX) {
                    fr["id"] = json!(m.call_id);
                }
                push("user", vec![json!({ "functionResponse": fr })]);
            }
        }
    }
    ((!system.is_empty()).then(|| system.join("\n\n")), contents)
}

/// A `functionCall` part, with the call's thought signature if it had one.
fn function_call_part(call: &ToolCall, signature: Option<&str>, model: &str) -> Value {
    let args = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(v @ Value::Object(_)) => v,
        _ if call.arguments.trim().is_empty() => json!({}),
        _ => {
            tracing::warn!(%model, tool = %call.name, "tool call arguments are not a JSON object; sent as {{}}");
            json!({})
        }
    };
    let mut fc = json!({ "name": call.name, "args": args });
    if !call.id.is_empty() && !call.id.starts_with(SYNTHETIC_ID_PREFIX) {
        fc["id"] = json!(call.id);
    }
    let mut part = json!({ "functionCall": fc });
    if let Some(sig) = signature {
        part["thoughtSignature"] = json!(sig);
    }
    part
}

fn user_part(block: &ContentBlock, model: &str) -> Option<Value> {
    match block {
        ContentBlock::Text { text, .. } => Some(json!({ "text": text })),
        ContentBlock::Image {
            source: ImageSource::Base64 { .. },
        } => inline_data(block),
        ContentBlock::Image {
            source: ImageSource::Url { url },
        } => Some(json!({ "fileData": { "mimeType": mime_of(url), "fileUri": url } })),
        ContentBlock::File {
            source: FileSource::Text { text },
            ..
        } => Some(json!({ "text": text })),
        ContentBlock::File {
            source: FileSource::Base64 { .. },
            ..
        }
        | ContentBlock::Audio { .. } => inline_data(block),
        ContentBlock::File {
            source: FileSource::Url { url, media_type },
            ..
        } => Some(json!({ "fileData": {
            "mimeType": media_type.as_deref().unwrap_or_else(|| mime_of(url)),
            "fileUri": url,
        } })),
        ContentBlock::File {
            source: FileSource::FileId { id, media_type },
            ..
        } => {
            let mut data = json!({ "fileUri": id });
            if let Some(mt) = media_type {
                data["mimeType"] = json!(mt);
            }
            Some(json!({ "fileData": data }))
        }
        ContentBlock::Reasoning { .. } => None,
        ContentBlock::Other { provider, value } if provider == PROVIDER => Some(value.clone()),
        ContentBlock::Other { provider, .. } => {
            tracing::warn!(%model, %provider, "a block from another provider cannot be sent to Gemini; dropped");
            None
        }
    }
}

/// An inline image, file or audio clip as an `inlineData` part; `None` for other blocks.
fn inline_data(block: &ContentBlock) -> Option<Value> {
    let (mime, data) = match block {
        ContentBlock::Image {
            source: ImageSource::Base64 { media_type, data },
        }
        | ContentBlock::File {
            source: FileSource::Base64 { media_type, data },
            ..
        } => (media_type.as_str(), data),
        ContentBlock::Audio { format, data } => (format.media_type(), data),
        _ => return None,
    };
    Some(json!({ "inlineData": { "mimeType": mime, "data": data } }))
}

/// What `generateContent` takes: every media part in user turns (inline as `inlineData`, by
/// URL or file URI as `fileData`); in a function response, inline media only (the
/// `functionResponse`'s `parts` carry `inlineData`).
pub(crate) fn accepts(block: &ContentBlock, place: Place) -> Result<(), String> {
    let by_reference = matches!(
        block,
        ContentBlock::Image {
            source: ImageSource::Url { .. }
        } | ContentBlock::File {
            source: FileSource::Url { .. } | FileSource::FileId { .. },
            ..
        }
    );
    if place == Place::Tool && by_reference {
        return Err(
            "a Gemini function response carries media inline only, not by URL or file URI".into(),
        );
    }
    Ok(())
}

/// The media type a URL's extension suggests (images, PDFs and audio), else `image/jpeg`.
fn mime_of(url: &str) -> &'static str {
    let path = url
        .split(['?', '#'])
        .next()
        .unwrap_or(url)
        .to_ascii_lowercase();
    match path.rsplit('.').next() {
        Some("png") => "image/png",
        Some("webp") => "image/webp",
        Some("gif") => "image/gif",
        Some("heic") => "image/heic",
        Some("pdf") => "application/pdf",
        Some("txt") => "text/plain",
        Some("wav") => "audio/wav",
        Some("mp3") => "audio/mp3",
        _ => "image/jpeg",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nullable_becomes_a_null_type() {
        let mut s = json!({ "type": "object", "properties": { "a": { "type": "string", "nullable": true } } });
        to_json_schema(&mut s);
        assert_eq!(s["properties"]["a"], json!({ "type": ["string", "null"] }));
    }
}
