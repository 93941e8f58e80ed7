//! Procedural macros for `agent-sdk`: parsing, checking and code generation only.
//!
//! Use them through `agent_sdk`, which re-exports and documents them.

use proc_macro::TokenStream;

mod agent;
mod crate_path;
mod docs;
mod names;
mod output;
mod text;
mod tool;

/// Turns a function into a tool a model can call. Documented in `agent_sdk`.
#[proc_macro_attribute]
pub fn tool(attr: TokenStream, item: TokenStream) -> TokenStream {
    tool::expand(attr.into(), item.into()).into()
}

/// Binds tools, context, state and an output type into an agent. Documented in `agent_sdk`.
#[proc_macro_attribute]
pub fn agent(attr: TokenStream, item: TokenStream) -> TokenStream {
    agent::expand(attr.into(), item.into()).into()
}

/// Makes a type a validated structured output. Documented in `agent_sdk`.
#[proc_macro_derive(StructuredOutput, attributes(output))]
pub fn derive_structured_output(item: TokenStream) -> TokenStream {
    output::expand_derive(item.into()).into()
}
