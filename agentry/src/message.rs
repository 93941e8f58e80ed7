//! Conversation messages: what is sent to a model and what comes back.
//!
//! Every type here is a plain serde type, so a conversation can be stored and reloaded:
//!
//! ```
//! use agentry::{Message, ToolCall};
//!
//! let history = vec![
//!     Message::system("You are terse."),
//!     Message::user("Weather in Paris?"),
//!     Message::assistant_tool_calls(vec![ToolCall::new("call_1", "get_weather", r#"{"city":"Paris"}"#)]),
//!     Message::tool_result("call_1", "get_weather", "18°C, clear"),
//! ];
//! let json = serde_json::to_string(&history).unwrap();
//! let back: Vec<Message> = serde_json::from_str(&json).unwrap();
//! assert_eq!(back, history);
//! ```

use serde::{Deserialize, Serialize};

pub use crate::citation::Citation;
pub use crate::media::{AudioFormat, FileSource, PartKind};

/// One message of a conversation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instruction text.
        content: String,
    },
    /// What the user said.
    User(UserMessage),
    /// What the model answered: text, reasoning and tool calls.
    Assistant(AssistantMessage),
    /// The result of one tool call, answering the call with the same id.
    Tool(ToolResultMessage),
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Message::System {
            content: content.into(),
        }
    }

    /// A user message with one text block.
    pub fn user(text: impl Into<String>) -> Self {
        Message::User(UserMessage {
            content: vec![ContentBlock::text(text)],
        })
    }

    /// An assistant message with one text block and no tool calls.
    pub fn assistant(text: impl Into<String>) -> Self {
        Message::Assistant(AssistantMessage {
            content: vec![ContentBlock::text(text)],
            ..AssistantMessage::default()
        })
    }

    /// An assistant message that only calls tools.
    pub fn assistant_tool_calls(tool_calls: Vec<ToolCall>) -> Self {
        Message::Assistant(AssistantMessage {
            tool_calls,
            ..AssistantMessage::default()
        })
    }

    /// A successful tool result with text content.
    pub fn tool_result(
        call_id: impl Into<String>,
        name: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        Message::Tool(ToolResultMessage {
            call_id: call_id.into(),
            name: name.into(),
            content: vec![ContentBlock::text(text)],
            is_error: false,
        })
    }

    /// The text of this message's text blocks, joined; empty when there is none.
    pub fn text(&self) -> String {
        match self {
            Message::System { content } => content.clone(),
            Message::User(m) => join_text(&m.content),
            Message::Assistant(m) => join_text(&m.content),
            Message::Tool(m) => join_text(&m.content),
        }
    }
}

/// A message from the user.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct UserMessage {
    /// Text, images, documents and audio, in order.
    pub content: Vec<ContentBlock>,
}

/// A message from the model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// Text, reasoning and provider-specific blocks, in the order the model produced them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<ContentBlock>,
    /// The tools the model asked to call, in the order it emitted them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// The model declined to answer (OpenAI's `refusal`), with its explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
}

impl AssistantMessage {
    /// The text blocks joined together (reasoning and other blocks left out).
    ///
    /// ```
    /// use agentry::message::{AssistantMessage, ContentBlock};
    ///
    /// let answer = AssistantMessage {
    ///     content: vec![
    ///         ContentBlock::text("It is "),
    ///         ContentBlock::Reasoning { text: "check the units".into(), signature: None },
    ///         ContentBlock::text("21 degrees."),
    ///     ],
    ///     ..AssistantMessage::default()
    /// };
    /// assert_eq!(answer.text(), "It is 21 degrees.");
    /// assert_eq!(AssistantMessage::default().text(), "");
    /// ```
    pub fn text(&self) -> String {
        join_text(&self.content)
    }
}

/// The result of one tool call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolResultMessage {
    /// The id of the [`ToolCall`] this answers.
    pub call_id: String,
    /// The name of the tool that was called.
    pub name: String,
    /// What the model sees.
    pub content: Vec<ContentBlock>,
    /// Whether the content describes a failure (bad arguments, a tool error).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
}

/// A tool call requested by the model.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for this call; the tool result must carry it back. Some
    /// OpenAI-compatible servers send an empty id, or one id for several calls: the providers
    /// replace such ids by unique ones before the answer reaches the caller.
    pub id: String,
    /// The tool name the model asked for (not necessarily a tool that exists).
    pub name: String,
    /// The arguments exactly as the model wrote them: JSON text, possibly malformed.
    pub arguments: String,
}

impl ToolCall {
    /// A tool call from its parts.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }
}

/// One piece of message content.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
        /// The sources the provider cites for this text (Anthropic `citations`, e.g. from web
        /// search or citable documents), in order; sent back with the text. Empty for most
        /// text.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        citations: Vec<Citation>,
    },
    /// An image, by URL or inline.
    Image {
        /// Where the image comes from.
        source: ImageSource,
    },
    /// A document or other file: a PDF, a plain-text document, or any file the provider
    /// takes, inline, by URL or by the provider's file id. See [`crate::media`] for the
    /// constructors ([`ContentBlock::pdf`], [`ContentBlock::file_url`], ...).
    File {
        /// Where the file comes from.
        source: FileSource,
        /// The file's name, shown to the model where the provider takes one (OpenAI).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        filename: Option<String>,
    },
    /// An audio clip, inline ([`ContentBlock::audio`]). Audio by URL or file id is a
    /// [`ContentBlock::File`] with an `audio/*` media type.
    Audio {
        /// The encoding.
        format: AudioFormat,
        /// The base64 data.
        data: String,
    },
    /// The model's reasoning ("thinking"), kept so it can be sent back when a provider requires it.
    Reasoning {
        /// The readable reasoning text (may be empty when the provider hides it).
        #[serde(default)]
        text: String,
        /// An opaque signature or encrypted payload that must be returned unchanged.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signature: Option<String>,
    },
    /// A provider-specific block the SDK does not interpret, passed through unchanged.
    Other {
        /// The provider that produced it, e.g. `"anthropic"`.
        provider: String,
        /// The block exactly as the provider sent it.
        value: serde_json::Value,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text {
            text: text.into(),
            citations: Vec::new(),
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The citations of a text block (empty for other blocks).
    pub fn citations(&self) -> &[Citation] {
        match self {
            ContentBlock::Text { citations, .. } => citations,
            _ => &[],
        }
    }
}

/// Where an image's bytes come from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ImageSource {
    /// A URL the provider fetches.
    Url {
        /// The URL.
        url: String,
    },
    /// Base64-encoded bytes.
    Base64 {
        /// The MIME type, e.g. `image/png`.
        media_type: String,
        /// The base64 data.
        data: String,
    },
}

fn join_text(blocks: &[ContentBlock]) -> String {
    let mut texts = blocks.iter().filter_map(ContentBlock::as_text);
    // The first text copied at its size: one text (the usual case) is one allocation.
    let mut out = texts.next().map(String::from).unwrap_or_default();
    for text in texts {
        out.push_str(text);
    }
    out
}
