//! The Chat Completions wire format: request and response bodies as serde types.
//!
//! Requests borrow from the [`ChatRequest`](crate::model::ChatRequest) they are lowered from,
//! so a request body is serialized without copying the conversation. Responses accept what
//! OpenAI documents and what common compatible servers send instead (`null` for absent
//! fields, numeric error codes, `reasoning_content`, arguments as a JSON object).

use super::custom_tool::{WireCustomCall, WireCustomDelta};
use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

// ---------------------------------------------------------------- request

/// `POST /chat/completions` body.
#[derive(Debug, Serialize)]
pub(crate) struct WireRequest<'a> {
    pub model: &'a str,
    pub messages: WireMessages<'a>,
    #[serde(skip_serializing_if = "WireTools::is_empty")]
    pub tools: WireTools<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parallel_tool_calls: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_completion_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub stop: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_format: Option<Value>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt_cache_key: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<&'a str>,
    /// Choices to generate (the model-level API for several choices).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub n: Option<u32>,
}

#[derive(Debug, Serialize)]
pub(crate) struct StreamOptions {
    pub include_usage: bool,
}

/// The conversation of a request, lowered message by message as it is serialized (see
/// `lower_messages.rs`).
#[derive(Debug)]
pub(crate) struct WireMessages<'a> {
    pub messages: &'a [crate::message::Message],
    pub model: &'a str,
    /// The request's tools: a call to a `custom` one goes back as a custom call.
    pub tools: &'a [crate::tool::DefinitionRef],
}

/// One part of a user message's content.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(crate) enum UserPart<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl<'a> },
    File { file: WireFile<'a> },
    InputAudio { input_audio: WireAudio<'a> },
}

/// A `file` part: a PDF inline (`file_data`, a data URL) or by `file_id`.
#[derive(Debug, Serialize)]
pub(crate) struct WireFile<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub filename: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_data: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file_id: Option<&'a str>,
}

/// An `input_audio` part: base64 data and its format (`wav` or `mp3`).
#[derive(Debug, Serialize)]
pub(crate) struct WireAudio<'a> {
    pub data: &'a str,
    pub format: &'static str,
}

#[derive(Debug, Serialize)]
pub(crate) struct ImageUrl<'a> {
    pub url: Cow<'a, str>,
}

/// A tool call of an assistant message sent back.
#[derive(Debug, Serialize)]
pub(crate) struct WireToolCall<'a> {
    pub id: &'a str,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunctionCall<'a>,
}

#[derive(Debug, Serialize)]
pub(crate) struct WireFunctionCall<'a> {
    pub name: &'a str,
    pub arguments: &'a str,
}

/// The request's tools, written straight from their definitions (no list of wire tools per
/// request). [`lower`](super::request::lower) has checked that each schema lowers.
#[derive(Debug)]
pub(crate) struct WireTools<'a> {
    pub defs: &'a [crate::tool::DefinitionRef],
    /// Whether the model takes strict tools; if not, strict ones go out plain.
    pub strict_tools: bool,
}

impl WireTools<'_> {
    fn is_empty(&self) -> bool {
        self.defs.is_empty()
    }
}

impl Serialize for WireTools<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{Error, SerializeSeq};
        let mut seq = serializer.serialize_seq(Some(self.defs.len()))?;
        for def in self.defs {
            if let Some(format) = &def.custom {
                seq.serialize_element(&super::custom_tool::declaration(
                    &def.name,
                    &def.description,
                    format,
                ))?;
                continue;
            }
            let strict = def.strict && self.strict_tools;
            let dialect = if strict {
                crate::schema::Dialect::OpenAiStrict
            } else {
                crate::schema::Dialect::OpenAi
            };
            seq.serialize_element(&WireTool {
                kind: "function",
                function: WireFunctionDef {
                    name: &def.name,
                    description: &def.description,
                    parameters: def.parameters_json_for(dialect).map_err(S::Error::custom)?,
                    strict: strict.then_some(true),
                },
            })?;
        }
        seq.end()
    }
}

#[derive(Debug, Serialize)]
pub(crate) struct WireTool<'a> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: WireFunctionDef<'a>,
}

#[derive(Debug, Serialize)]
pub(crate) struct WireFunctionDef<'a> {
    pub name: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub description: &'a str,
    pub parameters: &'a serde_json::value::RawValue,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strict: Option<bool>,
}

