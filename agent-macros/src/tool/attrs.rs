//! The arguments of `#[tool(...)]`.

use darling::util::{Flag, SpannedValue};
use darling::{Error, FromMeta};

use crate::docs;

/// `#[tool(name = "...", description = "...", strict = bool, return_direct, sequential)]`.
#[derive(FromMeta, Default)]
struct RawToolAttrs {
    name: Option<SpannedValue<String>>,
    description: Option<String>,
    strict: Option<bool>,
    return_direct: Flag,
    sequential: Flag,
}

/// The checked tool attributes, with doc-comment defaults applied.
pub struct ToolAttrs {
    pub name: String,
    pub description: String,
    pub strict: bool,
    pub return_direct: bool,
    pub sequential: bool,
}

impl ToolAttrs {
    pub fn parse(
        metas: &[darling::ast::NestedMeta],
        fn_ident: &syn::Ident,
        fn_attrs: &[syn::Attribute],
    ) -> darling::Result<Self> {
        let raw = RawToolAttrs::from_list(metas)?;
        let mut errors = Error::accumulator();

        let name = match raw.name {
            Some(name) => {
                if let Err(reason) = check_name(&name) {
                    errors.push(Error::custom(reason).with_span(&name.span()));
                }
                name.as_ref().clone()
            }
            None => {
                let ident = fn_ident.to_string();
                ident.strip_prefix("r#").unwrap_or(&ident).to_string()
            }
        };

        let doc_lines = docs::doc_lines(fn_attrs);
        let description = match raw.description {
            Some(d) => d,
            None => docs::first_paragraph(&doc_lines),
        };
        if description.trim().is_empty() {
            errors.push(
                Error::custom(
                    "a tool needs a description the model can read: add a `///` doc comment \
                     to the function, or `#[tool(description = \"...\")]`",
                )
                .with_span(fn_ident),
            );
        }

        errors.finish_with(ToolAttrs {
            name,
            description,
            strict: raw.strict.unwrap_or(false),
            return_direct: raw.return_direct.is_present(),
            sequential: raw.sequential.is_present(),
        })
    }
}

/// Provider tool names must match `^[A-Za-z_][A-Za-z0-9_-]{0,63}$`.
fn check_name(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    let rest_ok = chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if first_ok && rest_ok && name.len() <= 64 {
        Ok(())
    } else {
        Err(format!(
            "invalid tool name {name:?}: providers accept 1 to 64 characters, letters, digits, \
             `_` and `-`, not starting with a digit or `-` (e.g. \"get_weather\")"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::check_name;

    #[test]
    fn names() {
        assert!(check_name("get_weather").is_ok());
        assert!(check_name("_x-1").is_ok());
        assert!(check_name(&"a".repeat(64)).is_ok());
        assert!(check_name(&"a".repeat(65)).is_err());
        assert!(check_name("").is_err());
        assert!(check_name("1abc").is_err());
        assert!(check_name("-abc").is_err());
        assert!(check_name("get weather").is_err());
        assert!(check_name("wetter_prüfen").is_err());
    }
}
