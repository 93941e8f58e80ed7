//! `#[agent(guardrails(input(..), output(..), tool_input(..), tool_output(..)))]`: each
//! guardrail with its kind, expanded to the builder method of that kind, spanned on the
//! user's expression (so a guardrail for another context or output type is reported there).

use proc_macro2::TokenStream;
use quote::quote_spanned;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
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

/// `guardrails(kind(expr), ...)`; every mistake is collected, each spanned on its entry.
pub fn parse(input: ParseStream<'_>, key: &Ident) -> syn::Result<Vec<GuardrailAttr>> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(key.span(), USAGE));
    }
    let content;
    syn::parenthesized!(content in input);
    let entries = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let mut guards = Vec::new();
    let mut errors: Vec<syn::Error> = Vec::new();
    for entry in entries {
        match kind_of(&entry) {
            Some((method, values)) if values.is_empty() => {
                let kind = kind_name(&method);
                errors.push(syn::Error::new_spanned(
                    &entry,
                    format!(
                        "`{kind}()` declares no guardrail: write the guardrail inside the parentheses, e.g. `{kind}(MaxLength::chars(4000))`, or remove `{kind}()`"
                    ),
                ))
            }
            Some((method, values)) => {
                let kind = kind_name(&method);
                let literals: Vec<_> = values
                    .iter()
                    .filter_map(super::middleware::literal_entry(kind, "guardrail", "MaxLength::chars(4000)"))
                    .collect();
                if literals.is_empty() {
                    guards.extend(values.into_iter().map(|value| GuardrailAttr {
                        method: method.clone(),
                        value,
                    }));
                } else {
                    errors.extend(literals);
                }
            }
            None => errors.push(syn::Error::new_spanned(
                &entry,
                format!(
                    "say which kind of guardrail `{}` is (input, output, tool_input or tool_output): {USAGE}",
                    quote::quote!(#entry).to_string().replace(' ', "")
                ),
            )),
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

/// `kind(a, b)`: the builder method of the kind and the guardrails, when `entry` is one.
fn kind_of(entry: &Expr) -> Option<(Ident, Vec<Expr>)> {
    let Expr::Call(call) = entry else {
        return None;
    };
    let Expr::Path(path) = &*call.func else {
        return None;
    };
    let ident = path.path.get_ident()?;
    let (_, method) = KINDS.iter().find(|(kind, _)| ident == kind)?;
    Some((
        Ident::new(method, ident.span()),
        call.args.iter().cloned().collect(),
    ))
}

/// The kind as written (`input`) for its builder method (`input_guardrail`).
fn kind_name(method: &Ident) -> &'static str {
    KINDS
        .iter()
        .find(|(_, m)| method == m)
        .map_or("input", |(kind, _)| kind)
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
