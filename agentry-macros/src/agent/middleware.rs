//! `#[agent(middleware(...), review(...))]`: middleware values, and a human-in-the-loop
//! review policy checked against the agent's tools before anything is expanded.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Token};

use super::codegen::{ToolEntry, variant_ident};

/// One tool under review: `send_email(approve, edit)`.
pub struct ReviewAttr {
    pub tool: Ident,
    pub decisions: Vec<Ident>,
}

const DECISIONS: [(&str, &str); 4] = [
    ("approve", "Approve"),
    ("edit", "Edit"),
    ("reject", "Reject"),
    ("respond", "Respond"),
];

/// `middleware(expr, expr)`.
pub fn parse_middleware(input: ParseStream<'_>, key: &Ident) -> syn::Result<Vec<Expr>> {
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(
            key.span(),
            "write the middleware in parentheses: `middleware(ModelRetry::new(3), Audit)`",
        ));
    }
    let content;
    syn::parenthesized!(content in input);
    let list = Punctuated::<Expr, Token![,]>::parse_terminated(&content)?;
    let errors = list
        .iter()
        .filter_map(literal_entry(
            "middleware",
            "middleware",
            "ModelRetry::new(3)",
        ))
        .chain(list.iter().filter_map(uncalled_constructor));
    match errors.reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(list.into_iter().collect()),
    }
}

/// An error for a type's function named but not called (`middleware(ModelRetry::new)`): a
/// path whose last segment is lower case after a capitalised one is a function, not a value.
fn uncalled_constructor(entry: &Expr) -> Option<syn::Error> {
    let Expr::Path(path) = entry else { return None };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let [.., ty, function] = segments.as_slice() else {
        return None;
    };
    let lower = |s: &str| s.starts_with(|c: char| c.is_ascii_lowercase());
    if !lower(function) || lower(ty) {
        return None;
    }
    Some(syn::Error::new_spanned(
        path,
        format!(
            "`{ty}::{function}` is a function: call it to make the middleware, `middleware({ty}::{function}(..))`"
        ),
    ))
}

/// An error for a literal written where a value of a type is meant (`middleware("Logger")`):
/// a string that names a type is shown written as code, anything else gets `example`.
pub fn literal_entry(
    key: &'static str,
    what: &'static str,
    example: &'static str,
) -> impl Fn(&Expr) -> Option<syn::Error> {
    move |entry| {
        let Expr::Lit(lit) = entry else { return None };
        let written = match &lit.lit {
            syn::Lit::Str(s)
                if s.value().starts_with(|c: char| c.is_ascii_uppercase())
                    && syn::parse_str::<syn::Path>(&s.value()).is_ok() =>
            {
                s.value()
            }
            _ => example.to_string(),
        };
        Some(syn::Error::new(
            lit.span(),
            format!("`{key}(..)` takes a {what} value, not a literal: write `{key}({written})`"),
        ))
    }
}

/// The rest of a parenthesized list after an error, so the attribute's parser reports only
/// that error (tokens left unread in a group are a second "unexpected token").
fn drain(content: ParseStream<'_>) {
    let _ = content.parse::<TokenStream>();
}

/// A string literal where an identifier belongs (`review("send_email")`): one error saying
/// to write the identifier.
fn ident_not_string(input: ParseStream<'_>, what: &str, example: &str) -> syn::Result<Ident> {
    if input.peek(syn::LitStr) {
        let lit: syn::LitStr = input.parse()?;
        let written = syn::parse_str::<Ident>(&lit.value())
            .map(|i| i.to_string())
            .unwrap_or_else(|_| example.to_string());
        return Err(syn::Error::new(
            lit.span(),
            format!("write the {what} as a name, not a string: `{written}`"),
        ));
    }
    input.parse()
}

