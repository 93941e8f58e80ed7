//! Writing the `StructuredOutput` impl: schema constraints and run-time checks per field,
//! nested outputs reached through auto-ref probes, and the custom validators.

use darling::Error;
use proc_macro2::{Literal, Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

use super::attrs::{ContainerAttrs, FieldAttrs, first_output_attr};
use super::serde_attrs::{SerdeAttrs, unraw};
use crate::crate_path::sdk_path;
use crate::docs;

/// Where a field's value sits relative to its parent's JSON and schema.
pub(super) enum Place {
    /// An object property.
    Key(String),
    /// An item of a tuple (`prefixItems`).
    Index(usize),
    /// The parent itself (newtype, `transparent`).
    Same,
    /// Merged into the parent (`#[serde(flatten)]`): no node of its own.
    Flatten,
}

/// One field to check.
pub(super) struct FieldPlan<'a> {
    pub(super) ty: &'a Type,
    /// How to reach the value: `&self.name`, or a binding in an enum arm.
    access: TokenStream,
    pub(super) place: Place,
    pub(super) attrs: FieldAttrs,
    /// The field's name and visibility (a struct's named field), for the partial mirror.
    pub(super) ident: Option<&'a syn::Ident>,
    pub(super) vis: Option<&'a syn::Visibility>,
}

