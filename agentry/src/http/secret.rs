//! API keys that never show up in `Debug`, logs or error messages.

use std::fmt;
use std::sync::Arc;

use memchr::memmem::Finder;

use crate::model::ModelError;

const REDACTED: &str = "[redacted]";

/// An API key. Its `Debug` and `Display` output is redacted; the key itself is only read when
/// a request header is built.
///
/// ```
/// use agentry::http::ApiKey;
/// let key = ApiKey::new("sk-very-secret");
/// assert_eq!(format!("{key:?}"), "ApiKey(\"[redacted]\")");
/// assert_eq!(key.expose(), "sk-very-secret");
/// assert_eq!(key.redact("bad key sk-very-secret"), "bad key [redacted]");
/// ```
#[derive(Clone)]
pub struct ApiKey(Arc<Key>);

/// The key and its searcher, built once: every answer and stream event is searched for the
/// key, so building a searcher per search would cost more than the search.
struct Key {
    text: String,
    finder: Finder<'static>,
}

impl PartialEq for ApiKey {
    fn eq(&self, other: &Self) -> bool {
        self.0.text == other.0.text
    }
}

impl Eq for ApiKey {}

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        let text = key.into();
        let finder = Finder::new(text.as_bytes()).into_owned();
        ApiKey(Arc::new(Key { text, finder }))
    }

    /// The key itself, for building the authorization header.
    pub fn expose(&self) -> &str {
        &self.0.text
    }

    /// `text` with every occurrence of the key replaced by `[redacted]` (providers sometimes
    /// echo a wrong key back in their error messages).
    pub fn redact(&self, text: &str) -> String {
        if !self.occurs_in(text.as_bytes()) {
            return text.to_owned();
        }
        text.replace(self.expose(), REDACTED)
    }

    /// Whether the key occurs in `bytes` (never for keys shorter than 8 bytes: they would
    /// redact ordinary words, and real keys are long).
    pub(crate) fn occurs_in(&self, bytes: &[u8]) -> bool {
        let key = self.0.text.len();
        // The length checks first: most stream events are far shorter than a key.
        key >= 8 && bytes.len() >= key && self.0.finder.find(bytes).is_some()
    }

    /// Whether the key occurs across the join of `before` and `after` (starting in one and
    /// ending in the other); `window` is scratch space.
    pub(crate) fn straddles(&self, before: &[u8], after: &[u8], window: &mut Vec<u8>) -> bool {
        let key = self.0.text.len();
        if key < 8 || before.is_empty() || after.is_empty() {
            return false;
        }
        window.clear();
        window.extend_from_slice(&before[before.len().saturating_sub(key - 1)..]);
        window.extend_from_slice(&after[..after.len().min(key - 1)]);
        self.0.finder.find(window).is_some()
    }

    /// `bytes` with every occurrence of the key replaced, borrowed when there is none.
    pub(crate) fn redact_bytes<'a>(&self, bytes: &'a [u8]) -> std::borrow::Cow<'a, [u8]> {
        if !self.occurs_in(bytes) {
            return std::borrow::Cow::Borrowed(bytes);
        }
        let key = self.0.text.as_bytes();
        let mut out = Vec::with_capacity(bytes.len());
        let mut rest = bytes;
        while let Some(at) = self.0.finder.find(rest) {
            out.extend_from_slice(&rest[..at]);
            out.extend_from_slice(REDACTED.as_bytes());
            rest = &rest[at + key.len()..];
        }
        out.extend_from_slice(rest);
        std::borrow::Cow::Owned(out)
    }

    /// `err` with the key redacted from every text it carries.
    ///
    /// ```
    /// use agentry::http::ApiKey;
    /// use agentry::model::ModelError;
    /// let key = ApiKey::new("sk-very-secret");
    /// let err = key.redact_error(ModelError::Stream { message: "bad key sk-very-secret".into() });
    /// assert_eq!(err.to_string(), "error in stream: bad key [redacted]");
    /// ```
    pub fn redact_error(&self, err: ModelError) -> ModelError {
        let r = |s: String| {
            if self.occurs_in(s.as_bytes()) {
                self.redact(&s)
            } else {
                s
            }
        };
        let ro = |s: Option<String>| s.map(r);
        match err {
            ModelError::Authentication { message } => ModelError::Authentication {
                message: r(message),
            },
            ModelError::PermissionDenied { message } => ModelError::PermissionDenied {
                message: r(message),
            },
            ModelError::NotFound { message } => ModelError::NotFound {
                message: r(message),
            },
            ModelError::RateLimited {
                message,
                retry_after,
            } => ModelError::RateLimited {
                message: r(message),
                retry_after,
            },
            ModelError::InvalidRequest { message, param } => ModelError::InvalidRequest {
                message: r(message),
                param: ro(param),
            },
            ModelError::ContextLengthExceeded { message } => ModelError::ContextLengthExceeded {
                message: r(message),
            },
            ModelError::Server { status, message } => ModelError::Server {
                status,
                message: r(message),
            },
            ModelError::Network(m) => ModelError::Network(r(m)),
            ModelError::Decode(m) => ModelError::Decode(r(m)),
            ModelError::Stream { message } => ModelError::Stream {
                message: r(message),
            },
            ModelError::Incomplete(m) => ModelError::Incomplete(r(m)),
            ModelError::Unsupported { model, setting } => ModelError::Unsupported {
                model: r(model),
                setting: r(setting),
            },
            ModelError::UnsupportedInput {
                provider,
                model,
                part,
                message,
                reason,
            } => ModelError::UnsupportedInput {
                provider,
                model: r(model),
                part,
                message,
                reason: r(reason),
            },
            ModelError::Schema(mut e) => {
                e.path = r(e.path);
                e.reason = r(e.reason);
                ModelError::Schema(e)
            }
            ModelError::Configuration(m) => ModelError::Configuration(r(m)),
            other @ (ModelError::Timeout(_) | ModelError::LimitExceeded { .. }) => other,
        }
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

/// Redacts `key` (if any) from `err`.
pub(crate) fn redact_error_opt(key: Option<&ApiKey>, err: ModelError) -> ModelError {
    match key {
        Some(key) => key.redact_error(err),
        None => err,
    }
}

/// Redacts `key` (if any) from `text`.
pub(crate) fn redact_opt(key: Option<&ApiKey>, text: &str) -> String {
    match key {
        Some(key) => key.redact(text),
        None => text.to_owned(),
    }
}
