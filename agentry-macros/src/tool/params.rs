//! The parameters of a tool function: which ones the model fills and which ones the runtime
//! injects.

use darling::{Error, FromMeta};
use syn::{Attribute, FnArg, Ident, Pat, ReturnType, Type};

use super::param_checks;
use super::param_types::{
    contains_impl_trait, extractor_name, find_borrow, inner_borrow_message, reference_message,
    wrapped_extractor,
};
use super::schema_override::SchemaPath;
use crate::docs;
use crate::text::Text;

/// `#[arg(description = "...", rename = "...", schema_with = path)]` on a parameter.
#[derive(FromMeta, Default)]
struct ArgAttrs {
    description: Option<Text>,
    rename: Option<Text>,
    schema_with: Option<SchemaPath>,
}

/// The keys of `#[arg(...)]`.
const ARG_KEYS: [&str; 3] = ["description", "rename", "schema_with"];

/// `#[arg(...)]`'s keys, an unknown one said in our words (see `keys`).
fn arg_attrs(list: &syn::MetaList) -> darling::Result<ArgAttrs> {
    let metas = darling::ast::NestedMeta::parse_meta_list(list.tokens.clone())?;
    let aliases = [(
        "default",
        "an `Option<..>` parameter and `.unwrap_or(..)` in the body (the model may leave it out)",
    )];
    let (known, unknown) = crate::keys::known_keys(&metas, &ARG_KEYS, "arg", &aliases);
    if !unknown.is_empty() {
        return Err(darling::Error::multiple(unknown));
    }
    ArgAttrs::from_list(&known)
}

/// How a parameter gets its value.
pub enum ParamKind {
    /// The model fills it; it is a field of the generated `Args` struct.
    Model {
        /// The JSON property name.
        json_name: String,
        /// Whether `json_name` differs from the Rust name.
        renamed: bool,
        description: Option<String>,
        /// Where the parameter's own description (`#[arg(description)]` or a `///` comment)
        /// is written, if it has one.
        own_description: Option<proc_macro2::Span>,
        /// `#[arg(schema_with = path)]`: the function making this parameter's schema.
        schema_with: Option<syn::Path>,
    },
    /// The runtime fills it through `Inject`.
    Injected,
}

pub struct Param {
    pub ident: Ident,
    pub ty: Type,
    pub kind: ParamKind,
}

impl Param {
    /// Whether the parameter is the SDK's `Interrupt<Q, A>` (injected, and asked by the tool).
    pub fn is_interrupt(&self) -> bool {
        matches!(self.kind, ParamKind::Injected) && extractor_name(&self.ty) == Some("Interrupt")
    }
}

/// Whether a `self` parameter is allowed.
#[derive(Clone, Copy)]
pub enum ReceiverPolicy {
    /// A free function.
    Forbidden,
    /// A method of an `#[agent]` impl block: `&self` only.
    SharedRefOnly,
}

/// The checked signature of a tool function.
pub struct Signature {
    /// Whether the function takes `&self` (a tool method).
    pub has_receiver: bool,
    pub is_async: bool,
    pub params: Vec<Param>,
    /// The written return type, if any.
    pub ret_ty: Option<Type>,
    /// Whether the return type is written as `...Result<..>`.
    pub returns_result: bool,
}

impl Signature {
    /// Checks the signature and strips the parameter attributes `#[tool]` consumes (`#[arg]`,
    /// `#[inject]`, doc comments), which the compiler would reject on parameters.
    pub fn parse(
        sig: &mut syn::Signature,
        fn_attrs: &[Attribute],
        receiver: ReceiverPolicy,
    ) -> darling::Result<Self> {
        let mut errors = Error::accumulator();

        if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
            errors.push(spanned(
                &sig.generics,
                "a tool cannot be generic: its JSON schema must be known at compile time; \
                 use concrete types",
            ));
        }
        if let syn::Safety::Unsafe(unsafety) = &sig.safety {
            errors.push(spanned(
                unsafety,
                "a tool cannot be `unsafe`: the model decides when it runs; wrap the unsafe \
                 code in a safe function",
            ));
        }
        if let Some(abi) = &sig.abi {
            errors.push(spanned(
                abi,
                "a tool cannot have an `extern` ABI; remove it",
            ));
        }
        if let Some(constness) = &sig.constness {
            errors.push(spanned(
                constness,
                "a tool cannot be a `const fn`: the model calls it at run time, so `const` \
                 changes nothing for the tool; remove `const` (or keep a `const fn` and call \
                 it from a `#[tool]` function)",
            ));
        }
        if let Some(variadic) = &sig.variadic {
            errors.push(spanned(variadic, "a tool cannot be variadic"));
        }

