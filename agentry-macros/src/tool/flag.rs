//! A switch of `#[tool(...)]` or `#[output(...)]`: written alone (`strict`) or with a bool
//! (`strict = false`).
//! Any other value is one error on it, saying a bool is expected.

use darling::{Error, FromMeta};
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, ExprLit, Lit, Meta};

/// A bool-valued key of `#[tool(...)]`, with the span of the key when it was written.
#[derive(Default, Clone, Copy)]
pub struct Switch {
    value: Option<bool>,
    key: Option<Span>,
}

impl Switch {
    pub fn is_on(self) -> bool {
        self.value.unwrap_or(false)
    }

    /// The span of the key (`inline` in `inline = true`), if it was written.
    pub fn key_span(self) -> Option<Span> {
        self.key
    }
}

impl FromMeta for Switch {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = item
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let written = |value| {
            Ok(Switch {
                value: Some(value),
                key: Some(item.path().span()),
            })
        };
        match item {
            Meta::Path(_) => written(true),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                }) => written(b.value),
                other => Err(Error::custom(format!(
                    "`{key}` takes a bool: write `{key} = true`, `{key} = false` or just `{key}`"
                ))
                .with_span(other)),
            },
            Meta::List(list) => Err(Error::custom(format!(
                "`{key}` takes a bool: write `{key} = true`, `{key} = false` or just `{key}`"
            ))
            .with_span(&list.delimiter.span().join())),
        }
    }
}
