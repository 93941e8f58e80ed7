//! JSON schemas: one canonical schema per type, lowered per provider at request time.
//!
//! The canonical schema is what [schemars] generates for JSON Schema draft 2020-12, with
//! shared definitions under `$defs`. Providers accept different subsets of JSON Schema, so
//! [`lower`] rewrites the canonical schema into a [`Dialect`]. What a dialect cannot
//! represent is refused with a [`SchemaError`] before any request is sent — never rewritten
//! into something that means less.

mod canonical;
mod error;

pub use canonical::canonical_schema_for;
pub use error::SchemaError;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A provider's flavour of JSON Schema.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dialect {
    /// OpenAI structured outputs / strict function calling: closed objects, every property
    /// required, optional fields nullable, no keywords beside `$ref`.
    #[serde(rename = "openai_strict")]
    OpenAiStrict,
    /// OpenAI function calling without `strict`.
    #[serde(rename = "openai")]
    OpenAi,
    /// Anthropic's `input_schema`.
    Anthropic,
    /// Google Gemini's OpenAPI 3.0 subset: everything inlined, no `$ref`.
    Gemini,
}

impl Dialect {
    /// Every dialect, in a fixed order (the index used by per-dialect caches).
    pub const ALL: [Dialect; 4] = [
        Dialect::OpenAiStrict,
        Dialect::OpenAi,
        Dialect::Anthropic,
        Dialect::Gemini,
    ];

    /// The dialect's name as used in errors and snapshots.
    pub fn name(self) -> &'static str {
        match self {
            Dialect::OpenAiStrict => "openai_strict",
            Dialect::OpenAi => "openai",
            Dialect::Anthropic => "anthropic",
            Dialect::Gemini => "gemini",
        }
    }

    pub(crate) fn index(self) -> usize {
        self as usize
    }
}

impl std::fmt::Display for Dialect {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// Rewrites a canonical schema into `dialect`.
///
/// ```
/// use agentry::schema::{Dialect, lower};
/// use serde_json::json;
///
/// let canonical = json!({
///     "type": "object",
///     "properties": { "city": { "type": "string" }, "days": { "type": ["integer", "null"] } },
///     "required": ["city"]
/// });
/// let strict = lower(&canonical, Dialect::OpenAiStrict).unwrap();
/// assert_eq!(strict["additionalProperties"], false);
/// assert_eq!(strict["required"], json!(["city", "days"]));
/// ```
///
/// Every dialect first checks the schema against the size caps of [`size`] (depth, node
/// count, total size), so a huge or hostile schema from outside the program is refused before
/// anything is done with it.
pub fn lower(canonical: &Value, dialect: Dialect) -> Result<Value, SchemaError> {
    size::check(canonical, dialect)?;
    match dialect {
        Dialect::OpenAiStrict => openai_strict::lower(canonical),
        Dialect::OpenAi => openai::lower(canonical),
        Dialect::Anthropic => anthropic::lower(canonical),
        Dialect::Gemini => gemini::lower(canonical),
    }
}

/// [`lower`] for Gemini's JSON Schema fields (`parametersJsonSchema`,
/// `responseJsonSchema`): recursive references are kept (with `$defs`) instead of refused.
#[cfg(feature = "gemini")]
pub(crate) use gemini_json::lower as lower_gemini_json;

mod anthropic;
mod disjoint;
mod gemini;
#[cfg(feature = "gemini")]
mod gemini_json;
mod keywords;
mod limits;
mod merge;
mod openai;
mod openai_strict;
mod passthrough;
pub mod size;
pub(crate) mod validator;
mod walk;