        let section = docs::arguments_section(&docs::doc_lines(fn_attrs));
        let mut has_receiver = false;
        let mut params = Vec::new();
        let mut rejected = Vec::new();
        for input in sig.inputs.iter_mut() {
            match input {
                FnArg::Receiver(r) => match receiver {
                    ReceiverPolicy::Forbidden => errors.push(spanned(
                        &*r,
                        "`#[tool]` on a free function cannot take `self`; for tools that use a \
                         resource, put `#[agent]` on the `impl` block that holds the `#[tool]` \
                         methods",
                    )),
                    ReceiverPolicy::SharedRefOnly => {
                        match &r.kind {
                            syn::ReceiverKind::Reference(_, _, None) => {}
                            syn::ReceiverKind::Reference(_, _, Some(_)) => errors.push(spanned(
                                &*r,
                                "a tool method cannot take `&mut self`: tool calls of one turn run \
                                 in parallel; take `&self` and use a `Mutex` inside, or `State<T>`",
                            )),
                            // `self`, `mut self`, `self: Box<Self>` and any receiver form syn
                            // adds later.
                            _ => errors.push(spanned(
                                &*r,
                                "a tool method takes `&self`: the agent shares one value between \
                                 concurrent tool calls",
                            )),
                        }
                        has_receiver = true;
                    }
                },
                FnArg::Typed(pat_type) => {
                    let taken = take_param_attrs(&mut pat_type.attrs, &mut errors);
                    let Some(ident) = param_ident(&pat_type.pat, &mut errors) else {
                        continue;
                    };
                    match classify(
                        ident.clone(),
                        (*pat_type.ty).clone(),
                        taken,
                        &section,
                        &mut errors,
                    ) {
                        Some(param) => params.push(param),
                        None => rejected.push(ident),
                    }
                }
            }
        }

        let mut interrupts = params.iter().filter(|p| p.is_interrupt());
        if let Some(first) = interrupts.next() {
            if let Some(second) = interrupts.next() {
                errors.push(spanned(
                    &second.ty,
                    "a tool takes at most one `Interrupt`: ask it several times (the asks are \
                     answered in order), with one question type that covers them (an enum)",
                ));
            }
            if sig.asyncness.is_none() {
                errors.push(spanned(
                    &first.ty,
                    "a tool with an `Interrupt` must be an `async fn`: `ask(..).await` pauses \
                     the run; write `async fn`",
                ));
            }
        }

        param_checks::check_arguments_section(&section, &params, &rejected, fn_attrs, &mut errors);
        param_checks::check_duplicate_names(&params, &mut errors);
        param_checks::check_duplicate_injections(&params, &mut errors);

        let ret_ty = match &sig.output {
            ReturnType::Default => None,
            ReturnType::Type(_, ty) => Some((**ty).clone()),
        };
        let returns_result = ret_ty.as_ref().is_some_and(is_result);
        errors.finish_with(Signature {
            has_receiver,
            is_async: sig.asyncness.is_some(),
            params,
            ret_ty,
            returns_result,
        })
    }
}

/// An error covering all of `node`'s tokens (darling's own spans cover only the first token).
pub(super) fn spanned<T: quote::ToTokens + ?Sized>(node: &T, message: &str) -> Error {
    syn::Error::new_spanned(node, message).into()
}

/// What `take_param_attrs` found on one parameter.
struct TakenAttrs {
    arg: Option<(ArgAttrs, Attribute)>,
    inject: Option<Attribute>,
    doc: String,
    /// The first `///` line's span.
    doc_span: Option<proc_macro2::Span>,
}

fn take_param_attrs(
    attrs: &mut Vec<Attribute>,
    errors: &mut darling::error::Accumulator,
) -> TakenAttrs {
    let mut taken = TakenAttrs {
        arg: None,
        inject: None,
        doc: docs::doc_lines(attrs).join(" ").trim().to_string(),
        doc_span: attrs
            .iter()
            .find(|a| a.path().is_ident("doc"))
            .map(syn::spanned::Spanned::span),
    };
    attrs.retain(|attr| {
        let path = attr.path();
        if path.is_ident("doc") {
            false
        } else if path.is_ident("inject") {
            if attr.meta.require_path_only().is_err() {
                errors.push(spanned(
                    attr,
                    "`#[inject]` takes no arguments; the parameter's type says what to inject",
                ));
            }
            if taken.inject.replace(attr.clone()).is_some() {
                errors.push(spanned(attr, "duplicate `#[inject]`"));
            }
            false
        } else if path.is_ident("arg") {
            let parsed = match &attr.meta {
                syn::Meta::Path(_) => Ok(ArgAttrs::default()),
                syn::Meta::List(list) => arg_attrs(list),
                meta => ArgAttrs::from_meta(meta),
            };
            match parsed {
                Ok(arg) => {
                    if taken.arg.replace((arg, attr.clone())).is_some() {
                        errors.push(spanned(
                            attr,
                            "duplicate `#[arg]`: put every key in one `#[arg(...)]`",
                        ));
                    }
                }
                Err(e) => errors.push(e),
            }
            false
        } else {
            true
        }
    });
    taken
}

