//! `#[agent]` on an impl block: its `#[tool]` methods are the agent's tools, and `&self`
//! methods reach the value's resources (a pool, a client) without globals.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{ImplItem, ItemImpl, Visibility};

use super::attrs::AgentAttrs;
use super::codegen::{self, Target, ToolEntry};
use crate::crate_path::sdk_path;
use crate::tool::{expand_method, take_tool_attr};

pub fn generate(mut item: ItemImpl, attrs: &AgentAttrs, docs: &str) -> syn::Result<TokenStream> {
    if let Some((path, _)) = &item.trait_ {
        return Err(syn::Error::new_spanned(
            path,
            "`#[agent]` goes on an inherent impl block (`impl MyAgent { .. }`), not a trait impl",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "`#[agent]` impl blocks cannot be generic: the tools, context and state are fixed types",
        ));
    }
    let self_ty = (*item.self_ty).clone();
    let name = match &self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    }
    .ok_or_else(|| {
        syn::Error::new_spanned(
            &self_ty,
            "`#[agent]` needs an impl block for a named type: `impl MyAgent { .. }`",
        )
    })?;

    let tools_struct = format_ident!("{}Tools", name);
    // darling errors keep their own spans (the receiver, a parameter), so they are written
    // out as they are.
    let mut errors: Vec<TokenStream> = Vec::new();
    let mut entries: Vec<ToolEntry> = Vec::new();
    for impl_item in &mut item.items {
        let ImplItem::Fn(method) = impl_item else {
            continue;
        };
        let Some(attr) = take_tool_attr(&mut method.attrs) else {
            continue;
        };
        let tool = attr.and_then(|tokens| expand_method(tokens, &self_ty, method));
        match tool {
            Ok(tool) => {
                let marker = tool.marker;
                entries.push(ToolEntry {
                    variant: codegen::variant_ident(Some(&method.sig.ident)),
                    make: quote!(#marker(::std::sync::Arc::clone(&self.0))),
                    ty: quote!(#marker),
                    span: method.sig.ident.span(),
                    items: tool.items,
                });
            }
            Err(e) => errors.push(e.write_errors()),
        }
    }
    // A `#[tool]` method is already a tool of the agent; listing it again is a mistake
    // (`tools(...)` names the free tools added to the methods).
    let method_names: Vec<syn::Ident> = item
        .items
        .iter()
        .filter_map(|i| match i {
            ImplItem::Fn(m)
                if entries
                    .iter()
                    .any(|e| e.variant == codegen::variant_ident(Some(&m.sig.ident))) =>
            {
                Some(m.sig.ident.clone())
            }
            _ => None,
        })
        .collect();
    let mut listed: Vec<syn::Path> = Vec::new();
    for path in &attrs.tools {
        let segments: Vec<&syn::PathSegment> = path.segments.iter().collect();
        let method = match segments.as_slice() {
            [only] => Some(&only.ident),
            [first, last] if first.ident == "Self" => Some(&last.ident),
            _ => None,
        };
        if let Some(method) = method.filter(|m| method_names.contains(m)) {
            errors.push(
                syn::Error::new_spanned(
                    path,
                    format!(
                        "`{method}` is a `#[tool]` method of this impl block, so it is already one of the agent's tools; remove it from `tools(...)`"
                    ),
                )
                .to_compile_error(),
            );
        } else {
            listed.push(path.clone());
        }
    }
    // The agent is generated around these mistakes (without the method that is not a tool,
    // without the method listed again), so `into_builder` and the runs add no errors.
    entries.extend(codegen::path_entries(&name, &listed));
    // Mistakes the agent is generated around (a tool listed twice, a review of no tool), so
    // its uses add no errors of their own.
    let mut late: Vec<syn::Error> = codegen::drop_duplicates(&listed, &mut entries)
        .into_iter()
        .collect();

    let sdk = sdk_path();
    let vis: Visibility = syn::parse_quote!(pub(crate));
    let target = Target {
        name: &name,
        vis: &vis,
        toolset: quote!(#tools_struct),
    };
    let toolset = codegen::generate_toolset(&target, attrs, &entries);
    let alias = super::alias::generate(&sdk, &target, attrs);
    let builder_ty = codegen::builder_type(&sdk, &target, attrs);
    let thread_safe = super::builder_codegen::thread_safe_bounds(attrs);
    let configure = codegen::configure(
        &sdk,
        attrs,
        docs,
        quote!(#tools_struct(this)),
        &entries,
        &mut late,
    );
    let late = late.iter().map(syn::Error::to_compile_error);
    // The agent is named after its type (`gen_ai.agent.name` on its run spans).
    let agent_name = name.to_string();
    let configure = quote!(#configure .name(#agent_name));
    let tools_doc = format!(
        "The tools of the `{name}` agent over a shared `{name}`: implements `Toolset`. Generated by `#[agent]`."
    );
    Ok(quote! {
        #(#errors)*
        #(#late)*

        #item

        #[doc = #tools_doc]
        #vis struct #tools_struct(pub ::std::sync::Arc<#self_ty>);

        #toolset

        #alias

        impl #self_ty #thread_safe {
            /// Starts configuring this agent with `model`; the value is shared by its tool
            /// methods for the agent's lifetime. Finish with `.build()`.
            #vis fn into_builder(self, model: impl #sdk::agent::IntoSharedModel) -> #builder_ty {
                Self::shared_builder(::std::sync::Arc::new(self), model)
            }

            /// Starts configuring this agent on `Self::default()` with `model` (for a type
            /// with `Default`; else `value.into_builder(model)`). Finish with `.build()`.
            #vis fn builder(model: impl #sdk::agent::IntoSharedModel) -> #builder_ty
            where
                for<'__agentry> Self: #sdk::__private::agent::DefaultValue,
            {
                Self::shared_builder(
                    ::std::sync::Arc::new(<Self as ::core::default::Default>::default()),
                    model,
                )
            }

            /// Like `into_builder`, for a value that is already shared.
            #vis fn shared_builder(
                this: ::std::sync::Arc<Self>,
                model: impl #sdk::agent::IntoSharedModel,
            ) -> #builder_ty {
                #configure
            }
        }
    })
}
