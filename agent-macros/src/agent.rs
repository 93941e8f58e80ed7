//! `#[agent]`: binds tools, context, state, output and instructions into an agent type.
//!
//! [`attrs`] parses `#[agent(...)]`, collecting every mistake; [`codegen`] writes the
//! `Toolset` implementation (an enum over the tools' argument types, dispatched by `match`)
//! and the `builder` constructor.

mod attrs;
mod codegen;

use proc_macro2::TokenStream;
use quote::ToTokens;

use crate::docs::doc_text;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let parsed = attrs::parse(attr);
    let item_struct: syn::ItemStruct = match syn::parse2(item.clone()) {
        Ok(s) => s,
        Err(_) => {
            let mut out = item.clone();
            out.extend(
                syn::Error::new_spanned(
                    first_tokens(&item),
                    "`#[agent]` goes on a struct: `#[agent(tools(get_weather))] struct Planner;`",
                )
                .to_compile_error(),
            );
            if let Err(e) = parsed {
                out.extend(e.to_compile_error());
            }
            return out;
        }
    };
    let attrs = match parsed {
        Ok(attrs) => attrs,
        Err(e) => {
            // Keep the struct so the user's other code still resolves it.
            let mut out = item_struct.to_token_stream();
            out.extend(e.to_compile_error());
            return out;
        }
    };
    let docs = doc_text(&item_struct.attrs);
    match codegen::generate(&item_struct, &attrs, &docs) {
        Ok(tokens) => tokens,
        Err(e) => {
            let mut out = item_struct.to_token_stream();
            out.extend(e.to_compile_error());
            out
        }
    }
}

/// The first few tokens of an item, to span an error on its head rather than its body.
fn first_tokens(item: &TokenStream) -> TokenStream {
    item.clone().into_iter().take(3).collect()
}
