//! Documents, audio and files in messages: the sources of [`ContentBlock::File`] and
//! [`ContentBlock::Audio`], the constructors for every media block, and [`PartKind`], the
//! name a provider's refusal gives the part it cannot take.
//!
//! ```
//! use agentry::{AudioFormat, ContentBlock, Message};
//!
//! let question = Message::user_parts(vec![
//!     ContentBlock::text("Summarize the report and the voice memo."),
//!     ContentBlock::pdf(b"%PDF-1.7 ...".to_vec()),
//!     ContentBlock::audio(b"RIFF....WAVE".to_vec(), AudioFormat::Wav),
//!     ContentBlock::file_url("https://example.com/notes.pdf", "application/pdf"),
//!     ContentBlock::file_id("file-abc123"),
//! ]);
//! // Plain serde types: a conversation with media is stored and reloaded like any other.
//! let json = serde_json::to_string(&question).unwrap();
//! assert_eq!(serde_json::from_str::<Message>(&json).unwrap(), question);
//! ```

use std::fmt;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::{Deserialize, Serialize};

use crate::message::{ContentBlock, ImageSource, Message, UserMessage};

/// The media type of PDF documents.
pub const PDF: &str = "application/pdf";

/// Where a document's or file's content comes from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum FileSource {
    /// Base64-encoded bytes with their media type (`application/pdf`, `text/plain`, ...).
    Base64 {
        /// The MIME type.
        media_type: String,
        /// The base64 data.
        data: String,
    },
    /// A plain-text document, as text.
    Text {
        /// The document's text.
        text: String,
    },
    /// A URL the provider fetches.
    Url {
        /// The URL.
        url: String,
        /// The MIME type, when known (Gemini wants one; the others ignore it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
    },
    /// A file already uploaded to the provider (OpenAI and Anthropic file ids, Gemini file
    /// URIs).
    FileId {
        /// The provider's id of the file.
        id: String,
        /// The MIME type, when known.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        media_type: Option<String>,
    },
}

impl FileSource {
    /// The media type, when the source has one (`text/plain` for a text source).
    pub fn media_type(&self) -> Option<&str> {
        match self {
            FileSource::Base64 { media_type, .. } => Some(media_type),
            FileSource::Text { .. } => Some("text/plain"),
            FileSource::Url { media_type, .. } | FileSource::FileId { media_type, .. } => {
                media_type.as_deref()
            }
        }
    }
}

/// The encoding of an audio clip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AudioFormat {
    /// WAV (`audio/wav`).
    Wav,
    /// MP3 (`audio/mp3`).
    Mp3,
    /// FLAC (`audio/flac`).
    Flac,
    /// Ogg Vorbis (`audio/ogg`).
    Ogg,
    /// AAC (`audio/aac`).
    Aac,
    /// AIFF (`audio/aiff`).
    Aiff,
}

impl AudioFormat {
    /// The format's name as OpenAI's `input_audio.format` spells it (`wav`, `mp3`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            AudioFormat::Wav => "wav",
            AudioFormat::Mp3 => "mp3",
            AudioFormat::Flac => "flac",
            AudioFormat::Ogg => "ogg",
            AudioFormat::Aac => "aac",
            AudioFormat::Aiff => "aiff",
        }
    }

    /// The format a MIME type names (`audio/wav`, `audio/x-wav`, `audio/mpeg`, ...; case and
    /// parameters ignored), or `None` for a type that is not one of these formats.
    ///
    /// ```
    /// use agentry::AudioFormat;
    ///
    /// assert_eq!(AudioFormat::from_media_type("audio/mpeg"), Some(AudioFormat::Mp3));
    /// assert_eq!(AudioFormat::from_media_type("Audio/WAV; rate=16000"), Some(AudioFormat::Wav));
    /// assert_eq!(AudioFormat::from_media_type("audio/opus"), None);
    /// ```
    pub fn from_media_type(media_type: &str) -> Option<AudioFormat> {
        let essence = media_type.split(';').next().unwrap_or("").trim();
        let subtype = essence
            .to_ascii_lowercase()
            .strip_prefix("audio/")?
            .to_owned();
        Some(match subtype.as_str() {
            "wav" | "wave" | "x-wav" | "vnd.wave" => AudioFormat::Wav,
            "mp3" | "mpeg" | "mpeg3" | "x-mp3" => AudioFormat::Mp3,
            "flac" | "x-flac" => AudioFormat::Flac,
            "ogg" | "vorbis" => AudioFormat::Ogg,
            "aac" | "x-aac" => AudioFormat::Aac,
            "aiff" | "x-aiff" => AudioFormat::Aiff,
            _ => return None,
        })
    }

    /// The MIME type (`audio/wav`, `audio/mp3`, ...), as Gemini lists them.
    pub fn media_type(self) -> &'static str {
        match self {
            AudioFormat::Wav => "audio/wav",
            AudioFormat::Mp3 => "audio/mp3",
            AudioFormat::Flac => "audio/flac",
            AudioFormat::Ogg => "audio/ogg",
            AudioFormat::Aac => "audio/aac",
            AudioFormat::Aiff => "audio/aiff",
        }
    }
}

