//! The arguments of `#[tool(...)]`.

use darling::util::{Flag, SpannedValue};
use darling::{Error, FromMeta};

use crate::{docs, names};

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
                if let Err(reason) = names::check_provider_name(&name, "tool", "get_weather") {
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
