//! Procedural macros for `agent-sdk`: parsing, checking and code generation only.
//!
//! Use them through `agent_sdk`, which re-exports them and documents them.

use proc_macro::TokenStream;

mod crate_path;
mod docs;
mod tool;

/// Turns a function into a tool a model can call. Documented in `agent_sdk`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}