fn param_ident(pat: &Pat, errors: &mut darling::error::Accumulator) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.clone()),
        other => {
            errors.push(spanned(
                other,
                "a tool parameter must be a plain name (`city: String`), because the name is \
                 the JSON property the model fills; destructure inside the body instead",
            ));
            None
        }
    }
}

fn classify(
    ident: Ident,
    ty: Type,
    taken: TakenAttrs,
    section: &[(String, String)],
    errors: &mut darling::error::Accumulator,
) -> Option<Param> {
    let extractor = extractor_name(&ty);
    if let Type::Reference(reference) = &ty {
        errors.push(spanned(&ty, &reference_message(&ident, reference)));
        return None;
    }
    if let Some(borrow) = find_borrow(&ty) {
        errors.push(spanned(
            borrow.tokens(),
            &inner_borrow_message(&ty, &borrow),
        ));
        return None;
    }
    if contains_impl_trait(&ty) {
        errors.push(spanned(
            &ty,
            "a tool parameter cannot be `impl Trait`: the JSON schema needs a concrete type",
        ));
        return None;
    }

    if taken.inject.is_none()
        && let Some((wrapper, name)) = wrapped_extractor(&ty)
    {
        // `Store` and `ToolCallId` take no type parameters.
        let written = match name {
            "Store" | "ToolCallId" => name.to_string(),
            _ => format!("{name}<..>"),
        };
        errors.push(spanned(
            &ty,
            &format!(
                "`{name}` is injected by the runtime and is always there, so it cannot be \
                 wrapped in `{wrapper}`; take `{written}` itself as the parameter"
            ),
        ));
        return None;
    }

    if let (Some(_), Some(inject)) = (&taken.arg, &taken.inject) {
        errors.push(spanned(
            inject,
            "a parameter is either filled by the model (`#[arg]`) or injected by the \
             runtime (`#[inject]`), not both; remove one",
        ));
        return None;
    }

    if taken.inject.is_some() {
        return Some(Param {
            ident,
            ty,
            kind: ParamKind::Injected,
        });
    }

    match (taken.arg, extractor) {
        (Some((_, attr)), Some(name)) => {
            errors.push(spanned(
                &attr,
                &format!(
                    "`{name}` is injected by the runtime and never shown to the model, so it \
                     cannot be an `#[arg]`; remove `#[arg]` (or use your own type for a \
                     model-filled argument)"
                ),
            ));
            None
        }
        (None, Some(_)) => Some(Param {
            ident,
            ty,
            kind: ParamKind::Injected,
        }),
        (arg, None) => {
            let rust_name = ident.to_string();
            let rust_name = rust_name
                .strip_prefix("r#")
                .unwrap_or(&rust_name)
                .to_string();
            let arg = arg.map(|(arg, _)| arg).unwrap_or_default();
            if let Some(rename) = &arg.rename
                && let Err(reason) = check_property_name(&rename.value())
            {
                errors.push(Error::custom(reason).with_span(&rename.span()));
            }
            if let Some(description) = &arg.description
                && description.value().trim().is_empty()
            {
                errors.push(
                    Error::custom(
                        "`description` is empty: say what the model should put in this \
                         argument, or remove it",
                    )
                    .with_span(&description.span()),
                );
            }
            let own_description = match &arg.description {
                Some(d) => Some(d.span()),
                None if !taken.doc.is_empty() => taken.doc_span,
                None => None,
            };
            let from_section = section
                .iter()
                .find(|(name, _)| *name == rust_name)
                .map(|(_, d)| d.clone());
            let description = arg
                .description
                .map(|d| d.value())
                .or_else(|| (!taken.doc.is_empty()).then_some(taken.doc))
                .or(from_section)
                .filter(|d| !d.is_empty());
            let json_name = arg
                .rename
                .map(|r| r.value())
                .unwrap_or_else(|| rust_name.clone());
            Some(Param {
                ident,
                ty,
                kind: ParamKind::Model {
                    renamed: json_name != rust_name,
                    json_name,
                    description,
                    own_description,
                    schema_with: arg.schema_with.map(|p| p.0),
                },
            })
        }
    }
}

fn is_result(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Result"),
        Type::Paren(p) => is_result(&p.elem),
        Type::Group(g) => is_result(&g.elem),
        _ => false,
    }
}

/// A JSON property name every provider accepts: 1 to 64 ASCII letters, digits, `_`, `.`
/// and `-` (Anthropic's rule for `input_schema` properties, the strictest).
fn check_property_name(name: &str) -> Result<(), String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "invalid argument name {name:?}: providers accept 1 to 64 ASCII letters, digits, \
             `_`, `.` and `-` as property names (e.g. \"start_date\")"
        ))
    }
}
