//! `#[derive(StructuredOutput)]`: a type becomes a validated structured output.
//!
//! [`attrs`] reads and checks the `#[output(...)]` attributes, [`serde_attrs`] the serde
//! attributes that decide JSON names (so constraints land on the property serde reads), and
//! [`codegen`] writes the impl. Errors are accumulated, so every mistake shows at once.

mod attrs;
mod codegen;
mod partial;
mod serde_attrs;

use proc_macro2::TokenStream;
use syn::DeriveInput;

pub fn expand_derive(item: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(item) {
        Ok(input) => input,
        Err(e) => return e.to_compile_error(),
    };
    match codegen::expand(&input) {
        Ok(tokens) => tokens,
        Err(e) => e.write_errors(),
    }
}
