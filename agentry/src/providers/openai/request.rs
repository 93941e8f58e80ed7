//! Lowering a [`ChatRequest`] into a Chat Completions request body.
//!
//! What the model's [`ModelProfile`] says it cannot do is handled before anything is sent,
//! per setting:
//!
//! | setting | when unsupported |
//! |---|---|
//! | `response_format: json_schema` | refused: [`ModelError::Unsupported`] (use a tool or prompted output strategy instead) |
//! | `tool_choice: required` / named tool / `none` | refused: [`ModelError::Unsupported`] (changing it would change what the model may answer) |
//! | strict tools | dropped with a warning: the tool is sent in the plain `openai` dialect |
//! | `parallel_tool_calls` | dropped with a warning |
//! | `seed` | dropped with a warning |
//! | `temperature`, `top_p` on a reasoning model | dropped with a warning |
//! | `reasoning_effort` on a model without reasoning | dropped with a warning |
//! | usage in streams | `stream_options` is not sent |
//!
//! User mistakes are refused too: a `tool_choice` naming a tool that is not in the request,
//! or `required`/named with no tools, is [`ModelError::InvalidRequest`]. Content the Chat
//! Completions API has no place for (reasoning blocks, provider-specific blocks, images in
//! assistant or tool messages) is not sent; reasoning is dropped silently (the API never
//! accepts it back), the rest with a warning.

use std::borrow::Cow;

use serde_json::{Value, json};

use super::MaxTokensField;
use super::wire::{StreamOptions, WireMessages, WireRequest, WireTools};
use crate::model::{ChatRequest, ModelError, ModelProfile, ResponseFormat, ToolChoice};
use crate::schema::{self, Dialect};

/// What lowering needs to know about the model.
pub(crate) struct LowerOptions<'a> {
    pub model: &'a str,
    pub profile: &'a ModelProfile,
    pub max_tokens_field: MaxTokensField,
    /// `reasoning_effort`, for a reasoning model.
    pub reasoning_effort: Option<&'a str>,
}

