//! What `#[tool]` emits beside a rejected function: a stand-in tool of the same name, so an
//! agent listing the function adds no second error to the rejection.

use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

use crate::crate_path::sdk_path;

/// The stand-in marker for `func`: a tool (fitting every agent) whose calls fail.
pub fn generate(func: &ItemFn) -> TokenStream {
    named(&func.vis, &func.sig.ident)
}

/// The stand-in marker named `ident`, as [`generate`] makes it (also for a rejected
/// `#[tool(external)]` declaration, which has no body).
pub fn named(vis: &syn::Visibility, ident: &syn::Ident) -> TokenStream {
    let name = ident.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let impls = impls(&quote!(#ident), name);
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #[derive(Default)]
        #vis struct #ident {}

        #impls
    }
}

/// The stand-in's `Tool` and `CallTool` impls for the type `ty`, named `name` (also for an
/// impl-block agent given `as_tool`, which cannot be a tool: its parent then adds no "not a
/// tool" to that error).
pub fn impls(ty: &TokenStream, name: &str) -> TokenStream {
    let sdk = sdk_path();
    quote! {
        impl #sdk::Tool for #ty {
            const NAME: &'static str = #name;
            type Args = #sdk::serde_json::Value;

            fn definition() -> &'static #sdk::ToolDefinition {
                #sdk::__private::stand_in::definition()
            }
        }

        impl<C, S> #sdk::CallTool<C, S> for #ty {
            fn call(
                &self,
                _args: #sdk::serde_json::Value,
                _runtime: &#sdk::ToolRuntime<C, S>,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#sdk::ToolOutput, #sdk::ToolCallError>,
            > + ::core::marker::Send {
                #sdk::__private::stand_in::call::<Self>()
            }
        }
    }
}
