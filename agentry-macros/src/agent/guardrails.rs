//! `#[agent(guardrails(input(..), output(..), tool_input(..), tool_output(..)))]`: each
//! guardrail with its kind, expanded to the builder method of that kind, spanned on the
//! user's expression (so a guardrail for another context or output type is reported there).

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::ext::IdentExt;
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

const KINDS: [(&str, &str); 4] = [
    ("input", "input_guardrail"),
    ("output", "output_guardrail"),
    ("tool_input", "tool_input_guardrail"),
    ("tool_output", "tool_output_guardrail"),
];

const USAGE: &str = "write each guardrail inside its kind: `guardrails(input(MaxLength::chars(4000)), output(NoSecrets), tool_input(..), tool_output(..))`";

/// One declared guardrail.
pub struct GuardrailAttr {
    /// The builder method for its kind.
    method: Ident,
    /// The guardrail value.
    value: Expr,
}

/// `guardrails(kind(expr), ...)`; every mistake is collected.
pub fn parse(input: ParseStream<'_>, key: &Ident) -> syn::Result<Vec<GuardrailAttr>> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(key.span(), USAGE));
    }
    let content;
    syn::parenthesized!(content in input);
    let mut guards = Vec::new();
    let mut errors: Vec<syn::Error> = Vec::new();
    while !content.is_empty() {
        let kind = content.call(Ident::parse_any)?;
        let name = kind.to_string();
        let Some((_, method)) = KINDS.iter().find(|(k, _)| *k == name) else {
            // Most likely a guardrail written without its kind.
            return Err(syn::Error::new(
                kind.span(),
                format!(
                    "`{name}` is not a kind of guardrail; the kinds are input, output, tool_input, tool_output: {USAGE}"
                ),
            ));
        };
        if !content.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                kind.span(),
                format!("write the guardrail in parentheses: `{name}(MyGuardrail)`"),
            ));
        }
        let inner;
        let parens = syn::parenthesized!(inner in content);
        let values = syn::punctuated::Punctuated::<Expr, Token![,]>::parse_terminated(&inner)?;
        if values.is_empty() {
            errors.push(syn::Error::new(
                parens.span.join(),
                format!("`{name}()` is empty: write the guardrail inside, `{name}(MyGuardrail)`"),
            ));
        }
        for value in values {
            guards.push(GuardrailAttr {
                method: Ident::new(method, kind.span()),
                value,
            });
        }
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(guards),
    }
}

/// The builder calls, in the order declared.
pub fn configure(guards: &[GuardrailAttr]) -> TokenStream {
    guards
        .iter()
        .map(|g| {
            let (method, value) = (&g.method, &g.value);
            quote_spanned! {value.span()=> .#method(#value) }
        })
        .collect()
}
