//! The `Args` fields parsed and described through a probe (`__private::argument`'s
//! `parse_field` / `field_schema`), so that a parameter type without `Deserialize` or
//! `JsonSchema` leaves the generated struct and tool well formed: the missing derive is then
//! one error, the check at the parameter's type, and an agent listing the tool adds none.
//!
//! Standard types (`String`, `bool`, the numbers) need no probe. A field function makes serde
//! and schemars treat the field as required, so an `Option<T>` parameter also gets
//! `#[serde(default)]`: absent is `None`, and the property is not required, as derived. The
//! test is the written type: a type alias of `Option` is a required property the model fills
//! with `null`.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Type};

use super::params::{Param, ParamKind};

/// Whether the field of a model-filled parameter of type `ty` goes through the probe.
pub(super) fn probed(ty: &Type) -> bool {
    !super::codegen::is_known_argument(ty)
}

/// `Option<T>` (or a path ending in it, as `std::option::Option<T>`).
fn is_option(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none()
    && p.path.segments.last().is_some_and(|s| {
        s.ident == "Option" && matches!(s.arguments, syn::PathArguments::AngleBracketed(_))
    }))
}

/// The type a parameter's check names: `T` of `Option<T>`, `Vec<T>`, `VecDeque<T>`, `Box<T>`
/// and of a map keyed by `String` (peeled repeatedly), which parse and have a schema exactly
/// when `T` does; so the error says to derive on `T`, not on the container. Any other type is
/// checked as written.
pub(super) fn checked_type(ty: &Type) -> &Type {
    let Type::Path(p) = ty else {
        return ty;
    };
    let Some(last) = p.path.segments.last() else {
        return ty;
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return ty;
    };
    let types: Vec<&Type> = args
        .args
        .iter()
        .filter_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        })
        .collect();
    let inner = match (last.ident.to_string().as_str(), types.as_slice()) {
        ("Option" | "Vec" | "VecDeque" | "Box", [inner]) => inner,
        ("HashMap" | "BTreeMap", [key, value]) if is_string(key) => value,
        _ => return ty,
    };
    checked_type(inner)
}

/// The check of a parameter's whole type `whole` once its item `item` (what
/// [`checked_type`] found inside it) is a tool argument, at the whole type's span: one error
/// if a container taken for a standard one by its name is not one, none when the item's own
/// check already reported.
pub(super) fn container_check(
    sdk: &TokenStream,
    item: &Type,
    whole: &Type,
    parse_only: bool,
) -> TokenStream {
    let sdk = super::codegen::respan(sdk, whole.span());
    let method = if parse_only {
        quote!(container_parse_check)
    } else {
        quote!(container_check)
    };
    quote_spanned! {whole.span()=>
        const _: () = {
            #[allow(unused_imports)]
            use #sdk::__private::argument::{
                ContainerItemMissing as _, ContainerItemOk as _, ContainerItemParses as _,
            };
            #[allow(dead_code)]
            fn __agentry_check() {
                (&&#sdk::__private::argument::ContainerProbe::<#item, #whole>::new())
                    .#method()
                    .check();
            }
        };
    }
}

fn is_string(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.is_ident("String"))
}

fn parse_ident(param: &Ident) -> Ident {
    let name = param.to_string();
    format_ident!(
        "__agentry_parse_{}",
        name.strip_prefix("r#").unwrap_or(&name)
    )
}

fn schema_ident(param: &Ident) -> Ident {
    let name = param.to_string();
    format_ident!(
        "__agentry_field_schema_{}",
        name.strip_prefix("r#").unwrap_or(&name)
    )
}

/// The field's `#[serde(deserialize_with)]`, and its `#[schemars(schema_with)]` when the
/// schema is derived (`describe`: no override of the parameter's or the tool's schema).
pub(super) fn field_attrs(
    args_ident: &Ident,
    param: &Ident,
    ty: &Type,
    describe: bool,
) -> TokenStream {
    let default = is_option(ty).then(|| quote!(#[serde(default)]));
    let parse = format!("{args_ident}::{}", parse_ident(param));
    let schema = describe.then(|| {
        let path = format!("{args_ident}::{}", schema_ident(param));
        quote!(#[schemars(schema_with = #path)])
    });
    quote! {
        #[serde(deserialize_with = #parse)]
        #default
        #schema
    }
}

/// The hidden associated functions of the `Args` struct the fields' attributes name.
pub(super) fn helpers(sdk: &TokenStream, params: &[Param], whole_schema: bool) -> Vec<TokenStream> {
    params
        .iter()
        .filter_map(|p| match &p.kind {
            ParamKind::Model { schema_with, .. } if probed(&p.ty) => {
                let ty = &p.ty;
                let parse = parse_ident(&p.ident);
                let schema = (schema_with.is_none() && !whole_schema).then(|| {
                    let schema = schema_ident(&p.ident);
                    quote! {
                        #[doc(hidden)]
                        fn #schema(
                            generator: &mut #sdk::schemars::SchemaGenerator,
                        ) -> #sdk::schemars::Schema {
                            #[allow(unused_imports)]
                            use #sdk::__private::argument::{
                                FieldSchemaFallback as _, FieldSchemaOk as _,
                            };
                            (&&#sdk::__private::argument::ArgumentProbe::<#ty>::new())
                                .field_schema(generator)
                        }
                    }
                });
                Some(quote! {
                    #[doc(hidden)]
                    fn #parse<'de, D: #sdk::serde::Deserializer<'de>>(
                        deserializer: D,
                    ) -> ::core::result::Result<#ty, D::Error> {
                        #[allow(unused_imports)]
                        use #sdk::__private::argument::{
                            ParseFieldFallback as _, ParseFieldOk as _,
                        };
                        (&&#sdk::__private::argument::ArgumentProbe::<#ty>::new())
                            .parse_field(deserializer)
                    }
                    #schema
                })
            }
            _ => None,
        })
        .collect()
}
