//! `#[tool]`: a function becomes a tool.
//!
//! Parsing and checking live in [`attrs`] (the `#[tool(...)]` arguments) and [`params`] (each
//! parameter: model argument or injected); [`codegen`] writes the expansion. Every check
//! reports into one accumulator, so the user sees all their mistakes at once.

mod attrs;
mod codegen;
mod field_probe;
pub(crate) mod flag;
mod injected;
mod param_checks;
mod param_types;
mod params;
mod schema_override;
pub(crate) mod stand_in;

pub(crate) use param_types::owned_text;

use darling::Error;
use darling::ast::NestedMeta;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::ItemFn;

pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut func: ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => match syn::parse2::<syn::ForeignItemFn>(item.clone()) {
            Ok(external) => return expand_external(attr, external),
            Err(_) => {
                let err = syn::Error::new_spanned(
                    &item,
                    "`#[tool]` goes on a function: `#[tool] fn name(arg: Type) -> Output { .. }`",
                );
                return err.to_compile_error();
            }
        },
    };
    let mut errors = Error::accumulator();

    let attrs = match NestedMeta::parse_meta_list(attr) {
        Ok(metas) => errors.handle(attrs::ToolAttrs::parse(
            &metas,
            &func.sig.ident,
            &func.attrs,
            func.sig.asyncness.is_some(),
        )),
        Err(e) => {
            errors.push(e.into());
            None
        }
    };
    if attrs.as_ref().is_some_and(|a| a.external) {
        errors.push(
            syn::Error::new_spanned(
                &func.block,
                "an external tool has no body: the caller runs it and supplies its result; \
                 write the signature alone, `fn name(arg: Type) -> Output;` (or remove \
                 `external`)",
            )
            .into(),
        );
    }
    let signature = errors.handle(params::Signature::parse(
        &mut func.sig,
        &func.attrs,
        params::ReceiverPolicy::Forbidden,
    ));
    check_overrides(attrs.as_ref(), signature.as_ref(), &mut errors);

    match (attrs, signature, errors.finish()) {
        (Some(attrs), Some(signature), Ok(())) => {
            codegen::generate(&codegen::Target::Free(&func), &attrs, &signature)
        }
        (_, _, result) => {
            // Emit the function (with its parameter attributes stripped) beside the errors, so
            // its body is still checked and calls to it do not add unrelated errors; and a
            // stand-in tool, so an agent listing it adds none either (not for a method: a
            // function taking `self` sits in an `impl` or a trait, where no struct may be).
            param_checks::rename_rebound(&mut func.sig);
            let mut out = func.to_token_stream();
            if func.sig.receiver().is_none() {
                out.extend(stand_in::generate(&func));
            }
            if let Err(e) = result {
                out.extend(e.write_errors());
            }
            out
        }
    }
}

/// The checks between the tool's `schema` override and its parameters.
fn check_overrides(
    attrs: Option<&attrs::ToolAttrs>,
    signature: Option<&params::Signature>,
    errors: &mut darling::error::Accumulator,
) {
    if let (Some(attrs), Some(signature)) = (attrs, signature) {
        schema_override::check_whole_schema(attrs.schema.as_ref(), &signature.params, errors);
    }
}

/// `#[tool(external)] fn name(args..) -> Output;`: a tool the caller runs.
fn expand_external(attr: TokenStream, mut func: syn::ForeignItemFn) -> TokenStream {
    let mut errors = Error::accumulator();
    let attrs = match NestedMeta::parse_meta_list(attr) {
        Ok(metas) => errors.handle(attrs::ToolAttrs::parse(
            &metas,
            &func.sig.ident,
            &func.attrs,
            // The caller runs it: there is no body, so no `inline` question either.
            true,
        )),
        Err(e) => {
            errors.push(e.into());
            None
        }
    };
    if attrs.as_ref().is_some_and(|a| !a.external) {
        errors.push(
            syn::Error::new_spanned(
                &func.sig,
                "a tool without a body is one the caller runs: write `#[tool(external)]`, or \
                 give the function a body",
            )
            .into(),
        );
    } else if let Some(asyncness) = &func.sig.asyncness {
        errors.push(
            syn::Error::new_spanned(
                asyncness,
                "`async` has no meaning on an `external` tool: it has no body, the caller runs \
                 it and the run waits for its result either way; remove `async`",
            )
            .into(),
        );
    }
    let signature = errors.handle(params::Signature::parse(
        &mut func.sig,
        &func.attrs,
        params::ReceiverPolicy::Forbidden,
    ));
    check_overrides(attrs.as_ref(), signature.as_ref(), &mut errors);
    let signature = signature.map(|mut signature| {
        signature.params.retain(|param| {
            let injected = matches!(param.kind, params::ParamKind::Injected);
            if injected {
                errors.push(
                    syn::Error::new_spanned(
                        &param.ty,
                        "an external tool runs in the caller, not in the agent: it cannot take \
                         injected parameters; remove this parameter (the model fills the others)",
                    )
                    .into(),
                );
            }
            !injected
        });
        signature
    });
    let result = errors.finish();
    match (attrs, signature) {
        // The tool as it would be without the mistakes, so its uses add no other errors.
        (Some(attrs), Some(signature)) => {
            let mut out = codegen::generate(&codegen::Target::External(&func), &attrs, &signature);
            if let Err(e) = result {
                out.extend(e.write_errors());
            }
            out
        }
        // A stand-in tool, so an agent listing it adds no error to the rejection.
        _ => {
            let mut out = stand_in::named(&func.vis, &func.sig.ident);
            if let Err(e) = result {
                out.extend(e.write_errors());
            }
            out
        }
    }
}

