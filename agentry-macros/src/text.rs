//! A string-valued key (`name = "..."`): any other value is one error on it, saying a string
//! is expected. (darling's own message for a wrong literal names only the literal's kind.)

use darling::{Error, FromMeta};
use proc_macro2::Span;
use syn::{Expr, ExprLit, Lit, LitStr, Meta};

/// The string literal of `key = "..."`, with its span.
#[derive(Clone)]
pub struct Text(pub LitStr);

impl Text {
    pub fn value(&self) -> String {
        self.0.value()
    }

    pub fn span(&self) -> Span {
        self.0.span()
    }
}

impl FromMeta for Text {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = item
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let message = match key.as_str() {
            // A number alone has no unit: show the forms that parse.
            "timeout" => "`timeout` is a duration in a string, a whole number with a unit: \
                          write `timeout = \"5s\"` (or `\"500ms\"`, `\"2m\"`, `\"1h\"`)"
                .to_string(),
            _ => format!("`{key}` takes a string: write `{key} = \"...\"`"),
        };
        match item {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(s), ..
                }) => Ok(Text(s.clone())),
                other => Err(Error::custom(message).with_span(other)),
            },
            Meta::Path(p) => Err(Error::custom(message).with_span(p)),
            Meta::List(list) => {
                Err(Error::custom(message).with_span(&list.delimiter.span().join()))
            }
        }
    }
}
