//! What a tool parameter's type may not be (a borrow, `&mut`, `impl Trait`), and the SDK's
//! extractor types a parameter is recognized as.

use quote::ToTokens;
use syn::{Ident, Type, TypeReference};

/// The SDK's extractor types: parameters of these types are injected without `#[inject]`.
const EXTRACTORS: &[&str] = &[
    "Context",
    "State",
    "Store",
    "ToolCallId",
    "StreamWriter",
    "Interrupt",
];

/// `Option<Context<User>>` and the like: the wrapper's name and the extractor's, when `ty` is a
/// generic type whose first type argument is one of the SDK's extractor types.
pub(super) fn wrapped_extractor(ty: &Type) -> Option<(String, &'static str)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let inner = args.args.iter().find_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t),
        _ => None,
    })?;
    extractor_name(inner).map(|name| (last.ident.to_string(), name))
}

/// The extractor name if `ty` is one of the SDK's extractor types, by its last path segment.
pub(super) fn extractor_name(ty: &Type) -> Option<&'static str> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    EXTRACTORS.iter().copied().find(|name| last.ident == name)
}

pub(super) fn contains_impl_trait(ty: &Type) -> bool {
    match ty {
        Type::ImplTrait(_) => true,
        Type::Array(a) => contains_impl_trait(&a.elem),
        Type::Slice(s) => contains_impl_trait(&s.elem),
        Type::Paren(p) => contains_impl_trait(&p.elem),
        Type::Group(g) => contains_impl_trait(&g.elem),
        Type::Ptr(p) => contains_impl_trait(&p.elem),
        Type::Reference(r) => contains_impl_trait(&r.elem),
        Type::Tuple(t) => t.elems.iter().any(contains_impl_trait),
        Type::Path(p) => p.path.segments.iter().any(|seg| match &seg.arguments {
            syn::PathArguments::AngleBracketed(args) => args
                .args
                .iter()
                .any(|arg| matches!(arg, syn::GenericArgument::Type(t) if contains_impl_trait(t))),
            _ => false,
        }),
        _ => false,
    }
}

/// A borrowed part of a parameter type.
pub(super) enum Borrow<'a> {
    /// `&str` in `Vec<&str>`.
    Reference(&'a TypeReference),
    /// `'a` in `Cow<'a, str>`.
    Lifetime(&'a syn::Lifetime),
}

impl Borrow<'_> {
    /// Its tokens, to span an error on.
    pub(super) fn tokens(&self) -> &dyn ToTokens {
        match self {
            Borrow::Reference(r) => *r,
            Borrow::Lifetime(l) => *l,
        }
    }
}

/// The first borrowed part of a parameter type (`&str` in `Vec<&str>`, `'a` in `Cow<'a, str>`).
pub(super) fn find_borrow(ty: &Type) -> Option<Borrow<'_>> {
    match ty {
        Type::Reference(r) => Some(Borrow::Reference(r)),
        Type::Array(a) => find_borrow(&a.elem),
        Type::Slice(s) => find_borrow(&s.elem),
        Type::Paren(p) => find_borrow(&p.elem),
        Type::Group(g) => find_borrow(&g.elem),
        Type::Tuple(t) => t.elems.iter().find_map(find_borrow),
        Type::Path(p) => p.path.segments.iter().find_map(|seg| match &seg.arguments {
            syn::PathArguments::AngleBracketed(args) => {
                args.args.iter().find_map(|arg| match arg {
                    syn::GenericArgument::Type(t) => find_borrow(t),
                    syn::GenericArgument::Lifetime(l) if l.ident != "static" => {
                        Some(Borrow::Lifetime(l))
                    }
                    _ => None,
                })
            }
            _ => None,
        }),
        _ => None,
    }
}

/// The error for a borrow inside a parameter's type (`Vec<&str>`, `Context<&str>`), at the
/// borrow: the type to write instead, with each borrowed part owned.
pub(super) fn inner_borrow_message(ty: &Type, borrow: &Borrow<'_>) -> String {
    let written = tidy(&ty.to_token_stream().to_string());
    let borrowed = tidy(&borrow.tokens().to_token_stream().to_string());
    let owned = match borrow {
        Borrow::Reference(reference) => owned_text(reference),
        // A lifetime argument (`Cow<'a, str>`): the type without it is not known here.
        Borrow::Lifetime(_) => {
            return format!(
                "a tool parameter must be an owned type, without the lifetime `{borrowed}`: the \
                 model's arguments are parsed into owned values"
            );
        }
    };
    let fixed = written.replacen(&borrowed, &owned, 1);
    match extractor_name(ty) {
        Some("Context") => format!(
            "an agent's context is owned, and a tool reads it as `{fixed}`: write `{fixed}` \
             here and `context = {owned}` on the agent"
        ),
        Some("State") => format!(
            "an agent's state is owned, and a tool reads it as `{fixed}`: write `{fixed}` \
             here and `state = {owned}` on the agent"
        ),
        _ => format!(
            "a tool parameter must be an owned type: write `{fixed}`, not `{written}`; the \
             model's arguments are parsed into owned values"
        ),
    }
}

/// The owned type a person means by a reference: `String` for `&str`, `Vec<T>` for `&[T]`,
/// `T` for `&T` (also for an agent's borrowed `context` or `state`).
pub(crate) fn owned_text(reference: &TypeReference) -> String {
    match &*reference.elem {
        Type::Path(p) if p.path.is_ident("str") => "String".to_string(),
        Type::Slice(slice) => format!("Vec<{}>", tidy(&slice.elem.to_token_stream().to_string())),
        other => tidy(&other.to_token_stream().to_string()),
    }
}

/// The error for a parameter taken by reference: an extractor type by value, anything else
/// owned.
pub(super) fn reference_message(ident: &Ident, reference: &TypeReference) -> String {
    match extractor_name(&reference.elem) {
        // `&ToolCallId`, `&Context<User>`, `&mut State<T>`: the runtime's own types.
        Some(name) => format!(
            "take `{name}` by value, without `&`: write `{ident}: {owned}`; the runtime hands \
             each call its own{update}",
            owned = tidy(&reference.elem.to_token_stream().to_string()),
            update = if name == "State" && reference.mutability.is_some() {
                " (queue changes with `state.update(|s| ...)`)"
            } else {
                ""
            },
        ),
        None if reference.mutability.is_some() => {
            "a tool cannot take `&mut` parameters: tool calls of one turn run in parallel; \
             take `State<T>` and queue changes with `state.update(|s| ...)`"
                .to_string()
        }
        None => {
            let owned = owned_text(reference);
            // A type of the program's own (`&User`) may be meant as the agent's context.
            let own_type = match &*reference.elem {
                Type::Path(p) => {
                    p.qself.is_none()
                        && p.path.get_ident().is_some_and(|i| {
                            i.to_string().starts_with(|c: char| c.is_ascii_uppercase())
                                && i != "String"
                        })
                }
                _ => false,
            };
            let context = if own_type {
                format!("; to read the agent's context instead, write `{ident}: Context<{owned}>`")
            } else {
                String::new()
            };
            format!(
                "a tool parameter must be an owned type: write `{ident}: {owned}`; the model's \
                 arguments are parsed into owned values{context}"
            )
        }
    }
}

/// A type as printed from its tokens (`Context < User >`) as a person writes it
/// (`Context<User>`).
fn tidy(tokens: &str) -> String {
    tokens
        .replace(" < ", "<")
        .replace("< ", "<")
        .replace(" >", ">")
        .replace(" :: ", "::")
        .replace(":: ", "::")
        .replace(" ,", ",")
        .replace("& ", "&")
}
