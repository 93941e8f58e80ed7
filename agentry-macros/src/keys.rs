//! Unknown keys of an attribute: one error on each, naming the closest known key (or what a
//! key from another library is written as here) and listing the keys. darling's own message
//! ("Unknown field: ...") says neither what the attribute is nor, past a few keys, which ones
//! it takes.

use darling::Error;
use darling::ast::NestedMeta;

/// `metas` without the entries whose key is not one of `keys`, and one error for each of
/// those, on its key. `attr` names the attribute (`tool`, `arg`, `output`); `aliases` maps a
/// key users bring from elsewhere (`max_length`) to what to write instead.
pub fn known_keys(
    metas: &[NestedMeta],
    keys: &[&str],
    attr: &str,
    aliases: &[(&str, &str)],
) -> (Vec<NestedMeta>, Vec<Error>) {
    let mut known = Vec::with_capacity(metas.len());
    let mut errors = Vec::new();
    for meta in metas {
        let NestedMeta::Meta(m) = meta else {
            known.push(meta.clone());
            continue;
        };
        let key = m.path();
        let name = key
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_else(|| quote::quote!(#key).to_string().replace(' ', ""));
        if keys.contains(&name.as_str()) {
            known.push(meta.clone());
            continue;
        }
        let hint = match aliases.iter().find(|(alias, _)| *alias == name) {
            Some((_, instead)) => format!("write {instead}; "),
            None => crate::suggest::closest(&name, keys)
                .map(|k| format!("did you mean `{k}`? "))
                .unwrap_or_default(),
        };
        errors.push(
            Error::custom(format!(
                "unknown `#[{attr}]` key `{name}`; {hint}valid keys: {}",
                keys.join(", ")
            ))
            .with_span(key),
        );
    }
    (known, errors)
}
