//! API keys that never show up in `Debug`, logs or error messages.

use std::fmt;

/// An API key. Its `Debug` and `Display` output is redacted; the key itself is only read when
/// a request header is built.
///
/// ```
/// use agent_sdk::http::ApiKey;
/// let key = ApiKey::new("sk-very-secret");
/// assert_eq!(format!("{key:?}"), "ApiKey(\"[redacted]\")");
/// assert_eq!(key.expose(), "sk-very-secret");
/// assert_eq!(key.redact("bad key sk-very-secret"), "bad key [redacted]");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        ApiKey(key.into())
    }

    /// The key itself, for building the authorization header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// `text` with every occurrence of the key replaced by `[redacted]` (providers sometimes
    /// echo a wrong key back in their error messages).
    pub fn redact(&self, text: &str) -> String {
        // Short keys would redact ordinary words; real keys are long.
        if self.0.len() < 8 || !text.contains(&self.0) {
            return text.to_owned();
        }
        text.replace(&self.0, "[redacted]")
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(\"[redacted]\")")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

/// Redacts `key` (if any) from `text`.
pub(crate) fn redact_opt(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(key) => key.redact(text),
        None => text.to_owned(),
    }
}