/// What kind of media a content block is: the part a refusal
/// ([`ModelError::UnsupportedInput`](crate::model::ModelError::UnsupportedInput)) names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartKind {
    /// An image.
    Image,
    /// A PDF document.
    Pdf,
    /// A plain-text document.
    TextDocument,
    /// An audio clip.
    Audio,
    /// Any other file (or an uploaded file whose type is not given).
    File,
}

impl PartKind {
    /// The kind of `block`; `None` for text, reasoning and provider-specific blocks.
    ///
    /// A file is classified by its media type: `application/pdf` is a PDF, `text/*` a text
    /// document, `audio/*` audio and `image/*` an image.
    ///
    /// ```
    /// use agentry::{AudioFormat, ContentBlock, PartKind};
    ///
    /// assert_eq!(PartKind::of(&ContentBlock::pdf(vec![1])), Some(PartKind::Pdf));
    /// assert_eq!(PartKind::of(&ContentBlock::audio(vec![1], AudioFormat::Mp3)), Some(PartKind::Audio));
    /// assert_eq!(PartKind::of(&ContentBlock::file_id("file-1")), Some(PartKind::File));
    /// assert_eq!(PartKind::of(&ContentBlock::text("hi")), None);
    /// ```
    pub fn of(block: &ContentBlock) -> Option<PartKind> {
        match block {
            ContentBlock::Image { .. } => Some(PartKind::Image),
            ContentBlock::Audio { .. } => Some(PartKind::Audio),
            ContentBlock::File { source, .. } => Some(match source {
                FileSource::Text { .. } => PartKind::TextDocument,
                other => Self::of_media_type(other.media_type()),
            }),
            _ => None,
        }
    }

    fn of_media_type(media_type: Option<&str>) -> PartKind {
        let Some(mt) = media_type else {
            return PartKind::File;
        };
        let mt = mt.trim().to_ascii_lowercase();
        if mt == PDF {
            PartKind::Pdf
        } else if mt.starts_with("text/") {
            PartKind::TextDocument
        } else if mt.starts_with("audio/") {
            PartKind::Audio
        } else if mt.starts_with("image/") {
            PartKind::Image
        } else {
            PartKind::File
        }
    }
}

impl fmt::Display for PartKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PartKind::Image => "an image part",
            PartKind::Pdf => "a PDF document part",
            PartKind::TextDocument => "a text document part",
            PartKind::Audio => "an audio part",
            PartKind::File => "a file part",
        })
    }
}

/// Why a file could not be read into a content block.
#[derive(Debug, thiserror::Error)]
pub enum MediaError {
    /// The file could not be read.
    #[error("could not read {path}: {source}")]
    Read {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is larger than the cap given.
    #[error("{path} is {size} bytes, over the cap of {max}")]
    TooLarge {
        /// The path.
        path: String,
        /// Its size.
        size: u64,
        /// The cap.
        max: u64,
    },
    /// The file's extension names no media type this SDK knows; use
    /// [`ContentBlock::file_bytes`] with the type.
    #[error("cannot tell the media type of {path} from its extension")]
    UnknownType {
        /// The path.
        path: String,
    },
}

impl ContentBlock {
    /// An image from its bytes and media type (`image/png`, ...), sent inline.
    pub fn image(bytes: impl AsRef<[u8]>, media_type: impl Into<String>) -> Self {
        ContentBlock::Image {
            source: ImageSource::Base64 {
                media_type: media_type.into(),
                data: STANDARD.encode(bytes),
            },
        }
    }

