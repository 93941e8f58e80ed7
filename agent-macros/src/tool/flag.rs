//! A switch of `#[tool(...)]`: written alone (`strict`) or with a bool (`strict = false`).
//! Any other value is one error on it, saying a bool is expected.

use darling::{Error, FromMeta};
use syn::{Expr, ExprLit, Lit, Meta};

/// A bool-valued key of `#[tool(...)]`.
#[derive(Default, Clone, Copy)]
pub struct Switch(pub Option<bool>);

impl Switch {
    pub fn is_on(self) -> bool {
        self.0.unwrap_or(false)
    }
}

impl FromMeta for Switch {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = item
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match item {
            Meta::Path(_) => Ok(Switch(Some(true))),
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Bool(b), ..
                }) => Ok(Switch(Some(b.value))),
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
