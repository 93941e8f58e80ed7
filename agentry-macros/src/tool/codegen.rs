//! The expansion of `#[tool]`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ForeignItemFn, Ident, ItemFn, Type, Visibility};

use super::attrs::ToolAttrs;
use super::params::{ParamKind, Signature};
use super::{field_probe, schema_override};
use crate::crate_path::{sdk_path, sdk_path_string};

/// What the tool calls.
pub enum Target<'a> {
    /// A free function: emitted unchanged beside a marker struct of the same name.
    Free(&'a ItemFn),
    /// A body-less `#[tool(external)]` signature: the caller runs the tool; only the marker
    /// struct is emitted, and its call stops the run at the call (an external question).
    External(&'a ForeignItemFn),
    /// A `&self` method of an `#[agent]` impl block: the marker struct holds an
    /// `Arc<SelfTy>` and is named `marker`; the method itself is emitted by the impl block.
    Method {
        self_ty: &'a Type,
        method: &'a Ident,
        vis: &'a Visibility,
        marker: Ident,
    },
}

/// `get_weather` → `GetWeather`.
pub fn camel(ident: &Ident) -> String {
    crate::names::upper_camel(ident)
}

pub fn generate(target: &Target<'_>, attrs: &ToolAttrs, sig: &Signature) -> TokenStream {
    let sdk = sdk_path();
    let sdk_str = sdk_path_string();
    let serde_crate = format!("{sdk_str}::serde");
    let schemars_crate = format!("{sdk_str}::schemars");

    let (vis, fn_ident, marker) = match target {
        Target::Free(func) => (&func.vis, &func.sig.ident, func.sig.ident.clone()),
        Target::External(func) => (&func.vis, &func.sig.ident, func.sig.ident.clone()),
        Target::Method {
            vis,
            method,
            marker,
            ..
        } => (*vis, *method, marker.clone()),
    };
    let args_ident = match target {
        Target::Free(_) | Target::External(_) => {
            format_ident!("{}Args", camel(fn_ident), span = fn_ident.span())
        }
        Target::Method { marker, .. } => {
            let base = marker.to_string();
            let base = base.strip_suffix("Tool").unwrap_or(&base);
            format_ident!("{}Args", base, span = fn_ident.span())
        }
    };
    let name = &attrs.name;
    let description = &attrs.description;
    let strict = attrs.strict;
    let return_direct = attrs.return_direct;
    let sequential = attrs.sequential;
    let idempotent = attrs.idempotent;
    let timeout = match attrs.timeout_ms {
        Some(ms) => quote!(::core::option::Option::Some(::core::time::Duration::from_millis(#ms))),
        None => quote!(::core::option::Option::None),
    };

    // The generated `Args` struct: one field per model-filled parameter. With the tool's
    // `schema` override the struct derives no `JsonSchema`, so its fields take no `schemars`
    // attributes.
    let whole_schema = attrs.schema.as_ref();
    let fields = sig.params.iter().filter_map(|p| {
        let ParamKind::Model {
            json_name,
            renamed,
            description,
            schema_with,
            ..
        } = &p.kind
        else {
            return None;
        };
        let ident = &p.ident;
        let ty = &p.ty;
        let rename = renamed.then(|| quote!(#[serde(rename = #json_name)]));
        let description = description
            .as_ref()
            .filter(|_| whole_schema.is_none())
            .map(|d| quote!(#[schemars(description = #d)]));
        let schema_with = schema_with
            .as_ref()
            .filter(|_| whole_schema.is_none())
            .map(|_| schema_override::field_attr(&args_ident, ident));
        let probe = field_probe::probed(ty).then(|| {
            let describe = schema_with.is_none() && whole_schema.is_none();
            field_probe::field_attrs(&args_ident, ident, ty, describe)
        });
        Some(quote! {
            #rename
            #description
            #schema_with
            #probe
            #vis #ident: #ty,
        })
    });
    let model_idents: Vec<&Ident> = sig
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Model { .. }))
        .map(|p| &p.ident)
        .collect();

    // Each model-filled type must be a tool argument. The check is made once, at the user's
    // type; the generated struct parses and describes the field through a probe that holds
    // whatever the type lacks (`field_probe`), so a type without the derives is one error,
    // not one per derive and per use. A parameter whose schema is overridden needs only to
    // parse.
    let model_params: Vec<(&Type, bool)> = sig
        .params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::Model { schema_with, .. } if !is_known_argument(&p.ty) => {
                Some((&p.ty, schema_with.is_some() || whole_schema.is_some()))
            }
            ParamKind::Model { .. } | ParamKind::Injected => None,
        })
        .collect();
    let arg_checks = model_params.iter().map(|(whole, overridden)| {
        let ty = field_probe::checked_type(whole);
        let container = (!std::ptr::eq(ty, *whole))
            .then(|| field_probe::container_check(&sdk, ty, whole, *overridden));
        if is_known_argument(ty) {
            return quote!(#container);
        }
        let sdk = respan(&sdk, ty.span());
        if *overridden {
            return quote_spanned! {ty.span()=>
                const _: () = #sdk::__private::argument::parsed_argument::<#ty>();
                #container
            };
        }
        // One error naming what is missing (`Deserialize`, `JsonSchema` or both).
        quote_spanned! {ty.span()=>
            const _: () = {
                #[allow(unused_imports)]
                use #sdk::__private::argument::{
                    ProbeArgumentOk as _, ProbeMissingBoth as _, ProbeMissingParse as _,
                    ProbeMissingSchema as _,
                };
                #[allow(dead_code)]
                fn __agentry_check() {
                    (&&&#sdk::__private::argument::ArgumentProbe::<#ty>::new()).probe().check();
                }
            };
            #container
        }
    });

    // Injected parameters: extracted before the future starts, so the future owns them.
    let super::injected::Injected {
        bounds: inject_bounds,
        lets: inject_lets,
        unwraps: inject_unwraps,
        events,
    } = super::injected::expand(&sdk, sig, name, &marker);

    // A `return_direct` tool tells the agents listing it what it returns, so one whose
    // output is another type is a compile error at the tool's name. Text and JSON results
    // are left out: any output may be read from them (at run time).
    let direct = attrs
        .return_direct
        .then(|| ok_type(sig.ret_ty.as_ref(), sig.returns_result))
        .filter(|ty| !is_text_or_json(ty))
        .map(|ty| {
            let sdk = respan(&sdk, ty.span());
            quote_spanned! {ty.span()=>
                impl #sdk::__private::checks::ReturnsDirect for #marker {
                    type Output = #ty;
                }
            }
        });

    let call_args = sig.params.iter().map(|p| &p.ident);
    let await_ = sig.is_async.then(|| quote!(.await));
    // Methods: the future owns a clone of the `Arc` so it does not borrow the marker.
    let (this_let, callee, receiver_arg) = match target {
        Target::Free(_) | Target::External(_) => (quote!(), quote!(#fn_ident), quote!()),
        Target::Method { self_ty, .. } if sig.has_receiver => (
            quote!(let __agentry_this = ::std::sync::Arc::clone(&self.0);),
            quote!(<#self_ty>::#fn_ident),
            quote!(&*__agentry_this,),
        ),
        Target::Method { self_ty, .. } => (quote!(), quote!(<#self_ty>::#fn_ident), quote!()),
    };
    let ret_span = sig
        .ret_ty
        .as_ref()
        .map(|t| t.span())
        .unwrap_or_else(|| fn_ident.span());
    let finish = if sig.returns_result {
        quote_spanned! {ret_span=> #sdk::__private::tool_result(#name, __agentry_out) }
    } else {
        quote_spanned! {ret_span=>
            #sdk::__private::tool_result(
                #name,
                ::core::result::Result::<_, #sdk::__private::Infallible>::Ok(__agentry_out),
            )
        }
    };

    // A sync body runs on the blocking pool (moving the arguments, injected values and the
    // receiver's `Arc` into the closure); an async body is awaited in place, and an `inline`
    // sync body is called in place.
    let ret_ty = sig.ret_ty.clone().unwrap_or_else(|| syn::parse_quote!(()));
    let body = if let Target::External(_) = target {
        let sdk = respan(&sdk, ret_span);
        quote_spanned! {ret_span=>
            let __agentry_out: #ret_ty =
                #sdk::__private::external::<#ret_ty>().result(__agentry_ask).await;
            #finish
        }
    } else if sig.is_async || attrs.inline {
        quote! {
            let __agentry_out = #callee(#receiver_arg #(#call_args),*) #await_;
            #finish
        }
    } else {
        quote! {
            #sdk::__private::run_blocking(#name, move || {
                let __agentry_out = #callee(#receiver_arg #(#call_args),*);
                #finish
            }).await
        }
    };

    let marker_item = match target {
        Target::External(_) => {
            let doc = format!(
                "The external `{name}` tool: offered to the model, run by the caller (the run \
                 pauses at its calls; see `Pause::external_calls`). Generated by `#[tool(external)]`."
            );
            quote! {
                #[doc = #doc]
                #[allow(non_camel_case_types)]
                #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
                #vis struct #marker {}
            }
        }
        Target::Free(func) => {
            let doc = format!(
                "The `{name}` tool: implements [`Tool`]({sdk_str}::Tool) and \
                 [`CallTool`]({sdk_str}::CallTool) for the function of the same name. \
                 Generated by `#[tool]`."
            );
            quote! {
                #func

                #[doc = #doc]
                #[allow(non_camel_case_types)]
                #[derive(::core::clone::Clone, ::core::marker::Copy, ::core::fmt::Debug, ::core::default::Default)]
                #vis struct #marker {}
            }
        }
        Target::Method { self_ty, .. } => {
            let doc = format!(
                "The `{name}` tool: calls the method `{fn_ident}` on a shared value. \
                 Generated by `#[agent]`."
            );
            quote! {
                #[doc = #doc]
                #vis struct #marker(pub ::std::sync::Arc<#self_ty>);

                impl ::core::clone::Clone for #marker {
                    fn clone(&self) -> Self {
                        #marker(::std::sync::Arc::clone(&self.0))
                    }
                }
            }
        }
    };
    // The answer a resume may give a call of this tool: its `Interrupt`'s answer type, or an
    // external tool's result type. Checked here, at the user's type, once.
    let check_answer = if let Target::External(_) = target {
        let sdk = respan(&sdk, ret_span);
        Some(quote_spanned! {ret_span=>
            fn check_answer(
                answer: &#sdk::serde_json::Value,
            ) -> ::core::result::Result<(), ::std::string::String> {
                #sdk::__private::external::<#ret_ty>().check_answer(answer)
            }
        })
    } else {
        sig.params.iter().find(|p| p.is_interrupt()).map(|p| {
            let ty = &p.ty;
            let sdk = respan(&sdk, ty.span());
            quote_spanned! {ty.span()=>
                fn check_answer(
                    answer: &#sdk::serde_json::Value,
                ) -> ::core::result::Result<(), ::std::string::String> {
                    <#ty as #sdk::__private::InterruptTypes>::check_answer(answer)
                }
            }
        })
    };
    let (external_let, args_let) = match target {
        Target::External(_) => (
            quote!(let __agentry_ask = #sdk::__private::external_ask(__agentry_runtime);),
            quote!(let _ = __agentry_args;),
        ),
        _ => (
            quote!(),
            quote!(let #args_ident { #(#model_idents),* } = __agentry_args;),
        ),
    };
    let args_doc = format!("The arguments of the `{name}` tool, as the model fills them.");
    // The arguments schema: derived (with each parameter's `schema_with` override called by
    // a hidden function), or the tool's whole `schema` override.
    let (derive_schema, schemars_crate_attr, schema_items, mut helper_fns) = match whole_schema {
        Some(path) => (
            quote!(),
            quote!(),
            schema_override::whole_impl(&sdk, &args_ident, path),
            Vec::new(),
        ),
        None => (
            quote!(, #sdk::schemars::JsonSchema),
            quote!(#[schemars(crate = #schemars_crate)]),
            quote!(),
            schema_override::helpers(&sdk, &sig.params),
        ),
    };
    // With the fields' probe functions (`field_probe`): one hidden impl block for all.
    helper_fns.extend(field_probe::helpers(
        &sdk,
        &sig.params,
        whole_schema.is_some(),
    ));
    let helper_items = (!helper_fns.is_empty()).then(|| {
        quote! {
            impl #args_ident {
                #(#helper_fns)*
            }
        }
    });
    // An external tool's arguments are read by the caller (`arguments_as`), or only passed on
    // to a client: never by generated code, so unread fields are no warning of the user's.
    let args_allow = match target {
        Target::External(_) => quote!(#[allow(dead_code)]),
        _ => quote!(),
    };

    quote! {
        #marker_item

        #[doc = #args_doc]
        #[derive(#sdk::serde::Deserialize #derive_schema)]
        #[serde(crate = #serde_crate, deny_unknown_fields)]
        #schemars_crate_attr
        #[allow(missing_docs)]
        #args_allow
        #vis struct #args_ident {
            #(#fields)*
        }

        #schema_items

        #helper_items

        #(#arg_checks)*

        #events

        #direct

        impl #sdk::Tool for #marker {
            const NAME: &'static str = #name;
            const RETURN_DIRECT: bool = #return_direct;
            const SEQUENTIAL: bool = #sequential;
            const IDEMPOTENT: bool = #idempotent;
            const TIMEOUT: ::core::option::Option<::core::time::Duration> = #timeout;
            type Args = #args_ident;

            fn definition() -> &'static #sdk::ToolDefinition {
                static DEFINITION: #sdk::__private::OnceLock<#sdk::ToolDefinition> =
                    #sdk::__private::OnceLock::new();
                DEFINITION.get_or_init(|| {
                    #sdk::__private::tool_definition::<#args_ident>(#name, #description, #strict)
                })
            }

            #check_answer
        }

        impl<__C, __S> #sdk::CallTool<__C, __S> for #marker
        where
            #(#inject_bounds,)*
        {
            #[allow(clippy::manual_async_fn)]
            fn call(
                &self,
                __agentry_args: #args_ident,
                __agentry_runtime: &#sdk::ToolRuntime<__C, __S>,
            ) -> impl #sdk::__private::Future<
                Output = ::core::result::Result<#sdk::ToolOutput, #sdk::ToolCallError>,
            > + ::core::marker::Send {
                #(#inject_lets)*
                #external_let
                #this_let
                async move {
                    #(#inject_unwraps)*
                    #args_let
                    #body
                }
            }
        }
    }
}

/// The type a tool's result holds: `T` of a `Result<T, E>`, or the return type (`()` when
/// none is written).
fn ok_type(ret: Option<&Type>, returns_result: bool) -> Type {
    let Some(ret) = ret else {
        return syn::parse_quote!(());
    };
    if returns_result
        && let Type::Path(p) = ret
        && let Some(last) = p.path.segments.last()
        && let syn::PathArguments::AngleBracketed(args) = &last.arguments
        && let Some(syn::GenericArgument::Type(ok)) = args.args.first()
    {
        return ok.clone();
    }
    ret.clone()
}

/// Text (`String`, `&str`) or JSON (`Value`): a result any agent output may be read from.
fn is_text_or_json(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => is_text_or_json(&r.elem),
        Type::Path(p) => {
            p.qself.is_none()
                && p.path.segments.last().is_some_and(|s| {
                    s.arguments.is_empty()
                        && matches!(s.ident.to_string().as_str(), "String" | "str" | "Value")
                })
        }
        _ => false,
    }
}

/// `tokens` with every span set to `span`, so errors about them point at the user's tokens.
pub(super) fn respan(tokens: &TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|mut tt| {
            tt.set_span(span);
            tt
        })
        .collect()
}

/// A standard type every tool argument may be (`String`, `bool`, `char`, the numbers): its
/// check and its field's probe are left out, as they cannot fail and each costs the user's
/// build a little.
pub(super) fn is_known_argument(ty: &Type) -> bool {
    const KNOWN: &[&str] = &[
        "String", "bool", "char", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32",
        "i64", "i128", "isize", "f32", "f64",
    ];
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.leading_colon.is_none()
        && p.path.segments.len() == 1
        && p.path.segments[0].arguments.is_none()
        && KNOWN.iter().any(|k| p.path.segments[0].ident == k))
}
