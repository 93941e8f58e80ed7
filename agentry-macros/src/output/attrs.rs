//! The `#[output(...)]` attributes: read, checked, and resolved against serde's names.

use darling::util::SpannedValue;
use darling::{Error, FromMeta};

use crate::text::Text;
use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Attribute, Expr, ExprLit, ExprUnary, Lit, UnOp};

/// All `#[output(...)]` attributes of one item, merged into one list.
fn output_metas(attrs: &[Attribute]) -> darling::Result<Vec<darling::ast::NestedMeta>> {
    let mut metas = Vec::new();
    let mut errors = Error::accumulator();
    for attr in attrs.iter().filter(|a| a.path().is_ident("output")) {
        match &attr.meta {
            syn::Meta::List(list) => {
                if let Some(parsed) = errors.handle(
                    darling::ast::NestedMeta::parse_meta_list(list.tokens.clone())
                        .map_err(Error::from),
                ) {
                    metas.extend(parsed);
                }
            }
            other => errors.push(
                Error::custom(
                    "expected `#[output(...)]`, e.g. `#[output(range(min = 0, max = 10))]`",
                )
                .with_span(other),
            ),
        }
    }
    errors.finish_with(metas)
}

/// The first `#[output]` attribute, for errors about where it was put.
pub fn first_output_attr(attrs: &[Attribute]) -> Option<&syn::Meta> {
    attrs
        .iter()
        .find(|a| a.path().is_ident("output"))
        .map(|a| &a.meta)
}

/// `#[output(name = "...", description = "...", validate = path)]` on the type.
#[derive(FromMeta, Default)]
struct RawContainer {
    name: Option<Text>,
    description: Option<Text>,
    validate: Option<syn::Path>,
}

/// The checked type-level attributes.
pub struct ContainerAttrs {
    pub name: Option<String>,
    pub description: Option<String>,
    pub validate: Option<syn::Path>,
}

impl ContainerAttrs {
    pub fn parse(attrs: &[Attribute]) -> darling::Result<Self> {
        let metas = output_metas(attrs)?;
        let (metas, unknown) =
            crate::keys::known_keys(&metas, &["name", "description", "validate"], "output", &[]);
        if !unknown.is_empty() {
            return Err(Error::multiple(unknown));
        }
        let raw = RawContainer::from_list(&metas)?;
        if let Some(name) = &raw.name
            && let Err(reason) =
                crate::names::check_provider_name(&name.value(), "output", "trip_plan")
        {
            return Err(Error::custom(reason).with_span(&name.span()));
        }
        Ok(ContainerAttrs {
            name: raw.name.map(|n| n.value()),
            description: raw.description.map(|d| d.value()),
            validate: raw.validate,
        })
    }
}

/// `range(min = .., max = ..)`.
struct RawRange {
    min: Option<Expr>,
    max: Option<Expr>,
}

/// `length(min = .., max = ..)`.
struct RawLength {
    min: Option<Expr>,
    max: Option<Expr>,
}

/// Bounds as other libraries spell them, and what to write here.
const BOUND_ALIASES: [(&str, &str); 8] = [
    ("minimum", "`min`"),
    ("maximum", "`max`"),
    ("ge", "`min`"),
    ("le", "`max`"),
    ("gt", "`min` (the bounds are inclusive)"),
    ("lt", "`max` (the bounds are inclusive)"),
    ("min_length", "`min`"),
    ("max_length", "`max`"),
];

/// The `min` and `max` of `range(..)` or `length(..)` (named by `key`), an unknown key said
/// in our words (see `keys`).
fn bounds(
    items: &[darling::ast::NestedMeta],
    key: &str,
) -> darling::Result<(Option<Expr>, Option<Expr>)> {
    #[derive(FromMeta)]
    struct Raw {
        min: Option<Expr>,
        max: Option<Expr>,
    }
    let attr = format!("output({key}(..))");
    // Bounds written by position (`length(1, 10)`) are one error naming them, not one
    // "meta-item format" per number.
    let positional: Vec<_> = items
        .iter()
        .filter_map(|item| match item {
            darling::ast::NestedMeta::Lit(lit) => Some(lit),
            _ => None,
        })
        .collect();
    let text = |lit: &syn::Lit| quote::ToTokens::to_token_stream(lit).to_string();
    let named = match positional.as_slice() {
        [] => None,
        [only] => Some((
            only,
            format!("`{key}(min = {0})` or `{key}(max = {0})`", text(only)),
        )),
        [min, max, ..] => Some((
            min,
            format!("`{key}(min = {}, max = {})`", text(min), text(max)),
        )),
    };
    if let Some((first, example)) = named {
        return Err(Error::custom(format!(
            "name the bounds: {example} (both inclusive; either may be left out)"
        ))
        .with_span(*first));
    }
    let (known, unknown) = crate::keys::known_keys(items, &["min", "max"], &attr, &BOUND_ALIASES);
    if !unknown.is_empty() {
        return Err(Error::multiple(unknown));
    }
    let raw = Raw::from_list(&known)?;
    Ok((raw.min, raw.max))
}

