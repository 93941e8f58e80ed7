//! The conversation in Chat Completions form, written message by message straight from the
//! transcript: no wire copy of the messages is built (and dropped) per request, so a long
//! history costs its serialization and nothing per message besides.
//!
//! What Chat Completions has no place for is left out: reasoning blocks silently (the API
//! never takes them back), images in assistant messages and provider-specific blocks with a
//! warning. A tool result's images and files follow the tool messages in a user message
//! (`media.rs`).

use std::borrow::Cow;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::custom_tool::{WireCustomInput, WireCustomToolCall, is_custom};
use super::media;
use super::wire::{UserPart, WireFunctionCall, WireMessages, WireToolCall};
use crate::media::FileSource;
use crate::message::{ContentBlock, Message, ToolCall};
use crate::tool::DefinitionRef;

impl Serialize for WireMessages<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut run_start = 0;
        for (i, message) in self.messages.iter().enumerate() {
            seq.serialize_element(&Lowered {
                message,
                model: self.model,
                tools: self.tools,
            })?;
            if !matches!(message, Message::Tool(_)) {
                run_start = i + 1;
            } else if !matches!(self.messages.get(i + 1), Some(Message::Tool(_)))
                && let Some(media) = media::tool_media(&self.messages[run_start..=i])
            {
                // The run of tool results ends here: their images and files follow.
                seq.serialize_element(&media)?;
            }
        }
        seq.end()
    }
}

/// One message as Chat Completions takes it.
struct Lowered<'a> {
    message: &'a Message,
    model: &'a str,
    tools: &'a [DefinitionRef],
}

impl Serialize for Lowered<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let model = self.model;
        let mut map = serializer.serialize_map(None)?;
        match self.message {
            Message::System { content } => {
                entry(&mut map, "role", "system")?;
                entry(&mut map, "content", content.as_str())?;
            }
            Message::User(m) => {
                entry(&mut map, "role", "user")?;
                match m.content.as_slice() {
                    [ContentBlock::Text { text, .. }] => entry(&mut map, "content", text.as_str())?,
                    blocks => entry(&mut map, "content", &UserParts { blocks, model })?,
                }
            }
            Message::Assistant(m) => {
                entry(&mut map, "role", "assistant")?;
                let text = text_of(&m.content, model, "assistant");
                if !text.is_empty() || m.tool_calls.is_empty() && m.refusal.is_none() {
                    entry(&mut map, "content", &*text)?;
                }
                if !m.tool_calls.is_empty() {
                    entry(&mut map, "tool_calls", &Calls(&m.tool_calls, self.tools))?;
                }
                if let Some(refusal) = &m.refusal {
                    entry(&mut map, "refusal", refusal.as_str())?;
                }
            }
            Message::Tool(m) => {
                entry(&mut map, "role", "tool")?;
                entry(&mut map, "tool_call_id", m.call_id.as_str())?;
                let text = text_of(&m.content, model, "tool");
                if text.is_empty() && m.content.iter().any(media::is_media) {
                    entry(&mut map, "content", media::IN_NEXT_MESSAGE)?;
                } else {
                    entry(&mut map, "content", &*text)?;
                }
            }
        }
        map.end()
    }
}

/// One key and its value, written by the two calls serde's `serialize_entry` makes. That
/// method was not inlined here (it is called from every arm above), so a long history paid a
/// call per entry: about 60 instructions a message at 1000 messages (callgrind).
#[inline(always)]
fn entry<M: SerializeMap, V: Serialize + ?Sized>(
    map: &mut M,
    key: &'static str,
    value: &V,
) -> Result<(), M::Error> {
    map.serialize_key(key)?;
    map.serialize_value(value)
}

/// A user message's blocks as content parts.
struct UserParts<'a> {
    blocks: &'a [ContentBlock],
    model: &'a str,
}

impl Serialize for UserParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for block in self.blocks {
            match block {
                ContentBlock::Text { text, .. } => {
                    seq.serialize_element(&UserPart::Text { text })?
                }
                ContentBlock::Image { .. }
                | ContentBlock::File { .. }
                | ContentBlock::Audio { .. } => {
                    if let Some(part) = media::part(block) {
                        seq.serialize_element(&part)?;
                    }
                }
                ContentBlock::Reasoning { .. } => {}
                ContentBlock::Other { provider, .. } => {
                    tracing::warn!(model = %self.model, %provider, "a provider-specific block cannot be sent to chat completions; dropped");
                }
            }
        }
        seq.end()
    }
}