    /// An image the provider fetches from `url`.
    pub fn image_url(url: impl Into<String>) -> Self {
        ContentBlock::Image {
            source: ImageSource::Url { url: url.into() },
        }
    }

    /// A PDF document from its bytes.
    ///
    /// ```
    /// use agentry::{ContentBlock, FileSource};
    ///
    /// let block = ContentBlock::pdf(b"%PDF-1.7".to_vec());
    /// let ContentBlock::File { source: FileSource::Base64 { media_type, data }, .. } = block else {
    ///     unreachable!()
    /// };
    /// assert_eq!((media_type.as_str(), data.as_str()), ("application/pdf", "JVBERi0xLjc="));
    /// ```
    pub fn pdf(bytes: impl AsRef<[u8]>) -> Self {
        Self::file_bytes(bytes, PDF)
    }

    /// A file from its bytes and media type, sent inline (base64).
    pub fn file_bytes(bytes: impl AsRef<[u8]>, media_type: impl Into<String>) -> Self {
        ContentBlock::File {
            source: FileSource::Base64 {
                media_type: media_type.into(),
                data: STANDARD.encode(bytes),
            },
            filename: None,
        }
    }

    /// A plain-text document (Anthropic takes it as a citable `document`; the other providers
    /// as text).
    pub fn text_document(text: impl Into<String>) -> Self {
        ContentBlock::File {
            source: FileSource::Text { text: text.into() },
            filename: None,
        }
    }

    /// A file the provider fetches from `url`, of the given media type.
    pub fn file_url(url: impl Into<String>, media_type: impl Into<String>) -> Self {
        ContentBlock::File {
            source: FileSource::Url {
                url: url.into(),
                media_type: Some(media_type.into()),
            },
            filename: None,
        }
    }

    /// A file already uploaded to the provider, by its id (for Gemini, the file's URI).
    pub fn file_id(id: impl Into<String>) -> Self {
        ContentBlock::File {
            source: FileSource::FileId {
                id: id.into(),
                media_type: None,
            },
            filename: None,
        }
    }

    /// An audio clip from its bytes.
    pub fn audio(bytes: impl AsRef<[u8]>, format: AudioFormat) -> Self {
        ContentBlock::Audio {
            format,
            data: STANDARD.encode(bytes),
        }
    }

    /// This file block with a file name (OpenAI shows it to the model; other blocks are
    /// returned unchanged).
    ///
    /// ```
    /// use agentry::ContentBlock;
    ///
    /// let block = ContentBlock::pdf(vec![0]).with_filename("report.pdf");
    /// assert!(matches!(block, ContentBlock::File { filename: Some(ref n), .. } if n == "report.pdf"));
    /// ```
    pub fn with_filename(self, name: impl Into<String>) -> Self {
        match self {
            ContentBlock::File { source, .. } => ContentBlock::File {
                source,
                filename: Some(name.into()),
            },
            other => other,
        }
    }