/// A `#[tool]` method of an `#[agent]` impl block, expanded.
#[allow(dead_code)] // used by `#[agent]` on impl blocks
pub struct MethodTool {
    /// The generated marker type (`DbQueryTool`): a tuple struct over `Arc<SelfTy>`.
    pub marker: syn::Ident,
    /// Items to emit beside the impl block: the marker, its `Args` struct and trait impls.
    pub items: TokenStream,
}

/// Removes the `#[tool]` / `#[tool(...)]` attribute from a method and returns its arguments.
#[allow(dead_code)] // used by `#[agent]` on impl blocks
pub fn take_tool_attr(attrs: &mut Vec<syn::Attribute>) -> Option<darling::Result<TokenStream>> {
    let index = attrs.iter().position(|a| a.path().is_ident("tool"))?;
    let attr = attrs.remove(index);
    Some(match attr.meta {
        syn::Meta::Path(_) => Ok(TokenStream::new()),
        syn::Meta::List(list) => Ok(list.tokens),
        syn::Meta::NameValue(nv) => {
            Err(syn::Error::new_spanned(nv, "write `#[tool]` or `#[tool(name = \"...\")]`").into())
        }
    })
}

/// Expands a `#[tool]` method (its `#[tool]` attribute already taken with [`take_tool_attr`])
/// of `impl SelfTy`: strips the parameter attributes from `method` (which the caller emits
/// in the impl block as usual) and returns the tool items, with the marker named
/// `<SelfTy><Method>Tool`.
#[allow(dead_code)] // used by `#[agent]` on impl blocks
pub fn expand_method(
    attr: TokenStream,
    self_ty: &syn::Type,
    method: &mut syn::ImplItemFn,
) -> darling::Result<MethodTool> {
    let mut errors = Error::accumulator();
    let attrs = match NestedMeta::parse_meta_list(attr) {
        Ok(metas) => errors.handle(attrs::ToolAttrs::parse(
            &metas,
            &method.sig.ident,
            &method.attrs,
            method.sig.asyncness.is_some(),
        )),
        Err(e) => {
            errors.push(e.into());
            None
        }
    };
    let signature = errors.handle(params::Signature::parse(
        &mut method.sig,
        &method.attrs,
        params::ReceiverPolicy::SharedRefOnly,
    ));
    check_overrides(attrs.as_ref(), signature.as_ref(), &mut errors);
    let self_name = match self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.clone()),
        _ => None,
    };
    if self_name.is_none() {
        errors.push(
            syn::Error::new_spanned(
                self_ty,
                "`#[agent]` tool methods need an impl block for a named type: `impl MyAgent { .. }`",
            )
            .into(),
        );
    }
    if let Err(e) = errors.finish() {
        // The caller emits the method beside the errors.
        param_checks::rename_rebound(&mut method.sig);
        return Err(e);
    }
    let (Some(attrs), Some(signature), Some(self_name)) = (attrs, signature, self_name) else {
        return Err(Error::custom("invalid tool method"));
    };
    let marker = quote::format_ident!(
        "{}{}Tool",
        self_name,
        codegen::camel(&method.sig.ident),
        span = method.sig.ident.span()
    );
    // The agent's call enum is `pub(crate)` and names each tool's marker and `Args`, so they
    // are at least `pub(crate)` (a private method would make them "more private than" the
    // enum); a `pub` method keeps `pub`.
    let vis: syn::Visibility = match &method.vis {
        syn::Visibility::Public(_) => method.vis.clone(),
        _ => syn::parse_quote!(pub(crate)),
    };
    let target = codegen::Target::Method {
        self_ty,
        method: &method.sig.ident,
        vis: &vis,
        marker: marker.clone(),
    };
    let items = codegen::generate(&target, &attrs, &signature);
    Ok(MethodTool { marker, items })
}