impl FromMeta for RawRange {
    fn from_list(items: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        let (min, max) = bounds(items, "range")?;
        Ok(RawRange { min, max })
    }
}

impl FromMeta for RawLength {
    fn from_list(items: &[darling::ast::NestedMeta]) -> darling::Result<Self> {
        let (min, max) = bounds(items, "length")?;
        Ok(RawLength { min, max })
    }
}

/// The keys of `#[output(...)]` on a field.
const FIELD_KEYS: [&str; 5] = ["range", "length", "pattern", "validate", "partial_json"];

/// Field constraints as other libraries (pydantic, JSON Schema) spell them, and how to write
/// them here.
const FIELD_ALIASES: [(&str, &str); 9] = [
    ("max_length", "`length(max = ..)`"),
    ("min_length", "`length(min = ..)`"),
    ("ge", "`range(min = ..)`"),
    ("minimum", "`range(min = ..)`"),
    ("le", "`range(max = ..)`"),
    ("maximum", "`range(max = ..)`"),
    ("gt", "`range(min = ..)` (the bounds are inclusive)"),
    ("lt", "`range(max = ..)` (the bounds are inclusive)"),
    ("regex", "`pattern = \"..\"`"),
];

/// `#[output(range(..), length(..), pattern = "..", validate = path)]` on a field.
#[derive(FromMeta, Default)]
struct RawField {
    range: Option<SpannedValue<RawRange>>,
    length: Option<SpannedValue<RawLength>>,
    pattern: Option<Text>,
    validate: Option<syn::Path>,
    #[darling(default)]
    partial_json: crate::tool::flag::Switch,
}

/// The checked field-level attributes.
#[derive(Default)]
pub struct FieldAttrs {
    pub range: Option<(Option<f64>, Option<f64>)>,
    pub length: Option<(Option<usize>, Option<usize>)>,
    pub pattern: Option<String>,
    pub validate: Option<syn::Path>,
    /// `partial_json`: the field's partial is its JSON so far (for a type without a typed
    /// partial).
    pub partial_json: bool,
    /// The span of the first `#[output]` attribute, when there is one.
    pub span: Option<Span>,
}

impl FieldAttrs {
    pub fn is_empty(&self) -> bool {
        self.range.is_none()
            && self.length.is_none()
            && self.pattern.is_none()
            && self.validate.is_none()
    }

