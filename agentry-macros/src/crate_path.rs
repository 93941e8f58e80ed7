//! Where generated code finds the runtime crate, resolved in one place.

use proc_macro2::{Span, TokenStream};
use quote::quote;

/// The path of the `agentry` crate as the user's crate sees it: `::agentry`, or the name
/// it was renamed to in the user's `Cargo.toml`. Inside `agentry` itself (its unit tests,
/// doc tests and integration tests) `::agentry` resolves through `extern crate self as
/// agentry`.
pub fn sdk_path() -> TokenStream {
    use proc_macro_crate::{FoundCrate, crate_name};
    match crate_name("agentry") {
        Ok(FoundCrate::Name(name)) => {
            let ident = syn::Ident::new(&name, Span::call_site());
            quote!(::#ident)
        }
        Ok(FoundCrate::Itself) | Err(_) => quote!(::agentry),
    }
}

/// `sdk_path()` as a string, for `#[serde(crate = "...")]`-style attributes.
pub fn sdk_path_string() -> String {
    sdk_path().to_string().replace(' ', "")
}
