//! The serde attributes that decide JSON names and shapes, read so that constraints land on
//! the property serde actually deserializes (the schema and the deserializer must agree).

use syn::{Attribute, LitStr, Token};

/// The serde attributes of a container, a variant or a field that matter here.
#[derive(Default)]
pub struct SerdeAttrs {
    pub rename: Option<String>,
    pub rename_all: Option<RenameRule>,
    pub rename_all_fields: Option<RenameRule>,
    pub tag: Option<String>,
    pub content: Option<String>,
    pub untagged: bool,
    pub transparent: bool,
    pub flatten: bool,
    pub skip: bool,
}

impl SerdeAttrs {
    /// Reads every `#[serde(...)]` in `attrs`. Anything unexpected is left for serde to report.
    pub fn parse(attrs: &[Attribute]) -> Self {
        let mut out = SerdeAttrs::default();
        for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
            let _ = attr.parse_nested_meta(|meta| {
                let name = meta
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                match name.as_str() {
                    "untagged" => out.untagged = true,
                    "transparent" => out.transparent = true,
                    "flatten" => out.flatten = true,
                    "skip" | "skip_deserializing" => out.skip = true,
                    _ => {}
                }
                let value = deserialize_value(&meta)?;
                match (name.as_str(), value) {
                    ("rename", Some(v)) => out.rename = Some(v),
                    ("rename_all", Some(v)) => out.rename_all = RenameRule::parse(&v),
                    ("rename_all_fields", Some(v)) => out.rename_all_fields = RenameRule::parse(&v),
                    ("tag", Some(v)) => out.tag = Some(v),
                    ("content", Some(v)) => out.content = Some(v),
                    _ => {}
                }
                Ok(())
            });
        }
        out
    }
}

/// The value of `key = "..."` or the `deserialize` half of `key(serialize = "..", deserialize
/// = "..")`; other shapes are consumed and ignored.
fn deserialize_value(meta: &syn::meta::ParseNestedMeta) -> syn::Result<Option<String>> {
    if meta.input.peek(Token![=]) {
        let expr: syn::Expr = meta.value()?.parse()?;
        if let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = expr
        {
            return Ok(Some(s.value()));
        }
        return Ok(None);
    }
    if meta.input.peek(syn::token::Paren) {
        let mut found = None;
        meta.parse_nested_meta(|inner| {
            if inner.input.peek(Token![=]) {
                let value: LitStr = inner.value()?.parse()?;
                if inner.path.is_ident("deserialize") {
                    found = Some(value.value());
                }
            }
            Ok(())
        })?;
        return Ok(found);
    }
    Ok(None)
}

/// serde's `rename_all` rules.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => RenameRule::Lower,
            "UPPERCASE" => RenameRule::Upper,
            "PascalCase" => RenameRule::Pascal,
            "camelCase" => RenameRule::Camel,
            "snake_case" => RenameRule::Snake,
            "SCREAMING_SNAKE_CASE" => RenameRule::ScreamingSnake,
            "kebab-case" => RenameRule::Kebab,
            "SCREAMING-KEBAB-CASE" => RenameRule::ScreamingKebab,
            _ => return None,
        })
    }

    /// Renames a field (written in snake_case), as serde does.
    pub fn field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_string(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::new();
                let mut upper = true;
                for c in field.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        out.extend(c.to_uppercase());
                        upper = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => {
                let pascal = RenameRule::Pascal.field(field);
                lower_first(&pascal)
            }
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.replace('_', "-").to_ascii_uppercase(),
        }
    }

    /// Renames a variant (written in PascalCase), as serde does.
    pub fn variant(self, variant: &str) -> String {
        match self {
            RenameRule::Pascal => variant.to_string(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => {
                let mut out = String::new();
                for (i, c) in variant.char_indices() {
                    if i > 0 && c.is_uppercase() {
                        out.push('_');
                    }
                    out.push(c.to_ascii_lowercase());
                }
                out
            }
            RenameRule::ScreamingSnake => RenameRule::Snake.variant(variant).to_ascii_uppercase(),
            RenameRule::Kebab => RenameRule::Snake.variant(variant).replace('_', "-"),
            RenameRule::ScreamingKebab => RenameRule::ScreamingSnake
                .variant(variant)
                .replace('_', "-"),
        }
    }
}

fn lower_first(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// An identifier as serde names it: without `r#`.
pub fn unraw(ident: &syn::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

#[cfg(test)]
mod tests {
    use super::RenameRule::*;

    #[test]
    fn rename_rules_match_serde() {
        assert_eq!(Camel.field("release_year"), "releaseYear");
        assert_eq!(Pascal.field("release_year"), "ReleaseYear");
        assert_eq!(ScreamingKebab.field("release_year"), "RELEASE-YEAR");
        assert_eq!(Snake.variant("SciFi"), "sci_fi");
        assert_eq!(Kebab.variant("SciFi"), "sci-fi");
        assert_eq!(Camel.variant("SciFi"), "sciFi");
        assert_eq!(ScreamingSnake.variant("SciFi"), "SCI_FI");
    }
}
