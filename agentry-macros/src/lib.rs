//! Procedural macros for `agentry`: parsing, checking and code generation only.
//!
//! Use them through `agentry`, which re-exports and documents them (`agentry::tool`,
//! `agentry::agent`, `agentry::StructuredOutput`); the docs live there so that their
//! examples can run against the SDK.

use proc_macro::TokenStream;

mod agent;
mod crate_path;
mod docs;
mod keys;
mod names;
mod output;
mod suggest;
mod text;
mod tool;

#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

#[proc_macro_attribute]
pub fn agent(attr: TokenStream, item: TokenStream) -> TokenStream {
    agent::expand(attr.into(), item.into()).into()
}

#[proc_macro_derive(StructuredOutput, attributes(output))]
pub fn derive_structured_output(item: TokenStream) -> TokenStream {
    output::expand_derive(item.into()).into()
}