/// Lowers `req`; `stream` asks for a streamed answer.
pub(crate) fn lower<'a>(
    req: &'a ChatRequest,
    opts: &LowerOptions<'a>,
    stream: bool,
) -> Result<WireRequest<'a>, ModelError> {
    let profile = opts.profile;
    let unsupported = |setting: &str| ModelError::Unsupported {
        model: opts.model.to_owned(),
        setting: setting.to_owned(),
    };

    if !req.provider_tools.is_empty() {
        return Err(unsupported(
            "provider-hosted tools (Chat Completions has none; use the Responses API)",
        ));
    }
    // Each schema is lowered (once per definition, then cached) here, so that a schema the
    // dialect cannot take is an error before anything is written.
    for def in req.tools.iter().filter(|d| d.custom.is_none()) {
        let strict = def.strict && profile.strict_tools;
        if def.strict && !profile.strict_tools {
            tracing::warn!(model = opts.model, tool = %def.name, "model does not support strict tools; sending a non-strict definition");
        }
        let dialect = if strict {
            Dialect::OpenAiStrict
        } else {
            Dialect::OpenAi
        };
        def.parameters_json_for(dialect)?;
    }
    let tools = WireTools {
        defs: &req.tools,
        strict_tools: profile.strict_tools,
    };

    let tool_choice = match &req.tool_choice {
        None => None,
        Some(choice) if req.tools.is_empty() => match choice {
            ToolChoice::Auto | ToolChoice::None => None,
            ToolChoice::Required | ToolChoice::Tool(_) => {
                return Err(ModelError::InvalidRequest {
                    message: "tool_choice requires a tool call but the request has no tools".into(),
                    param: Some("tool_choice".into()),
                });
            }
        },
        Some(ToolChoice::Auto) => Some(json!("auto")),
        Some(ToolChoice::None) if !profile.tool_choice_none => {
            return Err(unsupported("tool_choice: none"));
        }
        Some(ToolChoice::None) => Some(json!("none")),
        Some(ToolChoice::Required) if !profile.tool_choice_required => {
            return Err(unsupported("tool_choice: required"));
        }
        Some(ToolChoice::Required) => Some(json!("required")),
        Some(ToolChoice::Tool(name)) => {
            if !profile.tool_choice_named {
                return Err(unsupported("tool_choice naming a tool"));
            }
            if !req.tools.iter().any(|t| &t.name == name) {
                return Err(ModelError::InvalidRequest {
                    message: format!(
                        "tool_choice names `{name}`, which is not among the request's tools"
                    ),
                    param: Some("tool_choice".into()),
                });
            }
            if super::custom_tool::is_custom(&req.tools, name) {
                Some(json!({ "type": "custom", "custom": { "name": name } }))
            } else {
                Some(json!({ "type": "function", "function": { "name": name } }))
            }
        }
    };

    let parallel_tool_calls = match req.parallel_tool_calls {
        Some(_) if req.tools.is_empty() => None,
        Some(v) if !profile.parallel_tool_calls => {
            tracing::warn!(
                model = opts.model,
                value = v,
                "model does not support parallel_tool_calls; not sending it"
            );
            None
        }
        other => other,
    };

    let seed = match req.seed {
        Some(_) if !profile.seed => {
            tracing::warn!(
                model = opts.model,
                "model does not support seed; not sending it"
            );
            None
        }
        other => other,
    };

    let (temperature, top_p) = match (req.temperature, req.top_p) {
        (None, None) => (None, None),
        _ if profile.reasoning => {
            tracing::warn!(
                model = opts.model,
                "reasoning models do not accept temperature or top_p; not sending them"
            );
            (None, None)
        }
        other => other,
    };

    let reasoning_effort = match opts.reasoning_effort {
        Some(effort) if !profile.reasoning => {
            tracing::warn!(
                model = opts.model,
                effort,
                "the model's profile has no reasoning; not sending reasoning_effort"
            );
            None
        }
        other => other,
    };

    let (max_completion_tokens, max_tokens) = match opts.max_tokens_field {
        MaxTokensField::MaxCompletionTokens => (req.max_tokens, None),
        MaxTokensField::MaxTokens => (None, req.max_tokens),
    };

    let response_format = match &req.response_format {
        None | Some(ResponseFormat::Text) => None,
        Some(ResponseFormat::JsonObject) => Some(json!({ "type": "json_object" })),
        Some(ResponseFormat::JsonSchema {
            name,
            description,
            schema: canonical,
            strict,
        }) => {
            if !profile.native_structured_output {
                return Err(unsupported(
                    "response_format: json_schema (native structured output)",
                ));
            }
            let dialect = if *strict {
                Dialect::OpenAiStrict
            } else {
                Dialect::OpenAi
            };
            let lowered = schema::lower(canonical, dialect)?;
            let mut spec =
                json!({ "name": schema_name(name), "schema": lowered, "strict": strict });
            if let Some(d) = description {
                spec["description"] = Value::String(d.clone());
            }
            Some(json!({ "type": "json_schema", "json_schema": spec }))
        }
    };

    let stream_options = (stream && profile.streaming_usage).then_some(StreamOptions {
        include_usage: true,
    });

    Ok(WireRequest {
        model: opts.model,
        messages: WireMessages {
            messages: &req.messages,
            model: opts.model,
            tools: &req.tools,
        },
        tools,
        tool_choice,
        parallel_tool_calls,
        temperature,
        top_p,
        max_completion_tokens,
        max_tokens,
        stop: &req.stop,
        seed,
        response_format,
        stream,
        stream_options,
        prompt_cache_key: req.prompt_cache_key.as_deref(),
        reasoning_effort,
        n: None,
    })
}

/// OpenAI requires `^[a-zA-Z0-9_-]{1,64}$`; a Rust type name such as `Page<Item>` is not.
fn schema_name(name: &str) -> Cow<'_, str> {
    let ok = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
    if !name.is_empty() && name.len() <= 64 && name.chars().all(ok) {
        return Cow::Borrowed(name);
    }
    let mut out: String = name
        .chars()
        .map(|c| if ok(c) { c } else { '_' })
        .take(64)
        .collect();
    if out.is_empty() {
        out.push_str("output");
    }
    Cow::Owned(out)
}
