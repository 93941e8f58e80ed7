//! Schema overrides: `#[arg(schema_with = path)]` on a parameter and `#[tool(schema = path)]`
//! on the tool. `path` names a function `fn(&mut schemars::SchemaGenerator) ->
//! schemars::Schema` (schemars' own `schema_with` convention); the expansion calls it through
//! `__private::schema_with`, once, at the path's span, so a wrong path or signature is one
//! error on the user's tokens.

use darling::{Error, FromMeta};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Ident, Lit, Meta};

use super::params::{Param, ParamKind, spanned};

/// The path of `schema_with = path` / `schema = path` (or the same path in a string).
#[derive(Clone)]
pub struct SchemaPath(pub syn::Path);

impl FromMeta for SchemaPath {
    fn from_meta(item: &Meta) -> darling::Result<Self> {
        let key = item
            .path()
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let message = format!(
            "`{key}` names a function `fn(&mut schemars::SchemaGenerator) -> schemars::Schema`: \
             write `{key} = my_schema` (a path, not a call or a closure)"
        );
        match item {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Path(p) if p.qself.is_none() => Ok(SchemaPath(p.path.clone())),
                Expr::Lit(lit) => match &lit.lit {
                    Lit::Str(s) => s
                        .parse()
                        .map(SchemaPath)
                        .map_err(|_| Error::custom(message).with_span(s)),
                    other => Err(Error::custom(message).with_span(other)),
                },
                other => Err(spanned(other, &message)),
            },
            Meta::Path(p) => Err(Error::custom(message).with_span(p)),
            Meta::List(list) => Err(spanned(list, &message)),
        }
    }
}

/// With `#[tool(schema = ..)]` the whole arguments schema is the user's: a parameter's own
/// `schema_with` or description would never be shown, so each is an error on its tokens.
pub(super) fn check_whole_schema(
    whole: Option<&syn::Path>,
    params: &[Param],
    errors: &mut darling::error::Accumulator,
) {
    if whole.is_none() {
        return;
    }
    for param in params {
        let ParamKind::Model {
            schema_with,
            own_description,
            ..
        } = &param.kind
        else {
            continue;
        };
        if let Some(path) = schema_with {
            errors.push(spanned(
                path,
                "`#[tool(schema = ..)]` replaces the tool's whole arguments schema, so this \
                 parameter's `schema_with` is never used; describe the parameter in the tool's \
                 schema and remove `schema_with` (or remove the tool's `schema`)",
            ));
        }
        if let Some(span) = own_description {
            errors.push(
                Error::custom(
                    "`#[tool(schema = ..)]` replaces the tool's whole arguments schema, so this \
                     parameter's description is never shown to the model; put it in the tool's \
                     schema (a `description` beside the property's type) and remove it here",
                )
                .with_span(span),
            );
        }
    }
}

/// The name of the hidden function that calls a parameter's `schema_with` override.
pub(super) fn helper_ident(param: &Ident) -> Ident {
    let name = param.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    format_ident!("__agentry_schema_{}", name)
}

/// `#[schemars(schema_with = "Args::__agentry_schema_x")]` for a parameter with an override.
pub(super) fn field_attr(args_ident: &Ident, param: &Ident) -> TokenStream {
    let path = format!("{args_ident}::{}", helper_ident(param));
    quote!(#[schemars(schema_with = #path)])
}

/// The hidden associated functions of the `Args` struct that call each parameter's override
/// (schemars' `schema_with` takes a path in a string; these keep the user's path, with its
/// spans, in one call).
pub(super) fn helpers(sdk: &TokenStream, params: &[Param]) -> Vec<TokenStream> {
    params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::Model {
                schema_with: Some(path),
                ..
            } => {
                let helper = helper_ident(&p.ident);
                let call = call(sdk, path);
                Some(quote! {
                    #[doc(hidden)]
                    fn #helper(
                        generator: &mut #sdk::schemars::SchemaGenerator,
                    ) -> #sdk::schemars::Schema {
                        #call
                    }
                })
            }
            _ => None,
        })
        .collect()
}

/// `impl JsonSchema for Args`, made by the tool's `schema` override.
pub(super) fn whole_impl(sdk: &TokenStream, args_ident: &Ident, path: &syn::Path) -> TokenStream {
    let name = args_ident.to_string();
    let call = call(sdk, path);
    quote! {
        impl #sdk::schemars::JsonSchema for #args_ident {
            fn schema_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }

            fn schema_id() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(::core::concat!(::core::module_path!(), "::", #name))
            }

            fn json_schema(
                generator: &mut #sdk::schemars::SchemaGenerator,
            ) -> #sdk::schemars::Schema {
                #call
            }
        }
    }
}

/// `__private::schema_with(path, generator)`, spanned at the user's path.
fn call(sdk: &TokenStream, path: &syn::Path) -> TokenStream {
    let span: Span = path.span();
    let sdk = super::codegen::respan(sdk, span);
    quote_spanned! {span=> #sdk::__private::schema_with(#path, generator) }
}
