//! The cassette file: one JSON object per line, one line per request and its response.
//!
//! ```text
//! {"request":{"method":"POST","url":"…/v1/chat/completions","headers":{…},"body":{…}},
//!  "response":{"status":200,"headers":{…},"body":"data: …\n\n","chunks":[7,7,…]}}
//! ```
//! (on one line). The request body is kept as JSON, the response body as text (or
//! `body_base64` when it is not UTF-8), and a streamed body also keeps the length of each
//! piece as it arrived so that a replay splits it at the same places.

use std::collections::BTreeMap;
use std::path::Path;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use bytes::Bytes;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::CassetteError;

/// One request and the response it got.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Interaction {
    pub(crate) request: Request,
    pub(crate) response: Response,
}

/// A request as sent, scrubbed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Request {
    pub(crate) method: String,
    pub(crate) url: String,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) headers: BTreeMap<String, String>,
    /// The body as JSON, or as a string when it is not JSON.
    pub(crate) body: Value,
}

/// A response as received, its headers scrubbed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Response {
    pub(crate) status: u16,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) headers: BTreeMap<String, String>,
    /// The body, when it is UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) body: Option<String>,
    /// The body, when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) body_base64: Option<String>,
    /// A streamed body: the length of each piece, in the order they arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) chunks: Option<Vec<usize>>,
    /// The connection failed after the body's bytes, with this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) cut: Option<String>,
}

impl Response {
    /// Stores `body` as text when it is UTF-8.
    pub(crate) fn set_body(&mut self, body: Vec<u8>) {
        match String::from_utf8(body) {
            Ok(text) => self.body = Some(text),
            Err(e) => self.body_base64 = Some(STANDARD.encode(e.as_bytes())),
        }
    }

    /// The body's bytes.
    pub(crate) fn bytes(&self) -> Result<Bytes, String> {
        match (&self.body, &self.body_base64) {
            (Some(_), Some(_)) => Err("the response has both `body` and `body_base64`".into()),
            (Some(text), None) => Ok(Bytes::from(text.clone())),
            (None, Some(encoded)) => STANDARD
                .decode(encoded)
                .map(Bytes::from)
                .map_err(|e| format!("`body_base64` is not base64: {e}")),
            (None, None) => Ok(Bytes::new()),
        }
    }

    /// Checks what a replay relies on: a valid status, a decodable body and piece lengths
    /// that add up to it.
    fn check(&self) -> Result<(), String> {
        if !(100..=999).contains(&self.status) {
            return Err(format!("status {} is not an HTTP status", self.status));
        }
        let len = self.bytes()?.len();
        if let Some(chunks) = &self.chunks {
            let total: usize = chunks.iter().sum();
            if total != len {
                return Err(format!(
                    "the `chunks` add up to {total} bytes but the body has {len}"
                ));
            }
        }
        Ok(())
    }
}

/// The interactions of the file at `path`, in order. Blank lines are skipped.
pub(crate) fn load(path: &Path) -> Result<Vec<Interaction>, CassetteError> {
    let text = std::fs::read_to_string(path).map_err(|source| CassetteError::Io {
        path: path.to_owned(),
        source,
    })?;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let parse_error = |message: String| CassetteError::Parse {
            path: path.to_owned(),
            line: n + 1,
            message,
        };
        let interaction: Interaction =
            serde_json::from_str(line).map_err(|e| parse_error(e.to_string()))?;
        interaction.response.check().map_err(parse_error)?;
        out.push(interaction);
    }
    Ok(out)
}

/// `interaction` as one line of the file, without its newline.
pub(crate) fn line(interaction: &Interaction) -> String {
    // Serializing plain strings, maps and JSON values cannot fail.
    serde_json::to_string(interaction).unwrap_or_default()
}