// ---------------------------------------------------------------- response

/// A non-streamed answer.
#[derive(Debug, Deserialize)]
pub(crate) struct WireResponse {
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub choices: Vec<WireChoice>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// An error envelope sent with status 200 (some compatible servers).
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireChoice {
    #[serde(default, deserialize_with = "null_default")]
    pub index: usize,
    pub message: WireResponseMessage,
    #[serde(default)]
    pub finish_reason: Option<FinishText>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireResponseMessage {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub refusal: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub tool_calls: Vec<WireResponseToolCall>,
    /// DeepSeek, vLLM and others.
    #[serde(default)]
    pub reasoning_content: Option<String>,
    /// Ollama, OpenRouter and others.
    #[serde(default)]
    pub reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireResponseToolCall {
    #[serde(default, deserialize_with = "null_default")]
    pub id: String,
    /// A function call's name and arguments; absent for a `custom` call.
    #[serde(default)]
    pub function: Option<WireResponseFunction>,
    /// A `custom` (free-form) call's name and input text.
    #[serde(default)]
    pub custom: Option<WireCustomCall>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireResponseFunction {
    #[serde(default, deserialize_with = "null_default")]
    pub name: String,
    /// As text, read so: a call is then the size of a [`ToolCall`](crate::message::ToolCall),
    /// and the list of calls becomes the answer's without a reallocation.
    #[serde(default, deserialize_with = "arguments_text")]
    pub arguments: String,
}

/// Arguments as text (a value written out as JSON); `null` or absent as empty.
fn arguments_text<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    Ok(Option::<Arguments>::deserialize(d)?
        .map(Arguments::into_text)
        .unwrap_or_default())
}

/// Arguments as OpenAI sends them (a JSON string) or as some servers do (a JSON value).
#[derive(Debug)]
pub(crate) enum Arguments {
    Text(String),
    Json(Value),
}

impl<'de> Deserialize<'de> for Arguments {
    /// Read once as a value, then sorted: an untagged enum would buffer the input and read
    /// it again for each variant it tries.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Value::deserialize(d)? {
            Value::String(text) => Arguments::Text(text),
            other => Arguments::Json(other),
        })
    }
}

impl Arguments {
    pub(super) fn into_text(self) -> String {
        match self {
            Arguments::Text(s) => s,
            Arguments::Json(v) => v.to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) struct WireUsage {
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
    #[serde(default)]
    pub completion_tokens: Option<u64>,
    #[serde(default)]
    pub prompt_tokens_details: Option<PromptDetails>,
    #[serde(default)]
    pub completion_tokens_details: Option<CompletionDetails>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) struct PromptDetails {
    #[serde(default)]
    pub cached_tokens: Option<u64>,
    /// Prompt tokens written to the cache (OpenAI's explicit caching; OpenRouter too).
    #[serde(default)]
    pub cache_write_tokens: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, Deserialize)]
pub(crate) struct CompletionDetails {
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
}

impl WireUsage {
    pub(crate) fn to_usage(self) -> crate::usage::Usage {
        crate::usage::Usage {
            input_tokens: self.prompt_tokens.unwrap_or(0),
            output_tokens: self.completion_tokens.unwrap_or(0),
            cached_input_tokens: self
                .prompt_tokens_details
                .and_then(|d| d.cached_tokens)
                .unwrap_or(0),
            reasoning_tokens: self
                .completion_tokens_details
                .and_then(|d| d.reasoning_tokens)
                .unwrap_or(0),
            cache_write_tokens: self
                .prompt_tokens_details
                .and_then(|d| d.cache_write_tokens)
                .unwrap_or(0),
            requests: 1,
        }
    }
}

/// A `finish_reason` as sent. The known ones ([`KNOWN_REASONS`](super::response::KNOWN_REASONS))
/// are static strings rather than copies.
#[derive(Debug)]
pub(crate) struct FinishText(pub Cow<'static, str>);

impl std::ops::Deref for FinishText {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for FinishText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl serde::de::Visitor<'_> for Text {
            type Value = FinishText;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a finish reason string")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<FinishText, E> {
                Ok(FinishText(
                    match super::response::KNOWN_REASONS.iter().find(|(k, _)| *k == v) {
                        Some((known, _)) => Cow::Borrowed(known),
                        None => Cow::Owned(v.to_owned()),
                    },
                ))
            }
        }
        d.deserialize_str(Text)
    }
}

