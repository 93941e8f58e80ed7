//! Documents for the Messages API: a file as a `document` block (a PDF inline, by URL or by
//! file id; plain text as a `text` source), an image file as an `image` block, and what the
//! API refuses (audio, other inline file types).

use serde_json::{Value, json};

use crate::media::FileSource;
use crate::message::ContentBlock;
use crate::providers::inputs::Place;

/// What the Messages API takes in user turns and in `tool_result` content: images and
/// `document` blocks (a PDF inline, by URL or file id; plain text); no audio, and no other
/// inline file type.
pub(crate) fn accepts(block: &ContentBlock, _place: Place) -> Result<(), String> {
    match block {
        ContentBlock::Audio { .. } => Err("Anthropic's Messages API takes no audio".into()),
        ContentBlock::File {
            source: FileSource::Base64 { media_type, data },
            ..
        } => {
            let mt = media_type.to_ascii_lowercase();
            if mt == crate::media::PDF || mt.starts_with("image/") {
                Ok(())
            } else if mt.starts_with("text/") {
                decode_text(data).map(drop)
            } else {
                Err(format!(
                    "Anthropic documents are PDFs or plain text, not `{media_type}` (send its text as a text document)"
                ))
            }
        }
        _ => Ok(()),
    }
}

/// A base64 text file's text: Anthropic's plain-text documents carry the text itself.
fn decode_text(data: &str) -> Result<String, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| format!("the text document is not valid base64: {e}"))?;
    String::from_utf8(bytes).map_err(|_| "the text document is not UTF-8".to_owned())
}

/// A file as a `document` block (an `image` block for image files).
pub(super) fn document(source: &FileSource, title: Option<&str>) -> Value {
    let is_image = source
        .media_type()
        .is_some_and(|mt| mt.to_ascii_lowercase().starts_with("image/"));
    let src = match source {
        FileSource::Base64 { media_type, data } if media_type.starts_with("text/") => {
            // Checked by `accepts`; an invalid text (not checked on this path) is sent empty.
            json!({ "type": "text", "media_type": "text/plain", "data": decode_text(data).unwrap_or_default() })
        }
        FileSource::Base64 { media_type, data } => {
            json!({ "type": "base64", "media_type": media_type, "data": data })
        }
        FileSource::Text { text } => {
            json!({ "type": "text", "media_type": "text/plain", "data": text })
        }
        FileSource::Url { url, .. } => json!({ "type": "url", "url": url }),
        FileSource::FileId { id, .. } => json!({ "type": "file", "file_id": id }),
    };
    if is_image {
        return json!({ "type": "image", "source": src });
    }
    let mut block = json!({ "type": "document", "source": src });
    if let Some(title) = title {
        block["title"] = json!(title);
    }
    block
}
