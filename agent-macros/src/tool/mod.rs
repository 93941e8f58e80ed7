//! `#[tool]`: a function becomes a tool.
//!
//! Parsing and checking live in [`attrs`] (the `#[tool(...)]` arguments) and [`params`] (each
//! parameter: model argument or injected); [`codegen`] writes the expansion. Every check
//! reports into one accumulator, so the user sees all their mistakes at once.

mod attrs;
mod codegen;
mod params;

use darling::Error;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemFn;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let err = syn::Error::new_spanned(
                &item,
                "`#[tool]` goes on a function: `#[tool] fn name(arg: Type) -> Output { .. }`",
            );
            return err.to_compile_error();
        }
    };
    let mut errors = Error::accumulator();

    let attrs = match NestedMeta::parse_meta_list(attr) {
        Ok(metas) => errors.handle(attrs::ToolAttrs::parse(&metas, &func)),
        Err(e) => {
            errors.push(e.into());
            None
        }
    };
    let signature = errors.handle(params::Signature::parse(&mut func));

    match (attrs, signature, errors.finish()) {
        (Some(attrs), Some(signature), Ok(())) => codegen::generate(&func, &attrs, &signature),
        (_, _, result) => {
            // Emit the function (with its parameter attributes stripped) beside the errors, so
            // its body is still checked and calls to it do not add unrelated errors.
            let mut out = func.to_token_stream();
            if let Err(e) = result {
                out.extend(e.write_errors());
            }
            out
        }
    }
}