/// `review(tool(decision, ...), ...)`; every decision is checked here, the tools later.
pub fn parse_review(input: ParseStream<'_>, key: &Ident) -> syn::Result<Vec<ReviewAttr>> {
    let usage = "write the reviewed tools with their allowed decisions: `review(send_email(approve, edit, reject, respond))`";
    if !input.peek(syn::token::Paren) {
        return Err(syn::Error::new(key.span(), usage));
    }
    let content;
    syn::parenthesized!(content in input);
    let mut reviews = Vec::new();
    let mut errors: Vec<syn::Error> = Vec::new();
    while !content.is_empty() {
        let tool = ident_not_string(&content, "reviewed tool", "send_email")
            .inspect_err(|_| drain(&content))?;
        if !content.peek(syn::token::Paren) {
            return Err(syn::Error::new(
                tool.span(),
                format!(
                    "say which decisions a reviewer may take on `{tool}`: `{tool}(approve, edit, reject, respond)`"
                ),
            ));
        }
        let inner;
        let parens = syn::parenthesized!(inner in content);
        let decisions = parse_decisions(&inner, &tool, &mut errors).inspect_err(|_| {
            drain(&inner);
            drain(&content);
        })?;
        if decisions.is_empty() {
            errors.push(syn::Error::new(
                parens.span.join(),
                format!(
                    "a review of `{tool}` needs at least one allowed decision: write `{tool}(approve)`, or any of approve, edit, reject, respond"
                ),
            ));
        }
        for d in &decisions {
            if !DECISIONS.iter().any(|(name, _)| d == name) {
                let lower = d.to_string().to_lowercase();
                let message = if DECISIONS.iter().any(|(name, _)| *name == lower) {
                    format!(
                        "decisions are written in lower case here: write `{lower}` (the builder's `DecisionKind::{d}` is the same decision)"
                    )
                } else {
                    format!(
                        "unknown decision `{d}`; the decisions are approve, edit, reject, respond"
                    )
                };
                errors.push(syn::Error::new(d.span(), message));
            }
        }
        for (i, d) in decisions.iter().enumerate() {
            if decisions[..i].contains(d) {
                let once: Vec<String> = decisions
                    .iter()
                    .enumerate()
                    .filter(|(j, e)| !decisions[..*j].contains(e))
                    .map(|(_, e)| e.to_string())
                    .collect();
                errors.push(syn::Error::new(
                    d.span(),
                    format!(
                        "`{d}` is listed twice for `{tool}`: list each decision once, `{tool}({})`",
                        once.join(", ")
                    ),
                ));
                break;
            }
        }
        if let Some(first) = reviews.iter().find(|r: &&ReviewAttr| r.tool == tool) {
            let mut all: Vec<String> = first.decisions.iter().map(ToString::to_string).collect();
            for d in &decisions {
                if !all.contains(&d.to_string()) {
                    all.push(d.to_string());
                }
            }
            errors.push(syn::Error::new(
                tool.span(),
                format!(
                    "`{tool}` is reviewed twice, and one review would replace the other: list its decisions once, `{tool}({})`",
                    all.join(", ")
                ),
            ));
        }
        reviews.push(ReviewAttr { tool, decisions });
        if !content.is_empty() {
            content.parse::<Token![,]>()?;
        }
    }
    match errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    }) {
        Some(e) => Err(e),
        None => Ok(reviews),
    }
}

/// The decisions of one reviewed tool, separated by commas; `|` (the builder's
/// `Approve | Edit` style) is one error for the list, not a parse failure of the attribute.
fn parse_decisions(
    inner: ParseStream<'_>,
    tool: &Ident,
    errors: &mut Vec<syn::Error>,
) -> syn::Result<Vec<Ident>> {
    let mut decisions = Vec::new();
    let mut piped = false;
    while !inner.is_empty() {
        decisions.push(ident_not_string(inner, "decision", "approve")?);
        if inner.is_empty() {
            break;
        }
        if inner.peek(Token![|]) {
            let pipe: Token![|] = inner.parse()?;
            if !piped {
                piped = true;
                errors.push(syn::Error::new(
                    pipe.span,
                    format!(
                        "separate the decisions with commas: `{tool}(approve, edit)` (`Approve | Edit` is the builder's style, `HumanInTheLoop::review_tool`)"
                    ),
                ));
            }
        } else {
            inner.parse::<Token![,]>()?;
        }
    }
    Ok(decisions)
}

/// `.middleware(..)` calls: the review policy first, then the listed middleware in order.
/// `after_model` hooks run in reverse, so the review sees each answer last, as the other
/// middleware left it. A review of a tool the agent does not have is left out, with an error
/// pushed to `errors`.
pub fn configure(
    sdk: &TokenStream,
    middleware: &[Expr],
    reviews: &[ReviewAttr],
    entries: &[ToolEntry],
    errors: &mut Vec<syn::Error>,
) -> TokenStream {
    let mut policy = Vec::new();
    for review in reviews {
        let variant = variant_ident(Some(&review.tool));
        let Some(entry) = entries.iter().find(|e| e.variant == variant) else {
            let hint = if entries.is_empty() {
                "this agent has no tools".to_string()
            } else {
                format!(
                    "review one of its tools (listed as {})",
                    tool_names(entries)
                )
            };
            errors.push(syn::Error::new(
                review.tool.span(),
                format!("`{}` is not a tool of this agent; {hint}", review.tool),
            ));
            continue;
        };
        let ty = &entry.ty;
        let mut kinds = review.decisions.iter().map(|d| {
            let variant = DECISIONS
                .iter()
                .find(|(name, _)| d == name)
                .map(|(_, v)| Ident::new(v, d.span()))
                .unwrap_or_else(|| Ident::new("Approve", Span::call_site()));
            quote!(#sdk::middleware::DecisionKind::#variant)
        });
        // Never empty: `parse_review` refuses an empty list.
        let first = kinds.next();
        policy.push(quote! {
            .review_tool::<#ty>(#sdk::middleware::Allowed::from(#first) #(| #kinds)*)
        });
    }
    let review = (!policy.is_empty()).then(|| {
        quote! { .middleware(#sdk::middleware::HumanInTheLoop::new() #(#policy)*) }
    });
    let listed = middleware
        .iter()
        .map(|m| quote_spanned! {m.span()=> .middleware(#m) });
    quote! { #review #(#listed)* }
}

fn tool_names(entries: &[ToolEntry]) -> String {
    entries
        .iter()
        .map(|e| format!("`{}`", snake(&e.variant.to_string())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `SendEmail` → `send_email` (the way tools are listed).
fn snake(camel: &str) -> String {
    let mut out = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}
