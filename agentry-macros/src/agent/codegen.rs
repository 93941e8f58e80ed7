//! The expansion of `#[agent]`: the `Toolset` over a generated enum, and the builders.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Fields, Ident, ItemStruct, Path, Type, Visibility};

use super::attrs::{AgentAttrs, unanswerable};
use crate::crate_path::sdk_path;

use super::builder_codegen::respan;
pub use super::builder_codegen::{builder_type, configure, configure_with};

/// One tool of the agent, however it was declared.
pub struct ToolEntry {
    /// The variant of the call enum.
    pub variant: Ident,
    /// The tool's marker type.
    pub ty: TokenStream,
    /// An expression making the marker; may use `self` (the toolset value).
    pub make: TokenStream,
    /// Where problems with this tool are reported.
    pub span: Span,
    /// Items to emit for this tool (an alias, or a method tool's marker and impls).
    pub items: TokenStream,
}

/// What the expansion is for.
pub struct Target<'a> {
    /// The agent's name, used to name generated items.
    pub name: &'a Ident,
    pub vis: &'a Visibility,
    /// The type implementing `Toolset`.
    pub toolset: TokenStream,
}

/// The tools listed in `tools(...)`: free `#[tool]` functions (their marker structs).
pub fn path_entries(name: &Ident, tools: &[Path]) -> Vec<ToolEntry> {
    let sdk = sdk_path();
    tools
        .iter()
        .enumerate()
        .map(|(i, path)| {
            // One alias per tool, so a path that does not resolve is reported once, at the
            // user's token, instead of at every use.
            let alias = format_ident!("__{}_Tool{}", name, i, span = path.span());
            let items = quote_spanned! {path.span()=>
                #[doc(hidden)]
                #[allow(non_camel_case_types)]
                type #alias = #path;
            };
            ToolEntry {
                variant: variant_ident(path.segments.last().map(|s| &s.ident)),
                make: {
                    let sdk = respan(&sdk, path.span());
                    quote_spanned! {path.span()=> (&&#sdk::__private::checks::ToolProbe::<#alias>::new()).probe_make() }
                },
                ty: quote!(#alias),
                span: path.span(),
                items,
            }
        })
        .collect()
}

/// `#[agent]` on a struct.
pub fn generate_struct(
    item: &ItemStruct,
    attrs: &AgentAttrs,
    docs: &str,
) -> syn::Result<TokenStream> {
    let sdk = sdk_path();
    let name = &item.ident;
    let vis = &item.vis;
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new_spanned(
            &item.generics,
            "`#[agent]` structs cannot be generic: the tools, context and state are fixed types",
        ));
    }
    let mut entries = path_entries(name, &attrs.tools);
    let mut errors: Vec<syn::Error> = drop_duplicates(&attrs.tools, &mut entries)
        .into_iter()
        .collect();
    let target = Target {
        name,
        vis,
        toolset: quote!(#name),
    };
    let toolset = generate_toolset(&target, attrs, &entries);
    let alias = super::alias::generate(&sdk, &target, attrs);
    let builder_ty = builder_type(&sdk, &target, attrs);
    let thread_safe = super::builder_codegen::thread_safe_bounds(attrs);
    let configure = configure(&sdk, attrs, docs, quote!(self), &entries, &mut errors);
    // The agent is named after its type (`gen_ai.agent.name` on its run spans).
    let agent_name = name.to_string();
    let configure = quote!(#configure .name(#agent_name));
    let unit_builder = matches!(item.fields, Fields::Unit).then(|| {
        quote! {
            /// Starts configuring this agent with `model`; finish with `.build()`.
            #vis fn builder(model: impl #sdk::agent::IntoSharedModel) -> #builder_ty {
                #name.into_builder(model)
            }
        }
    });
    // As a tool of other agents.
    let sub_agent = super::sub_agent::generate(item, attrs, docs, &entries);
    // Mistakes the agent was generated around (a tool listed twice, a review of no tool).
    let errors = errors.iter().map(syn::Error::to_compile_error);
    Ok(quote! {
        #(#errors)*

        #item

        #toolset

        #alias

        #sub_agent

        impl #name #thread_safe {
            /// Starts configuring this agent with `model`, taking the agent value (its tools'
            /// resources); finish with `.build()`.
            #vis fn into_builder(self, model: impl #sdk::agent::IntoSharedModel) -> #builder_ty {
                #configure
            }

            #unit_builder
        }
    })
}