// ---------------------------------------------------------------- stream

/// A string borrowed from the input unless it has escapes. (Serde borrows a `Cow<str>` field
/// marked `borrow`, but not one inside an `Option`: that one is always copied.)
#[derive(Debug, Deserialize)]
#[serde(transparent)]
pub(crate) struct BorrowedStr<'a>(#[serde(borrow)] pub Cow<'a, str>);

/// One `data:` payload of a streamed answer. `id` and `model` repeat in every chunk and are
/// borrowed, not copied.
#[derive(Debug, Deserialize)]
pub(crate) struct WireChunk<'a> {
    #[serde(default, borrow)]
    pub id: Option<BorrowedStr<'a>>,
    #[serde(default, borrow)]
    pub model: Option<BorrowedStr<'a>>,
    #[serde(default, deserialize_with = "null_default")]
    pub choices: Vec<WireChunkChoice>,
    #[serde(default)]
    pub usage: Option<WireUsage>,
    /// An error reported inside a successful stream.
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireChunkChoice {
    #[serde(default, deserialize_with = "null_default")]
    pub index: usize,
    #[serde(default, deserialize_with = "null_default")]
    pub delta: WireDelta,
    #[serde(default)]
    pub finish_reason: Option<FinishText>,
}

#[derive(Debug, Default, Deserialize)]
pub(crate) struct WireDelta {
    #[serde(default)]
    pub content: Option<String>,
    #[serde(default)]
    pub refusal: Option<String>,
    #[serde(default)]
    pub reasoning_content: Option<String>,
    #[serde(default)]
    pub reasoning: Option<String>,
    #[serde(default, deserialize_with = "null_default")]
    pub tool_calls: Vec<WireToolCallDelta>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireToolCallDelta {
    #[serde(default)]
    pub index: Option<usize>,
    #[serde(default)]
    pub id: Option<String>,
    #[serde(default)]
    pub function: Option<WireFunctionDelta>,
    /// A streamed `custom` call's name and pieces of its input text.
    #[serde(default)]
    pub custom: Option<WireCustomDelta>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct WireFunctionDelta {
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub arguments: Option<Arguments>,
}

/// `null` (or absence, with `#[serde(default)]`) as the type's default.
fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_finish_reason_is_not_copied_and_any_other_is_kept() {
        let known: FinishText = serde_json::from_str(r#""tool_calls""#).unwrap();
        assert!(matches!(known.0, Cow::Borrowed("tool_calls")));
        let other: FinishText = serde_json::from_str(r#""max_output""#).unwrap();
        assert!(matches!(other.0, Cow::Owned(ref s) if s == "max_output"));
        assert!(serde_json::from_str::<FinishText>("3").is_err());
    }

    #[test]
    fn a_calls_arguments_are_read_as_text_whatever_the_server_sends() {
        let args = |json: &str| {
            serde_json::from_str::<WireResponseFunction>(json)
                .unwrap()
                .arguments
        };
        assert_eq!(
            args(r#"{"name":"f","arguments":"{\"a\":1}"}"#),
            r#"{"a":1}"#
        );
        assert_eq!(
            args(r#"{"name":"f","arguments":{"a":[1,"x"]}}"#),
            r#"{"a":[1,"x"]}"#
        );
        assert_eq!(args(r#"{"name":"f","arguments":null}"#), "");
        assert_eq!(args(r#"{"name":"f"}"#), "");
        assert!(serde_json::from_str::<WireResponseFunction>(r#"{"arguments":{"#).is_err());
    }

    #[test]
    fn a_chunks_id_and_model_are_borrowed_unless_escaped() {
        let chunk: WireChunk<'_> =
            serde_json::from_str(r#"{"id":"chatcmpl-1","model":"gpt\u002d4o","choices":[]}"#)
                .unwrap();
        assert!(matches!(
            chunk.id,
            Some(BorrowedStr(Cow::Borrowed("chatcmpl-1")))
        ));
        assert!(matches!(chunk.model, Some(BorrowedStr(Cow::Owned(ref m))) if m == "gpt-4o"));
    }
}