    /// Reads the field's `#[output(...)]` attributes; `ty` is the field's type, which the
    /// range bounds are checked against.
    pub fn parse(attrs: &[Attribute], ty: &syn::Type) -> darling::Result<Self> {
        let span = first_output_attr(attrs).map(Spanned::span);
        let metas = output_metas(attrs)?;
        type_level_key(&metas)?;
        let (metas, unknown) =
            crate::keys::known_keys(&metas, &FIELD_KEYS, "output", &FIELD_ALIASES);
        if !unknown.is_empty() {
            return Err(Error::multiple(unknown));
        }
        let raw = RawField::from_list(&metas)?;
        let mut errors = Error::accumulator();
        // Where `range(...)` / `length(...)` is written (an empty list has no span of its own).
        let key_span = |key: &str| {
            metas.iter().find_map(|m| match m {
                darling::ast::NestedMeta::Meta(meta) if meta.path().is_ident(key) => {
                    Some(meta.path().span())
                }
                _ => None,
            })
        };

        let range = raw.range.map(|range| {
            let span = key_span("range").unwrap_or_else(|| range.span());
            let min = range.min.as_ref().and_then(|e| errors.handle(number(e)));
            // A bound that is not a number is reported once, at the first: the second is
            // nearly always the same mistake (`min = 'A', max = 'F'`).
            let min_failed = range.min.is_some() && min.is_none();
            let max = range
                .max
                .as_ref()
                .filter(|_| !min_failed)
                .and_then(|e| errors.handle(number(e)));
            if let Some(int) = integer_type(ty) {
                for (bound, value, key) in [(&range.min, min, "min"), (&range.max, max, "max")] {
                    if let (Some(expr), Some(value)) = (bound, value)
                        && let Err(e) = int.check_bound(key, value)
                    {
                        errors.push(e.with_span(expr));
                    }
                }
            }
            if range.min.is_none() && range.max.is_none() {
                errors.push(
                    Error::custom(
                        "`range` needs a bound: `range(min = 0)`, `range(max = 10)` or both",
                    )
                    .with_span(&span),
                );
            }
            if let (Some(lo), Some(hi)) = (min, max)
                && lo > hi
            {
                errors.push(
                    Error::custom(format!(
                        "empty range: `min` ({lo}) is greater than `max` ({hi})"
                    ))
                    .with_span(&span),
                );
            }
            (min, max)
        });

        let length = raw.length.map(|length| {
            let span = key_span("length").unwrap_or_else(|| length.span());
            let min = length
                .min
                .as_ref()
                .and_then(|e| errors.handle(whole_number(e)));
            let max = length
                .max
                .as_ref()
                .and_then(|e| errors.handle(whole_number(e)));
            if length.min.is_none() && length.max.is_none() {
                errors.push(
                    Error::custom(
                        "`length` needs a bound: `length(min = 1)`, `length(max = 100)` or both",
                    )
                    .with_span(&span),
                );
            }
            if let (Some(lo), Some(hi)) = (min, max)
                && lo > hi
            {
                errors.push(
                    Error::custom(format!(
                        "empty length range: `min` ({lo}) is greater than `max` ({hi})"
                    ))
                    .with_span(&span),
                );
            }
            (min, max)
        });

        let pattern = raw.pattern.map(|lit| {
            let pattern = lit.value();
            if let Err(e) = regex_syntax::Parser::new().parse(&pattern) {
                errors.push(
                    Error::custom(format!(
                        "invalid regular expression: {}",
                        first_line(&e.to_string())
                    ))
                    .with_span(&lit.span()),
                );
            }
            pattern
        });

        errors.finish_with(FieldAttrs {
            range,
            length,
            pattern,
            validate: raw.validate,
            partial_json: raw.partial_json.is_on(),
            span,
        })
    }
}

/// An integer field type (possibly in `Option` or `Box`), for checking range bounds against
/// its values.
struct IntegerType {
    name: String,
    min: f64,
    max: f64,
}

impl IntegerType {
    /// A bound that is fractional or outside the type's values is a mistake: the schema would
    /// promise the model a range the field cannot hold (or round silently).
    fn check_bound(&self, key: &str, value: f64) -> darling::Result<()> {
        let name = &self.name;
        if value.fract() != 0.0 {
            let whole = if key == "min" {
                value.ceil()
            } else {
                value.floor()
            };
            return Err(Error::custom(format!(
                "`{key} = {value}` is not a whole number, and the field is a `{name}`: write `{key} = {whole}`"
            )));
        }
        if value < self.min || value > self.max {
            return Err(Error::custom(format!(
                "`{key} = {value}` is outside the values of `{name}` ({} to {}): a bound must be a value the field can hold; remove it or change the field's type",
                num_text(self.min),
                num_text(self.max)
            )));
        }
        Ok(())
    }
}

fn num_text(x: f64) -> String {
    // The integer bounds of the primitive types, written exactly for the ones up to 64 bits.
    if x.abs() < 1e19 {
        format!("{}", x as i128)
    } else {
        format!("{x:e}")
    }
}

/// The primitive integer type of a field (looking through `Option<..>` and `Box<..>`).
fn integer_type(ty: &syn::Type) -> Option<IntegerType> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    if path.qself.is_some() {
        return None;
    }
    let last = path.path.segments.last()?;
    if last.ident == "Option" || last.ident == "Box" {
        let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
            return None;
        };
        return match args.args.first()? {
            syn::GenericArgument::Type(inner) if args.args.len() == 1 => integer_type(inner),
            _ => None,
        };
    }
    if !last.arguments.is_empty() {
        return None;
    }
    let name = last.ident.to_string();
    let (min, max): (f64, f64) = match name.as_str() {
        "u8" => (0.0, u8::MAX.into()),
        "u16" => (0.0, u16::MAX.into()),
        "u32" => (0.0, u32::MAX.into()),
        "u64" => (0.0, u64::MAX as f64),
        "u128" => (0.0, u128::MAX as f64),
        "usize" => (0.0, u64::MAX as f64),
        "i8" => (i8::MIN.into(), i8::MAX.into()),
        "i16" => (i16::MIN.into(), i16::MAX.into()),
        "i32" => (i32::MIN.into(), i32::MAX.into()),
        "i64" => (i64::MIN as f64, i64::MAX as f64),
        "i128" => (i128::MIN as f64, i128::MAX as f64),
        "isize" => (i64::MIN as f64, i64::MAX as f64),
        _ => return None,
    };
    Some(IntegerType { name, min, max })
}