/// The tool items, the call enum, the duplicate-name check and the `Toolset` impl.
pub fn generate_toolset(
    target: &Target<'_>,
    attrs: &AgentAttrs,
    entries: &[ToolEntry],
) -> TokenStream {
    let sdk = sdk_path();
    let name = target.name;
    let vis = target.vis;
    let toolset = &target.toolset;
    let (context, state) = context_state(attrs);
    let events = events_type(&sdk, attrs);
    let call_enum = format_ident!("{}ToolCall", name);
    let call_enum_doc = format!(
        "A parsed tool call of the `{name}` agent: one variant per tool, holding its arguments. Generated by `#[agent]`."
    );
    let items = entries.iter().map(|e| &e.items);

    // Every mention of a tool is spanned on the user's token, so whatever is wrong with a
    // tool is reported there (and identical reports collapse into one).
    let enum_variants = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #v(<#ty as #sdk::Tool>::Args) }
    });
    let definitions = entries.iter().map(|e| {
        let (ty, sdk) = (&e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #sdk::tool::DefinitionRef::Static(<#ty as #sdk::Tool>::definition()) }
    });
    let parse_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        let variant = respan(&quote!(#call_enum::#v), e.span);
        // An `if` chain rather than a `match` on the names: a constant pattern of a type
        // that is not a tool would be a second error beside "not a tool".
        quote_spanned! {e.span=>
            if name == <#ty as #sdk::Tool>::NAME {
                return ::core::option::Option::Some(
                    #sdk::__private::agent::parse_call::<#ty>(call).map(#variant),
                );
            }
        }
    });
    let sequential_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #call_enum::#v(_) => <#ty as #sdk::Tool>::SEQUENTIAL, }
    });
    let direct_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #call_enum::#v(_) => <#ty as #sdk::Tool>::RETURN_DIRECT, }
    });
    let idempotent_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #call_enum::#v(_) => <#ty as #sdk::Tool>::IDEMPOTENT, }
    });
    let timeout_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #call_enum::#v(_) => <#ty as #sdk::Tool>::TIMEOUT, }
    });
    let answer_arms = entries.iter().map(|e| {
        let (v, ty, sdk) = (&e.variant, &e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=> #call_enum::#v(_) => <#ty as #sdk::Tool>::check_answer(answer), }
    });
    // A tool that needs a context or state this agent does not provide is reported at the
    // tool, naming both types. Each arm returns its tool's own future, placed in a balanced
    // tree of `Either`s (no `async` block: one holding the runtime across the await would be
    // a second report of a context or state that is not `Sync`, at the agent's attribute).
    let call_arms = entries.iter().enumerate().map(|(i, e)| {
        let (v, ty, make, sdk) = (&e.variant, &e.ty, &e.make, respan(&sdk, e.span));
        let future = quote_spanned! {e.span=>
            (&#sdk::__private::checks::AgentProbe::<#ty, #context, #state>::new())
                .probe_call()
                .call(#make, args, runtime)
        };
        let future = either_path(&sdk, i, entries.len(), future);
        quote_spanned! {e.span=> #call_enum::#v(args) => #future, }
    });
    // An agent without tools has no call to match: its (never polled) future is a block
    // that matches the empty enum.
    let dispatch = if entries.is_empty() {
        quote!(async move { match call {} })
    } else {
        quote!(match call { #(#call_arms)* })
    };
    // A listed type that is not a tool is reported here, at the user's token; every other
    // use of the tool is spanned there too, and identical reports collapse into one.
    let names = entries.iter().map(|e| {
        let (ty, sdk) = (&e.ty, respan(&sdk, e.span));
        quote_spanned!(e.span=> <#ty as #sdk::Tool>::NAME)
    });
    // Whether each tool fits the agent's context and state, checked only for tools.
    let fit_checks = entries.iter().map(|e| {
        let (ty, sdk) = (&e.ty, respan(&sdk, e.span));
        quote_spanned! {e.span=>
            (&#sdk::__private::checks::AgentProbe::<#ty, #context, #state>::new()).probe().fits_agent::<#context, #state>();
            (&#sdk::__private::checks::EventsProbe::<#ty>::new()).probe_events().fit_events::<#events>();
        }
    });
    // A `return_direct` tool's result must be the agent's output (when it is structured).
    let direct_checks = structured_output(attrs).map(|output| {
        let checks = entries.iter().map(|e| {
            let (ty, sdk) = (&e.ty, respan(&sdk, e.span));
            quote_spanned! {e.span=>
                (&#sdk::__private::checks::DirectProbe::<#ty>::new()).probe_direct().fit_output::<#output>();
            }
        });
        quote! {
            use #sdk::__private::checks::{ProbeDirect as _, ProbeNoDirect as _};
            #(#checks)*
        }
    });
    let duplicate_names = format!(
        "two tools of agent `{name}` have the same name; give one another name with `#[tool(name = \"...\")]`"
    );
    let name_check = quote_spanned! {attrs.tools_span=>
        const _: () = {
            if #sdk::__private::agent::has_duplicate_names(&[#(#names),*]) {
                ::core::panic!(#duplicate_names);
            }
        };
    };
    // In final-answer-tool mode the output is offered to the model as one more tool.
    let output_name_check = structured_output(attrs).map(|ty| {
        let sdk = respan(&sdk, ty.span());
        let names = entries.iter().map(|e| {
            let (t, sdk) = (&e.ty, respan(&sdk, e.span));
            quote_spanned!(e.span=> <#t as #sdk::Tool>::NAME)
        });
        let message = format!(
            "the output `{}` has the same name as one of the tools of agent `{name}`, and the model would see both as tools; rename the tool with `#[tool(name = \"...\")]` or the output with `#[output(name = \"...\")]`",
            quote!(#ty).to_string().replace(' ', "")
        );
        // The name is the derive's inherent constant (or `UnnamedOutput`'s `None`), read
        // without asking `AgentOutput`: that is asked once, by the check below, which leaves a
        // derived type missing a companion derive to the derive's own error.
        quote_spanned! {ty.span()=>
            const _: () = {
                #[allow(unused_imports)]
                use #sdk::__private::output::UnnamedOutput as _;
                #[allow(dead_code)]
                fn __agentry_output_check() {
                    #[allow(unused_imports)]
                    use #sdk::__private::agent::{
                        CheckDerived as _, CheckRejected as _, CheckStructured as _,
                    };
                    (&&&#sdk::__private::agent::OutputProbe::<#ty>::new()).output_check().check();
                }
                if let ::core::option::Option::Some(output) = <#ty>::__AGENTRY_OUTPUT_NAME {
                    if #sdk::__private::agent::contains_name(&[#(#names),*], output) {
                        ::core::panic!(#message);
                    }
                }
            };
        }
    });
    let parse_body = if entries.is_empty() {
        quote! {
            let _ = call;
            ::core::option::Option::None
        }
    } else {
        quote! {
            let name = call.name.as_str();
            #(#parse_arms)*
            ::core::option::Option::None
        }
    };

    quote! {
        #(#items)*

        // The variants hold the tools' argument types, as private as the tools: an agent
        // more public than its tools is fine (the enum is only matched by the agent).
        #[doc = #call_enum_doc]
        #[allow(non_camel_case_types, private_interfaces)]
        #vis enum #call_enum {
            #(#[allow(missing_docs)] #enum_variants,)*
        }

        // SAFETY: every variant holds a `<T as Tool>::Args`, which `Tool` requires to be
        // `Send` (and a listed type that is not a tool does not compile). Said here rather
        // than derived, so such a type is reported once, at its token, and not again through
        // the enum's auto trait at the agent's name. (Generated code: `#![forbid(unsafe_code)]`
        // in the user's crate does not apply to it.)
        unsafe impl ::core::marker::Send for #call_enum {}

        #name_check
        #output_name_check

        const _: () = {
            #[allow(dead_code, unused_imports, clippy::all)]
            fn __agentry_check() {
                use #sdk::__private::checks::{
                    ProbeEvents as _, ProbeNoEvents as _, ProbeOther as _, ProbeTool as _,
                };
                #(#fit_checks)*
                #direct_checks
            }
        };

        impl #sdk::agent::Toolset<#context, #state> for #toolset {
            type Call = #call_enum;
            type Event = #events;

            fn definitions(&self) -> ::std::vec::Vec<#sdk::tool::DefinitionRef> {
                ::std::vec![#(#definitions),*]
            }

            fn parse(
                &self,
                call: &#sdk::ToolCall,
            ) -> ::core::option::Option<::core::result::Result<#call_enum, #sdk::ToolCallError>> {
                #parse_body
            }

            fn is_sequential(&self, call: &#call_enum) -> bool {
                match *call { #(#sequential_arms)* }
            }

            fn is_return_direct(&self, call: &#call_enum) -> bool {
                match *call { #(#direct_arms)* }
            }

            fn is_idempotent(&self, call: &#call_enum) -> bool {
                match *call { #(#idempotent_arms)* }
            }

            fn timeout(&self, call: &#call_enum) -> ::core::option::Option<::core::time::Duration> {
                match *call { #(#timeout_arms)* }
            }

            fn check_answer(
                &self,
                call: &#call_enum,
                answer: &#sdk::serde_json::Value,
            ) -> ::core::result::Result<(), ::std::string::String> {
                match *call { #(#answer_arms)* }
            }

            #[allow(clippy::manual_async_fn)]
            fn call(
                &self,
                call: #call_enum,
                runtime: &#sdk::ToolRuntime<#context, #state>,
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#sdk::ToolOutput, #sdk::ToolCallError>,
            > + ::core::marker::Send {
                #[allow(unused_imports)]
                use #sdk::__private::checks::{
                    ProbeCall as _, ProbeCannotCall as _, ProbeMake as _, ProbeMakeSubAgent as _, ProbeNoMake as _,
                };
                #dispatch
            }
        }
    }
}

/// `future` as leaf `index` of a balanced tree of `Either`s over `count` leaves (the leaf
/// itself when there is one): every arm of a `match` then has the same type, with no box and
/// a depth of ⌈log2 count⌉.
fn either_path(sdk: &TokenStream, index: usize, count: usize, future: TokenStream) -> TokenStream {
    let (mut start, mut end) = (0, count);
    let mut sides = Vec::new();
    while end - start > 1 {
        let middle = start + (end - start).div_ceil(2);
        if index < middle {
            sides.push(quote!(Left));
            end = middle;
        } else {
            sides.push(quote!(Right));
            start = middle;
        }
    }
    sides.iter().rev().fold(
        future,
        |inner, side| quote!(#sdk::__private::Either::#side(#inner)),
    )
}

/// The context and state types (`()` when not given).
pub fn context_state(attrs: &AgentAttrs) -> (TokenStream, TokenStream) {
    let unit = || quote!(());
    (
        attrs.context.as_ref().map_or_else(unit, |t| quote!(#t)),
        attrs.state.as_ref().map_or_else(unit, |t| quote!(#t)),
    )
}

/// The tools' event type: `events = Type`, JSON when not given.
pub fn events_type(sdk: &TokenStream, attrs: &AgentAttrs) -> TokenStream {
    match &attrs.events {
        Some(ty) => quote!(#ty),
        None => quote!(#sdk::serde_json::Value),
    }
}

/// The output type when it is checked as a structured output: given, not text, not
/// rejected by the attribute's own check.
pub fn structured_output(attrs: &AgentAttrs) -> Option<&Type> {
    attrs
        .output
        .as_ref()
        .filter(|ty| !is_string(ty) && unanswerable(ty).is_none())
}

/// The output spec type and the expression building it.
pub fn output(sdk: &TokenStream, attrs: &AgentAttrs) -> (TokenStream, TokenStream) {
    match attrs.output.as_ref() {
        None => text_output(sdk),
        Some(ty) if is_string(ty) => text_output(sdk),
        // Reported on the attribute; a stand-in lets every use type-check without a second
        // error.
        Some(ty) if unanswerable(ty).is_some() => (
            quote!(#sdk::output::StructuredSpec<#ty>),
            quote!(#sdk::__private::agent::rejected_spec::<#ty>()),
        ),
        // The spec type is written out: it is an `OutputSpec` whatever `ty` is, so a type
        // that is not a structured output is one error, where the spec is made (at the
        // user's `output = ..`), and not again at `builder(..)` and `.build()`.
        Some(ty) => {
            let spec_ty = quote_spanned! {ty.span()=> #sdk::output::StructuredSpec<#ty> };
            let spec = quote_spanned! {ty.span()=> {
                #[allow(unused_imports)]
                use #sdk::__private::agent::{ProbeRejected as _, ProbeStructured as _};
                (&&#sdk::__private::agent::OutputProbe::<#ty>::new()).structured_spec()
            }};
            (spec_ty, spec)
        }
    }
}

fn text_output(sdk: &TokenStream) -> (TokenStream, TokenStream) {
    (
        quote!(#sdk::output::TextOutput),
        quote!(#sdk::output::TextOutput),
    )
}

pub(super) fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_empty()))
}

/// The enum variant for a tool: its function's name in UpperCamelCase.
pub fn variant_ident(ident: Option<&Ident>) -> Ident {
    let Some(ident) = ident else {
        return Ident::new("Tool", Span::call_site());
    };
    let mut camel = crate::names::upper_camel(ident);
    if camel.is_empty() {
        camel.push_str("Tool");
    }
    Ident::new(&camel, ident.span())
}

/// Drops each tool listed twice, or sharing an earlier tool's variant name, with an error on
/// its later mention; the agent is generated from the rest, so its uses add no errors of their
/// own. `tools` are the listed paths, the last `tools.len()` of `entries`.
pub fn drop_duplicates(tools: &[Path], entries: &mut Vec<ToolEntry>) -> Option<syn::Error> {
    let listed_from = entries.len() - tools.len();
    let mut errors: Vec<syn::Error> = Vec::new();
    let (mut paths, mut variants): (Vec<String>, Vec<String>) = (Vec::new(), Vec::new());
    let mut index: usize = 0;
    entries.retain(|entry| {
        let path = index.checked_sub(listed_from).map(|i| &tools[i]);
        index += 1;
        if let Some(path) = path {
            let text = quote!(#path).to_string().replace(' ', "");
            if paths.contains(&text) {
                errors.push(syn::Error::new_spanned(
                    path,
                    format!("tool `{text}` is listed twice in `tools(...)`; remove one"),
                ));
                return false;
            }
            paths.push(text);
        }
        let variant = entry.variant.to_string();
        if variants.contains(&variant) {
            errors.push(syn::Error::new(
                entry.span,
                format!(
                    "two tools of this agent would share the variant `{variant}`; rename one of them"
                ),
            ));
            return false;
        }
        variants.push(variant);
        true
    });
    errors.into_iter().reduce(|mut a, b| {
        a.combine(b);
        a
    })
}