pub fn expand(input: &DeriveInput) -> darling::Result<TokenStream> {
    let sdk = sdk_path();
    let mut errors = Error::accumulator();
    let container = errors.handle(ContainerAttrs::parse(&input.attrs));
    let serde = SerdeAttrs::parse(&input.attrs);
    // A structured output is parsed from the answer's text, which does not outlive the
    // parse: it owns its data (`StructuredOutput: DeserializeOwned + 'static`). Said here, at
    // the lifetime, rather than where an agent first asks for it.
    if let Some(lifetime) = input.generics.lifetimes().next() {
        errors.push(
            Error::custom(
                "a structured output owns its data (it is parsed from the model's answer, \
                 which does not outlive the parse): remove the lifetime and use owned types, \
                 `String` for `&str`, `Vec<T>` for `&[T]`",
            )
            .with_span(&lifetime.lifetime),
        );
    }

    let mut partial = None;
    let (constraints, validation) = match &input.data {
        Data::Struct(data) => {
            let plans = struct_plans(&data.fields, &serde, &mut errors);
            let constraints = plans.iter().map(|p| field_constraints(&sdk, p)).collect();
            let validation = plans.iter().map(|p| field_validation(&sdk, p)).collect();
            let mirrored = !serde.transparent;
            partial = Some(super::partial::expand(
                &sdk,
                input,
                mirrored.then_some(&plans[..]),
            ));
            (constraints, validation)
        }
        Data::Enum(data) => errors
            .handle(enum_code(&sdk, data, &serde))
            .unwrap_or_default(),
        // Nothing to generate: the union is no output at all (and no impl is better than one
        // that reports the union's missing derives besides).
        Data::Union(data) => {
            errors.push(
                Error::custom(
                    "`StructuredOutput` cannot be derived for a union: use a struct or an enum",
                )
                .with_span(&data.union_token),
            );
            // Finished, not dropped (an unfinished accumulator panics on drop): the union's
            // error and any the attributes had.
            return errors.finish_with(TokenStream::new());
        }
    };
    let partial = partial.unwrap_or_else(|| super::partial::expand(&sdk, input, None));
    // The impl is written even beside errors (without the constraints in error), so the
    // type's uses as an agent's output add no "not a structured output" of their own.
    let reported = errors.finish().err().map(|e| e.write_errors());
    let container = container.unwrap_or(ContainerAttrs {
        name: None,
        description: None,
        validate: None,
    });

    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    // The type's own where clause, for the impls that add no bound of their own.
    let type_where = where_clause.cloned();
    let mut where_clause = where_clause
        .cloned()
        .unwrap_or_else(|| syn::parse_quote!(where));
    let generic = !input.generics.params.is_empty();
    // Higher-ranked for a concrete type, so rustc does not report it as a trivially false
    // bound: a missing derive is reported once, by the assertion below, not also here.
    let binder = (!generic).then(|| quote!(for<'__agentry>));
    where_clause.predicates.push(syn::parse_quote!(
        #binder #ident #ty_generics: #sdk::__private::output::OutputSupertraits
    ));

    let known_name = match (&container.name, generic) {
        (Some(name), _) => Some(name.clone()),
        (None, false) => Some(unraw(ident)),
        (None, true) => None,
    };
    // The name again as an inherent constant, which `#[agent(output = ..)]` reads whether or
    // not the type is a structured output yet (a missing companion derive is the derive's
    // error, not the agent's too).
    let inherent_name = known_name.as_ref().map(|name| {
        quote! {
            #[automatically_derived]
            #[allow(dead_code)]
            impl #impl_generics #ident #ty_generics #type_where {
                #[doc(hidden)]
                pub const __AGENTRY_OUTPUT_NAME: ::core::option::Option<&'static str> =
                    ::core::option::Option::Some(#name);
            }
        }
    });
    let name_fn = known_name.map(|name| {
        quote! {
            const OUTPUT_NAME: ::core::option::Option<&'static str> =
                ::core::option::Option::Some(#name);

            fn output_name() -> ::std::borrow::Cow<'static, str> {
                ::std::borrow::Cow::Borrowed(#name)
            }
        }
    });

    let doc = docs::doc_text(&input.attrs);
    let description = container
        .description
        .clone()
        .or_else(|| (!doc.is_empty()).then_some(doc));
    let description_fn = description.as_ref().map(|d| {
        quote! {
            fn output_description() -> ::core::option::Option<::std::borrow::Cow<'static, str>> {
                ::core::option::Option::Some(::std::borrow::Cow::Borrowed(#d))
            }
        }
    });
    let description_override = container.description.as_ref().map(|d| {
        quote! {
            if let ::core::option::Option::Some(map) = schema.as_object_mut() {
                map.insert("description".into(), #sdk::serde_json::Value::from(#d));
            }
        }
    });

    let type_validator = container.validate.as_ref().map(|path| {
        quote_spanned! {path.span()=>
            #sdk::__private::output::check_custom(self, #path, v);
        }
    });

    // Checked where the user wrote the type, so a missing derive is reported there by name
    // (one error, naming both when both are missing).
    let assertion = (!generic).then(|| {
        quote_spanned! {ident.span()=>
            const _: () = {
                #[allow(unused_imports)]
                use #sdk::__private::output::{
                    ProbeBoundsOk as _, ProbeNoDerives as _, ProbeNoDeserialize as _,
                    ProbeNoSchema as _,
                };
                #[allow(dead_code)]
                fn __agentry_check() {
                    (&&&#sdk::__private::output::BoundsProbe::<#ident>::new()).probe().check();
                }
            };
            const _: () = #sdk::__private::output::assert_output_send::<#ident>();
        }
    });

    // Marks a type whose derives were checked above, so an agent with it as its output does
    // not report the same mistake again.
    let derived = (!generic).then(|| {
        quote! {
            #[automatically_derived]
            impl #sdk::__private::output::Derived for #ident {}
        }
    });

    Ok(quote! {
        #reported

        #assertion

        #inherent_name

        #derived

        #partial

        #[automatically_derived]
        impl #impl_generics #sdk::output::StructuredOutput for #ident #ty_generics #where_clause {
            #name_fn
            #description_fn

            #[allow(unused_variables)]
            fn add_constraints(
                schema: &mut #sdk::serde_json::Value,
                patch: &mut #sdk::output::SchemaPatch,
            ) {
                #[allow(unused_imports)]
                use #sdk::__private::output::{ViaOutputType as _, ViaPlainType as _};
                #description_override
                #constraints
            }

            #[allow(unused_variables)]
            fn validate_into(&self, v: &mut #sdk::output::Validation) {
                #[allow(unused_imports)]
                use #sdk::__private::output::{ViaOutput as _, ViaPlain as _};
                #validation
                #type_validator
            }
        }
    })
}

/// The fields of a struct, placed as serde places them; a field whose `#[output]` is in
/// error is kept without constraints (the error goes to `errors`).
fn struct_plans<'a>(
    fields: &'a Fields,
    serde: &SerdeAttrs,
    errors: &mut darling::error::Accumulator,
) -> Vec<FieldPlan<'a>> {
    let mut plans = Vec::new();
    let live = fields
        .iter()
        .filter(|f| !SerdeAttrs::parse(&f.attrs).skip)
        .count();
    for (index, field) in fields.iter().enumerate() {
        let attrs = errors
            .handle(FieldAttrs::parse(&field.attrs, &field.ty))
            .unwrap_or_default();
        let fserde = SerdeAttrs::parse(&field.attrs);
        if fserde.skip {
            if let Some(span) = attrs.span {
                errors.push(skipped_error(span));
            }
            continue;
        }
        let place = if fserde.flatten {
            Place::Flatten
        } else if serde.transparent || (matches!(fields, Fields::Unnamed(_)) && live == 1) {
            Place::Same
        } else {
            match &field.ident {
                Some(ident) => Place::Key(field_name(ident, &fserde, serde.rename_all)),
                None => Place::Index(index),
            }
        };
        if matches!(place, Place::Flatten)
            && let Some(span) = attrs.span
            && !attrs.is_empty()
        {
            errors.push(
                Error::custom(
                    "constraints cannot go on a `#[serde(flatten)]` field: put them on the \
                     fields of the flattened type, and derive `StructuredOutput` for it",
                )
                .with_span(&span),
            );
            continue;
        }
        let access = match &field.ident {
            Some(ident) => quote!(&self.#ident),
            None => {
                let index = syn::Index::from(index);
                quote!(&self.#index)
            }
        };
        plans.push(FieldPlan {
            ty: &field.ty,
            access,
            place,
            attrs,
            ident: field.ident.as_ref(),
            vis: Some(&field.vis),
        });
    }
    plans
}

fn field_name(
    ident: &syn::Ident,
    field: &SerdeAttrs,
    rule: Option<super::serde_attrs::RenameRule>,
) -> String {
    match (&field.rename, rule) {
        (Some(name), _) => name.clone(),
        (None, Some(rule)) => rule.field(&unraw(ident)),
        (None, None) => unraw(ident),
    }
}

fn skipped_error(span: Span) -> Error {
    Error::custom(
        "this field is skipped by serde (`skip` / `skip_deserializing`): the model never fills \
         it, so it cannot have `#[output]` constraints; remove them",
    )
    .with_span(&span)
}

fn opt_f64(x: Option<f64>) -> TokenStream {
    match x {
        Some(x) => {
            let lit = Literal::f64_unsuffixed(x);
            quote!(::core::option::Option::Some(#lit))
        }
        None => quote!(::core::option::Option::None),
    }
}

fn opt_usize(x: Option<usize>) -> TokenStream {
    match x {
        Some(x) => {
            let lit = Literal::usize_unsuffixed(x);
            quote!(::core::option::Option::Some(#lit))
        }
        None => quote!(::core::option::Option::None),
    }
}

/// Adds a struct field's constraints to its schema node and patches nested outputs.
fn field_constraints(sdk: &TokenStream, plan: &FieldPlan) -> TokenStream {
    let ty = plan.ty;
    let o = quote!(#sdk::__private::output);
    let mut body = TokenStream::new();
    if let Some((min, max)) = plan.attrs.range {
        let (min, max) = (opt_f64(min), opt_f64(max));
        body.extend(quote!(#o::add_range(node, #min, #max);));
    }
    if let Some((min, max)) = plan.attrs.length {
        let (min, max) = (opt_usize(min), opt_usize(max));
        body.extend(quote!(#o::add_length(node, #min, #max);));
    }
    if let Some(pattern) = &plan.attrs.pattern {
        body.extend(quote!(#o::add_pattern(node, #pattern);));
    }
    body.extend(quote!((&#o::TypeProbe::<#ty>::new()).output_patch(node, patch);));
    match &plan.place {
        Place::Key(name) => quote! {
            if let ::core::option::Option::Some(node) = #o::property(schema, #name) {
                #body
            }
        },
        Place::Index(index) => quote! {
            if let ::core::option::Option::Some(node) = schema
                .get_mut("prefixItems")
                .and_then(|items| items.get_mut(#index))
            {
                #body
            }
        },
        Place::Same => quote! {{
            let node: &mut #sdk::serde_json::Value = &mut *schema;
            #body
        }},
        Place::Flatten => quote!((&#o::TypeProbe::<#ty>::new()).output_patch_def(patch);),
    }
}

/// Checks one field's value: constraints, custom validator, nested outputs.
fn field_validation(sdk: &TokenStream, plan: &FieldPlan) -> TokenStream {
    field_validation_at(sdk, plan, plan.access.clone())
}

/// [`field_validation`] of the value `access` (a `&FieldType`) in place of the field.
pub(super) fn field_validation_at(
    sdk: &TokenStream,
    plan: &FieldPlan,
    access: TokenStream,
) -> TokenStream {
    let ty = plan.ty;
    let o = quote!(#sdk::__private::output);
    let mut body = TokenStream::new();
    if let Some((min, max)) = plan.attrs.range {
        let (min, max) = (opt_f64(min), opt_f64(max));
        body.extend(quote_spanned!(ty.span()=> #o::check_range::<#ty>(value, #min, #max, v);));
    }
    if let Some((min, max)) = plan.attrs.length {
        let (min, max) = (opt_usize(min), opt_usize(max));
        body.extend(quote_spanned!(ty.span()=> #o::check_length::<#ty>(value, #min, #max, v);));
    }
    if let Some(pattern) = &plan.attrs.pattern {
        body.extend(quote_spanned! {ty.span()=>
            {
                static REGEX: ::std::sync::OnceLock<#o::Regex> = ::std::sync::OnceLock::new();
                #o::check_pattern::<#ty>(value, #o::cached_regex(&REGEX, #pattern), v);
            }
        });
    }
    if let Some(path) = &plan.attrs.validate {
        body.extend(quote_spanned!(path.span()=> #o::check_custom(value, #path, v);));
    }
    body.extend(quote!((&#o::Probe(value)).output_validate(v);));
    let body = quote! {
        let value: &#ty = #access;
        #body
    };
    wrap_place(&plan.place, body)
}

fn wrap_place(place: &Place, body: TokenStream) -> TokenStream {
    match place {
        Place::Key(name) => quote!(v.field(#name, |v| { #body });),
        Place::Index(index) => quote!(v.index(#index, |v| { #body });),
        Place::Same | Place::Flatten => quote!({ #body }),
    }
}

/// An enum: nested outputs of every variant are validated at their JSON path (which depends
/// on serde's tagging) and their definitions patched; field constraints are refused.
fn enum_code(
    sdk: &TokenStream,
    data: &syn::DataEnum,
    serde: &SerdeAttrs,
) -> darling::Result<(TokenStream, TokenStream)> {
    let o = quote!(#sdk::__private::output);
    let mut errors = Error::accumulator();
    let mut constraints = TokenStream::new();
    let mut arms = TokenStream::new();
    for variant in &data.variants {
        if let Some(attr) = first_output_attr(&variant.attrs) {
            errors.push(
                Error::custom(
                    "`#[output]` does not go on enum variants: put `#[output(validate = path)]` \
                     on the enum, or move the variant's data into a struct that derives \
                     `StructuredOutput`",
                )
                .with_span(attr),
            );
        }
        let vserde = SerdeAttrs::parse(&variant.attrs);
        if vserde.skip {
            continue;
        }
        let vname = match (&vserde.rename, serde.rename_all) {
            (Some(name), _) => name.clone(),
            (None, Some(rule)) => rule.variant(&unraw(&variant.ident)),
            (None, None) => unraw(&variant.ident),
        };
        let field_rule = vserde.rename_all.or(serde.rename_all_fields);
        let live: Vec<_> = variant
            .fields
            .iter()
            .enumerate()
            .filter(|(_, f)| !SerdeAttrs::parse(&f.attrs).skip)
            .collect();
        let mut checks = TokenStream::new();
        let mut bindings = Vec::new();
        for (index, field) in &live {
            if let Some(attr) = first_output_attr(&field.attrs) {
                errors.push(
                    Error::custom(
                        "field constraints are not supported inside enum variants: move the \
                         fields into a struct that derives `StructuredOutput` and use it as a \
                         newtype variant, e.g. `Variant(VariantData)`",
                    )
                    .with_span(attr),
                );
                continue;
            }
            let ty = &field.ty;
            constraints.extend(quote!((&#o::TypeProbe::<#ty>::new()).output_patch_def(patch);));
            let binding = syn::Ident::new(&format!("__field{index}"), Span::call_site());
            let fserde = SerdeAttrs::parse(&field.attrs);
            let place = match &field.ident {
                _ if fserde.flatten => Place::Flatten,
                Some(ident) => Place::Key(field_name(ident, &fserde, field_rule)),
                None if live.len() == 1 => Place::Same,
                None => Place::Index(*index),
            };
            let check = quote! {
                let value: &#ty = #binding;
                (&#o::Probe(value)).output_validate(v);
            };
            checks.extend(wrap_place(&place, check));
            let member = match &field.ident {
                Some(ident) => ident.to_token_stream(),
                None => syn::Index::from(*index).to_token_stream(),
            };
            bindings.push(quote!(#member: #binding));
        }
        if bindings.is_empty() {
            continue;
        }
        let prefix = if serde.untagged || (serde.tag.is_some() && serde.content.is_none()) {
            None
        } else if let Some(content) = &serde.content {
            Some(content.clone())
        } else {
            Some(vname)
        };
        let checks = match prefix {
            Some(key) => quote!(v.field(#key, |v| { #checks });),
            None => checks,
        };
        let vident = &variant.ident;
        arms.extend(quote! {
            Self::#vident { #(#bindings,)* .. } => { #checks }
        });
    }
    let validation = if arms.is_empty() {
        TokenStream::new()
    } else {
        quote! {
            #[allow(unreachable_patterns)]
            match self {
                #arms
                _ => {}
            }
        }
    };
    errors.finish_with((constraints, validation))
}