/// An assistant message's tool calls, and the request's tools (a call to a `custom` tool goes
/// back as a custom call).
struct Calls<'a>(&'a [ToolCall], &'a [DefinitionRef]);

impl Serialize for Calls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for c in self.0 {
            if is_custom(self.1, &c.name) {
                seq.serialize_element(&WireCustomToolCall {
                    id: &c.id,
                    kind: "custom",
                    custom: WireCustomInput {
                        name: &c.name,
                        input: &c.arguments,
                    },
                })?;
            } else {
                seq.serialize_element(&WireToolCall {
                    id: &c.id,
                    kind: "function",
                    function: WireFunctionCall {
                        name: &c.name,
                        arguments: &c.arguments,
                    },
                })?;
            }
        }
        seq.end()
    }
}

/// The text blocks of an assistant or tool message, joined: borrowed when there is one (the
/// usual case), so a long history's text is not copied.
#[inline]
fn text_of<'a>(blocks: &'a [ContentBlock], model: &str, role: &str) -> Cow<'a, str> {
    if let [ContentBlock::Text { text, .. }] = blocks {
        return Cow::Borrowed(text);
    }
    let mut text = String::new();
    for block in blocks {
        match block {
            ContentBlock::Text { text: t, .. }
            | ContentBlock::File {
                source: FileSource::Text { text: t },
                ..
            } => text.push_str(t),
            ContentBlock::Reasoning { .. } => {}
            // A tool result's media go in the user message after the results (`media.rs`).
            other if role == "tool" && media::is_media(other) => {}
            other => {
                let kind = match other {
                    ContentBlock::Image { .. } => "an image",
                    ContentBlock::File { .. } => "a file",
                    ContentBlock::Audio { .. } => "audio",
                    _ => "a provider-specific block",
                };
                tracing::warn!(%model, %role, "chat completions has no place for {kind} in this message; dropped");
            }
        }
    }
    Cow::Owned(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{AssistantMessage, ImageSource, ToolResultMessage, UserMessage};
    use serde_json::json;

    #[test]
    fn every_kind_of_message_is_written_as_chat_completions_takes_it() {
        let messages = vec![
            Message::system("Be brief."),
            Message::user("Hi"),
            Message::User(UserMessage {
                content: vec![
                    ContentBlock::text("Look:"),
                    ContentBlock::Image {
                        source: ImageSource::Url {
                            url: "https://example.invalid/a.png".into(),
                        },
                    },
                ],
            }),
            Message::Assistant(AssistantMessage {
                content: vec![
                    ContentBlock::Reasoning {
                        text: "hmm".into(),
                        signature: None,
                    },
                    ContentBlock::text("Checking."),
                ],
                tool_calls: vec![ToolCall::new("c1", "weather", r#"{"city":"Oslo"}"#)],
                refusal: None,
            }),
            Message::Tool(ToolResultMessage {
                call_id: "c1".into(),
                name: "weather".into(),
                content: vec![ContentBlock::text("sunny")],
                is_error: false,
            }),
            Message::assistant_tool_calls(vec![ToolCall::new("c2", "weather", "{}")]),
            Message::Assistant(AssistantMessage {
                refusal: Some("No.".into()),
                ..AssistantMessage::default()
            }),
        ];
        let wire = WireMessages {
            messages: &messages,
            model: "m",
            tools: &[],
        };
        assert_eq!(
            serde_json::to_value(&wire).unwrap(),
            json!([
                { "role": "system", "content": "Be brief." },
                { "role": "user", "content": "Hi" },
                { "role": "user", "content": [
                    { "type": "text", "text": "Look:" },
                    { "type": "image_url", "image_url": { "url": "https://example.invalid/a.png" } }
                ] },
                { "role": "assistant", "content": "Checking.", "tool_calls": [
                    { "id": "c1", "type": "function",
                      "function": { "name": "weather", "arguments": "{\"city\":\"Oslo\"}" } }
                ] },
                { "role": "tool", "tool_call_id": "c1", "content": "sunny" },
                { "role": "assistant", "tool_calls": [
                    { "id": "c2", "type": "function", "function": { "name": "weather", "arguments": "{}" } }
                ] },
                { "role": "assistant", "refusal": "No." }
            ])
        );
    }
}
