//! `#[agent]`: binds tools, context, state, output and instructions into an agent.
//!
//! [`attrs`] parses `#[agent(...)]`, collecting every mistake; [`codegen`] writes the
//! `Toolset` implementation (an enum over the tools' argument types, dispatched by `match`)
//! and the builders, for a struct; [`impl_block`] does the same for an impl block whose
//! `#[tool]` methods are the tools.

mod alias;
mod attrs;
mod builder_codegen;
mod codegen;
mod guardrails;
mod impl_block;
mod middleware;
mod sub_agent;

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::Item;

use crate::docs::doc_text;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed_item: Option<Item> = syn::parse2(item.clone()).ok();
    // The agent is generated from the keys that parsed, even beside errors in others, so its
    // uses add no errors of their own (see `attrs::parse`).
    let (result, fallback, attr_error) = match parsed_item {
        Some(Item::Struct(s)) => {
            let fallback = s.to_token_stream();
            let (attrs, attr_error) = attrs::parse(attr, true);
            let result = codegen::generate_struct(&s, &attrs, &doc_text(&s.attrs));
            (result, fallback, attr_error)
        }
        Some(Item::Impl(i)) => {
            // On error the block is emitted without its `#[tool]` attributes: expanded on
            // their own they would report every method again as a free function.
            let mut stripped = i.clone();
            for item in &mut stripped.items {
                if let syn::ImplItem::Fn(method) = item {
                    method.attrs.retain(|a| !a.path().is_ident("tool"));
                }
            }
            // A block for a type without a name (`impl (A, B)`) is not kept: it is not Rust an
            // inherent impl can be written for, a second error about the same tokens.
            let named = matches!(&*i.self_ty, syn::Type::Path(p) if p.qself.is_none());
            let fallback = if named {
                stripped.to_token_stream()
            } else {
                TokenStream::new()
            };
            let docs = doc_text(&i.attrs);
            let (attrs, attr_error) = attrs::parse(attr, false);
            let result = match attrs.as_tool.as_ref().and_then(|a| a.span) {
                // The agent as it would be without `as_tool`, and a stand-in tool of its type
                // (made without `Default`), so neither its own uses nor a parent listing it
                // add an error.
                Some(span) => {
                    let self_ty = i.self_ty.clone();
                    let name = impl_block_name(&self_ty);
                    impl_block::generate(i, &attrs, &docs).map(|mut out| {
                        let sdk = crate::crate_path::sdk_path();
                        out.extend(crate::tool::stand_in::impls(&quote::quote!(#self_ty), &name));
                        out.extend(quote::quote! {
                            impl #sdk::__private::checks::MadeBySubAgent for #self_ty {
                                fn make_tool() -> Self {
                                    ::core::unreachable!("`as_tool` on an impl block is a compile error")
                                }
                            }
                        });
                        out.extend(
                            syn::Error::new(
                                span,
                                "`as_tool` goes on an `#[agent]` struct (`#[agent(tools(search), as_tool())] struct Researcher;`); an impl-block agent cannot be a tool of another agent",
                            )
                            .to_compile_error(),
                        );
                        out
                    })
                }
                None => impl_block::generate(i, &attrs, &docs),
            };
            (result, fallback, attr_error)
        }
        _ => {
            let mut out = item.clone();
            out.extend(
                syn::Error::new_spanned(
                    first_tokens(&item),
                    "`#[agent]` goes on a struct (`#[agent(tools(get_weather))] struct Planner;`) or on an impl block whose `#[tool]` methods are the tools",
                )
                .to_compile_error(),
            );
            if let (_, Some(e)) = attrs::parse(attr, false) {
                out.extend(e.to_compile_error());
            }
            return out;
        }
    };
    let mut out = match result {
        Ok(tokens) => tokens,
        Err(e) => {
            // Keep the item so the user's other code still resolves it.
            let mut out = fallback;
            out.extend(e.to_compile_error());
            out
        }
    };
    if let Some(e) = attr_error {
        out.extend(e.to_compile_error());
    }
    out
}

/// The tool name of an impl-block agent's type (`Notes` → `notes`).
fn impl_block_name(ty: &syn::Type) -> String {
    let last = match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    };
    sub_agent::snake_case(&last.unwrap_or_default())
}

/// The first few tokens of an item, to span an error on its head rather than its body.
fn first_tokens(item: &TokenStream) -> TokenStream {
    item.clone().into_iter().take(3).collect()
}
