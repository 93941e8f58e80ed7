//! Checks across a tool's parameters: every `# Arguments` entry names one, no name is taken
//! twice, no injected type is taken twice.

use darling::Error;
use quote::ToTokens;
use syn::{Attribute, Ident};

use super::params::{Param, ParamKind, spanned};

/// A `# Arguments` entry naming no parameter is almost always a typo or a stale doc.
pub(super) fn check_arguments_section(
    section: &[(String, String)],
    params: &[Param],
    rejected: &[Ident],
    attrs: &[Attribute],
    errors: &mut darling::error::Accumulator,
) {
    for (index, (name, _)) in section.iter().enumerate() {
        if section[..index].iter().any(|(earlier, _)| earlier == name) {
            let needle = format!("`{name}`");
            let docs: Vec<&Attribute> = attrs
                .iter()
                .filter(|a| {
                    a.path().is_ident("doc") && a.to_token_stream().to_string().contains(&needle)
                })
                .collect();
            let message = format!(
                "`{name}` is described twice in the `# Arguments` section; keep one line for it"
            );
            match docs.get(1).or(docs.first()) {
                Some(attr) => errors.push(spanned(*attr, &message)),
                None => errors.push(Error::custom(message)),
            }
            continue;
        }
        // A parameter already rejected (reported at its type) is still a parameter.
        let known = params
            .iter()
            .map(|p| &p.ident)
            .chain(rejected)
            .any(|ident| {
                let ident = ident.to_string();
                ident.strip_prefix("r#").unwrap_or(&ident) == name
            });
        if !known {
            let message = format!(
                "the `# Arguments` section documents `{name}`, but the function has no \
                 parameter with that name; fix the name or remove the line"
            );
            let needle = format!("`{name}`");
            match attrs.iter().find(|a| {
                a.path().is_ident("doc") && a.to_token_stream().to_string().contains(&needle)
            }) {
                Some(attr) => errors.push(spanned(attr, &message)),
                None => errors.push(Error::custom(message)),
            }
        }
    }
}

pub(super) fn check_duplicate_names(params: &[Param], errors: &mut darling::error::Accumulator) {
    let mut seen: Vec<&str> = Vec::new();
    for (i, param) in params.iter().enumerate() {
        // A name bound twice is one mistake, said once here: the function is emitted with the
        // second binding renamed (`rename_rebound`), so rustc does not report it again.
        if params[..i].iter().any(|p| p.ident == param.ident) {
            errors.push(spanned(
                &param.ident,
                &format!(
                    "two parameters are named `{}`; rename one (a tool's parameters are its \
                     JSON arguments, and need distinct names)",
                    param.ident
                ),
            ));
            continue;
        }
        if let ParamKind::Model { json_name, .. } = &param.kind {
            if seen.contains(&json_name.as_str()) {
                errors.push(spanned(
                    &param.ident,
                    &format!(
                        "two parameters are named `{json_name}` in the tool's JSON arguments; \
                         give one a different `#[arg(rename = \"...\")]`"
                    ),
                ));
            }
            seen.push(json_name);
        }
    }
}

/// Renames each parameter binding a name an earlier one binds (`key` → `_key_2`), so that a
/// function emitted beside the error of [`check_duplicate_names`] adds no error of rustc's
/// (E0415) and its body still sees the first binding.
pub(super) fn rename_rebound(sig: &mut syn::Signature) {
    let mut seen: Vec<syn::Ident> = Vec::new();
    for (n, input) in sig.inputs.iter_mut().enumerate() {
        let syn::FnArg::Typed(typed) = input else {
            continue;
        };
        let syn::Pat::Ident(pat) = &mut *typed.pat else {
            continue;
        };
        if seen.contains(&pat.ident) {
            pat.ident = syn::Ident::new(&format!("_{}_{}", pat.ident, n + 1), pat.ident.span());
        } else {
            seen.push(pat.ident.clone());
        }
    }
}

/// The runtime injects the same value into every parameter of one type: a second one is a
/// mistake (two `Context<User>` are one user). `Interrupt`s are checked on their own.
pub(super) fn check_duplicate_injections(
    params: &[Param],
    errors: &mut darling::error::Accumulator,
) {
    let mut seen: Vec<(String, &Ident)> = Vec::new();
    for param in params {
        if !matches!(param.kind, ParamKind::Injected) || param.is_interrupt() {
            continue;
        }
        let ty = param.ty.to_token_stream().to_string().replace(' ', "");
        match seen.iter().find(|(t, _)| *t == ty) {
            Some((_, first)) => errors.push(spanned(
                &param.ty,
                &format!(
                    "`{ty}` is injected twice: `{first}` already receives it, and both would \
                     hold the same value; remove this parameter and use `{first}`"
                ),
            )),
            None => seen.push((ty, &param.ident)),
        }
    }
}