    /// Reads a file into a block: an image, a PDF, a text document or audio, by the file's
    /// extension (`png`, `jpg`/`jpeg`, `gif`, `webp`, `pdf`, `txt`/`md`/`csv`, `wav`, `mp3`,
    /// `flac`, `ogg`, `aac`, `aiff`), refusing files over `max_bytes`. The file name is kept.
    ///
    /// ```
    /// use agentry::{ContentBlock, PartKind};
    ///
    /// let path = std::env::temp_dir().join(format!("agentry-doc-{}.pdf", std::process::id()));
    /// std::fs::write(&path, b"%PDF-1.7").unwrap();
    /// let block = ContentBlock::from_path(&path, 1 << 20).unwrap();
    /// assert_eq!(PartKind::of(&block), Some(PartKind::Pdf));
    /// assert!(ContentBlock::from_path(&path, 4).is_err()); // over the cap
    /// std::fs::remove_file(&path).unwrap();
    /// ```
    pub fn from_path(path: impl AsRef<Path>, max_bytes: u64) -> Result<Self, MediaError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let read_err = |source| MediaError::Read {
            path: shown.clone(),
            source,
        };
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .unwrap_or_default();
        enum Kind {
            Image(&'static str),
            File(&'static str),
            Text,
            Audio(AudioFormat),
        }
        let kind = match ext.as_str() {
            "png" => Kind::Image("image/png"),
            "jpg" | "jpeg" => Kind::Image("image/jpeg"),
            "gif" => Kind::Image("image/gif"),
            "webp" => Kind::Image("image/webp"),
            "pdf" => Kind::File(PDF),
            "txt" | "md" | "csv" => Kind::Text,
            "wav" => Kind::Audio(AudioFormat::Wav),
            "mp3" => Kind::Audio(AudioFormat::Mp3),
            "flac" => Kind::Audio(AudioFormat::Flac),
            "ogg" => Kind::Audio(AudioFormat::Ogg),
            "aac" => Kind::Audio(AudioFormat::Aac),
            "aiff" | "aif" => Kind::Audio(AudioFormat::Aiff),
            _ => return Err(MediaError::UnknownType { path: shown }),
        };
        let size = std::fs::metadata(path).map_err(read_err)?.len();
        if size > max_bytes {
            return Err(MediaError::TooLarge {
                path: shown,
                size,
                max: max_bytes,
            });
        }
        let bytes = std::fs::read(path).map_err(read_err)?;
        // The file may have grown between the two calls.
        if bytes.len() as u64 > max_bytes {
            return Err(MediaError::TooLarge {
                path: shown,
                size: bytes.len() as u64,
                max: max_bytes,
            });
        }
        let name = path.file_name().and_then(|n| n.to_str()).map(str::to_owned);
        let block = match kind {
            Kind::Image(mt) => return Ok(ContentBlock::image(bytes, mt)),
            Kind::Audio(format) => return Ok(ContentBlock::audio(bytes, format)),
            Kind::File(mt) => ContentBlock::file_bytes(bytes, mt),
            Kind::Text => ContentBlock::text_document(String::from_utf8_lossy(&bytes)),
        };
        Ok(match name {
            Some(name) => block.with_filename(name),
            None => block,
        })
    }
}

/// The name a file goes by when it was given none (OpenAI wants one with `file_data`).
pub(crate) fn default_filename(media_type: &str) -> &'static str {
    if media_type.eq_ignore_ascii_case(PDF) {
        "document.pdf"
    } else if media_type.starts_with("text/") {
        "document.txt"
    } else {
        "file"
    }
}

impl Message {
    /// A user message of several blocks: text, images, documents, audio, in order.
    pub fn user_parts(content: Vec<ContentBlock>) -> Self {
        Message::User(UserMessage { content })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_types_classify_files() {
        let url = |mt: &str| ContentBlock::file_url("https://x.invalid/f", mt);
        assert_eq!(PartKind::of(&url("Application/PDF")), Some(PartKind::Pdf));
        assert_eq!(
            PartKind::of(&url("text/markdown")),
            Some(PartKind::TextDocument)
        );
        assert_eq!(PartKind::of(&url("audio/ogg")), Some(PartKind::Audio));
        assert_eq!(PartKind::of(&url("image/png")), Some(PartKind::Image));
        assert_eq!(
            PartKind::of(&url("application/vnd.ms-excel")),
            Some(PartKind::File)
        );
        assert_eq!(
            PartKind::of(&ContentBlock::text_document("hi")),
            Some(PartKind::TextDocument)
        );
    }

    #[test]
    fn unknown_extensions_and_missing_files_are_errors() {
        assert!(matches!(
            ContentBlock::from_path("/nonexistent/x.docx", 10),
            Err(MediaError::UnknownType { .. })
        ));
        assert!(matches!(
            ContentBlock::from_path("/nonexistent/x.pdf", 10),
            Err(MediaError::Read { .. })
        ));
    }
}