/// regex-syntax errors draw the pattern over several lines; the last one says what is wrong.
fn first_line(message: &str) -> String {
    message
        .lines()
        .rev()
        .find(|l| l.starts_with("error:"))
        .map(|l| l.trim_start_matches("error:").trim().to_string())
        .unwrap_or_else(|| message.lines().next().unwrap_or_default().to_string())
}

/// A `length` bound: a non-negative whole number literal.
fn whole_number(expr: &Expr) -> darling::Result<usize> {
    let parsed = match expr {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) if i.suffix().is_empty() => i.base10_parse::<usize>().ok(),
        _ => None,
    };
    parsed.ok_or_else(|| {
        Error::custom(
            "a `length` bound is a non-negative whole number, e.g. `length(min = 1, max = 100)`",
        )
        .with_span(expr)
    })
}

/// A number literal, possibly negative.
fn number(expr: &Expr) -> darling::Result<f64> {
    let (negative, lit) = match expr {
        Expr::Unary(ExprUnary {
            op: UnOp::Neg(_),
            expr,
            ..
        }) => (true, &**expr),
        other => (false, other),
    };
    let value = match lit {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_digits().parse::<f64>().ok(),
        Expr::Lit(ExprLit {
            lit: Lit::Float(f), ..
        }) => f.base10_digits().parse::<f64>().ok(),
        _ => None,
    };
    let text = matches!(
        lit,
        Expr::Lit(ExprLit {
            lit: Lit::Char(_) | Lit::Str(_),
            ..
        })
    );
    match value {
        Some(v) if v.is_finite() => Ok(if negative { -v } else { v }),
        _ if text => Err(Error::custom(
            "`range` bounds numbers: a range bound must be a number literal, e.g. `min = 0` or \
             `max = 2.5`; to constrain a `char` or a string, use `pattern`, e.g. \
             `#[output(pattern = \"^[A-F]$\")]`",
        )
        .with_span(expr)),
        _ => Err(Error::custom(
            "a range bound must be a number literal, e.g. `min = 0` or `max = 2.5`",
        )
        .with_span(expr)),
    }
}

/// A key of the type's `#[output(..)]` written on a field: one error saying where it goes and
/// what a field uses instead.
fn type_level_key(metas: &[darling::ast::NestedMeta]) -> darling::Result<()> {
    for meta in metas {
        let darling::ast::NestedMeta::Meta(meta) = meta else {
            continue;
        };
        let path = meta.path();
        let message = if path.is_ident("name") {
            "`name` names the whole output, not a field: write `#[output(name = \"...\")]` on \
             the type; to rename this field in the JSON, write `#[serde(rename = \"...\")]`"
        } else if path.is_ident("description") {
            "a field's description is its `///` doc comment; `#[output(description = \"...\")]` \
             describes the whole output, on the type"
        } else {
            continue;
        };
        return Err(Error::custom(message).with_span(path));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_names() {
        let e: Expr = syn::parse_quote!(-2.5);
        assert_eq!(number(&e).unwrap(), -2.5);
        let e: Expr = syn::parse_quote!(10);
        assert_eq!(number(&e).unwrap(), 10.0);
        let e: Expr = syn::parse_quote!("10");
        assert!(number(&e).is_err());
    }

    #[test]
    fn bounds_must_fit_integer_fields() {
        let u32_ty: syn::Type = syn::parse_quote!(Option<u32>);
        let int = integer_type(&u32_ty).unwrap();
        assert!(int.check_bound("min", -1.0).is_err());
        assert!(int.check_bound("min", 0.0).is_ok());
        assert!(int.check_bound("max", 4294967295.0).is_ok());
        assert!(int.check_bound("max", 4294967296.0).is_err());
        assert!(int.check_bound("min", 0.5).is_err());
        let float: syn::Type = syn::parse_quote!(f64);
        assert!(integer_type(&float).is_none());
    }
}
