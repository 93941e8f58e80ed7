//! Where generated code finds the runtime crate, resolved in one place.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The path of the `agent-sdk` crate as the user's crate sees it: `::agent_sdk`, or the name
/// it was renamed to in the user's `Cargo.toml`. Inside `agent-sdk` itself (its unit tests,
/// doc tests and integration tests) `::agent_sdk` resolves through `extern crate self as
/// agent_sdk`.
pub fn sdk_path() -> TokenStream {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("agent-sdk") {
        Ok(FoundCrate::Name(name)) => {
            let ident = syn::Ident::new(&name, Span::call_site());
            quote!(::#ident)
        }
        Ok(FoundCrate::Itself) | Err(_) => quote!(::agent_sdk),
    }
}

/// `sdk_path()` as a string, for `#[serde(crate = "...")]`-style attributes.
pub fn sdk_path_string() -> String {
    sdk_path().to_string().replace(' ', "")
}
