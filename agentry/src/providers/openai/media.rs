//! Documents, audio and files for Chat Completions: `file` parts (a PDF inline as a data URL,
//! or by `file_id`), `input_audio` parts (base64 `wav` or `mp3`), text documents as `text`
//! parts, and what becomes of media in tool results.
//!
//! Chat Completions tool messages are text only. A tool result's images and files therefore
//! go in a user message right after the run of tool messages they belong to (the API wants
//! every tool message straight after its assistant turn), each introduced by a text part
//! naming the call: `The result of tool call `call_1` (`chart`) includes:`. The tool message
//! itself keeps the result's text (or, when there is none, says that the media follow).

use std::borrow::Cow;

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};

use super::wire::{ImageUrl, UserPart, WireAudio, WireFile};
use crate::media::{AudioFormat, FileSource, PDF, PartKind, default_filename};
use crate::message::{ContentBlock, ImageSource, Message};
use crate::providers::inputs::Place;

/// The content of a tool message whose result is only images or files.
pub(super) const IN_NEXT_MESSAGE: &str =
    "[the result's images and files follow in the next message]";

/// What Chat Completions takes, in user messages and (through the follow-up user message) in
/// tool results: images; PDFs inline or by file id; plain text documents (as text); `wav` and
/// `mp3` audio. No file URLs and no other inline file type.
pub(crate) fn accepts(block: &ContentBlock, _place: Place) -> Result<(), String> {
    match block {
        ContentBlock::Audio { format, .. } => match format {
            AudioFormat::Wav | AudioFormat::Mp3 => Ok(()),
            other => Err(format!(
                "Chat Completions `input_audio` takes wav or mp3, not {}",
                other.as_str()
            )),
        },
        ContentBlock::File { source, .. } => match source {
            FileSource::Url { .. } => Err(
                "Chat Completions takes no file URLs (upload the file and pass its id, or use the Responses API)"
                    .into(),
            ),
            FileSource::Base64 { media_type, .. } => {
                let mt = media_type.to_ascii_lowercase();
                if mt == PDF || mt.starts_with("image/") {
                    Ok(())
                } else {
                    Err(format!(
                        "Chat Completions takes only PDFs as files, not `{media_type}` (the Responses API takes more types)"
                    ))
                }
            }
            FileSource::Text { .. } | FileSource::FileId { .. } => Ok(()),
        },
        _ => Ok(()),
    }
}

/// The content part of a non-text block; `None` for text, reasoning and foreign blocks.
pub(super) fn part(block: &ContentBlock) -> Option<UserPart<'_>> {
    Some(match block {
        ContentBlock::Image { source } => UserPart::ImageUrl {
            image_url: ImageUrl {
                url: match source {
                    ImageSource::Url { url } => Cow::Borrowed(url.as_str()),
                    ImageSource::Base64 { media_type, data } => {
                        Cow::Owned(format!("data:{media_type};base64,{data}"))
                    }
                },
            },
        },
        ContentBlock::File { source, filename } => match source {
            FileSource::Text { text } => UserPart::Text { text },
            FileSource::Base64 { media_type, data } if media_type.starts_with("image/") => {
                UserPart::ImageUrl {
                    image_url: ImageUrl {
                        url: Cow::Owned(format!("data:{media_type};base64,{data}")),
                    },
                }
            }
            FileSource::Base64 { media_type, data } => UserPart::File {
                file: WireFile {
                    filename: Some(filename.as_deref().unwrap_or(default_filename(media_type))),
                    file_data: Some(format!("data:{media_type};base64,{data}")),
                    file_id: None,
                },
            },
            FileSource::FileId { id, .. } => UserPart::File {
                file: WireFile {
                    filename: filename.as_deref(),
                    file_data: None,
                    file_id: Some(id),
                },
            },
            // Refused before lowering (`accepts`).
            FileSource::Url { .. } => return None,
        },
        ContentBlock::Audio { format, data } => UserPart::InputAudio {
            input_audio: WireAudio {
                data,
                format: format.as_str(),
            },
        },
        _ => return None,
    })
}

/// Whether a tool result has media that go in the follow-up user message.
fn has_media(message: &Message) -> bool {
    match message {
        Message::Tool(m) => m.content.iter().any(is_media),
        _ => false,
    }
}

/// A block that is not text in a tool message (a text document is text there).
pub(super) fn is_media(block: &ContentBlock) -> bool {
    !matches!(PartKind::of(block), None | Some(PartKind::TextDocument))
}

/// The user message carrying the media of the run of tool results `results`, if any has
/// some.
pub(super) fn tool_media(results: &[Message]) -> Option<ToolMedia<'_>> {
    results
        .iter()
        .any(has_media)
        .then_some(ToolMedia { results })
}

/// The follow-up user message of a run of tool results (see the module notes).
pub(super) struct ToolMedia<'a> {
    results: &'a [Message],
}

impl Serialize for ToolMedia<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("role", "user")?;
        map.serialize_entry("content", &ToolMediaParts(self.results))?;
        map.end()
    }
}

struct ToolMediaParts<'a>(&'a [Message]);

impl Serialize for ToolMediaParts<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for message in self.0 {
            let Message::Tool(m) = message else { continue };
            if !m.content.iter().any(is_media) {
                continue;
            }
            let label = format!(
                "The result of tool call `{}` (`{}`) includes:",
                m.call_id, m.name
            );
            seq.serialize_element(&UserPart::Text { text: &label })?;
            for block in m.content.iter().filter(|b| is_media(b)) {
                if let Some(part) = part(block) {
                    seq.serialize_element(&part)?;
                }
            }
        }
        seq.end()
    }
}
