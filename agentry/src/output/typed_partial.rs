//! [`HasPartial`]: a typed mirror of an output as it streams in, and the constraints of the
//! fields that are complete.
//!
//! `#[derive(StructuredOutput)]` on a struct with named fields generates `{Name}Partial`:
//! every field an `Option` of its own partial (strings so far, numbers once complete, a
//! `Vec` of partial items, a nested derived struct's own mirror). The mirror is built on
//! demand from the shared value a [`PartialOutput`](super::PartialOutput) holds, so a stream
//! whose consumer never asks for it costs nothing more than the untyped one.

use std::collections::{BTreeMap, HashMap};

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::structured::StructuredOutput;
use super::validate::Validation;

/// A step from a value to one of its members: where the value still being received is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OpenSeg {
    /// An object member.
    Key(String),
    /// An array item.
    Index(usize),
}

/// A type with a typed partial mirror ([`Partial<T>`]).
///
/// Derived by `#[derive(StructuredOutput)]`, and implemented for `String`, `bool`, the number
/// types, `Vec<T>`, `Option<T>`, `Box<T>`, string-keyed maps and [`serde_json::Value`].
/// Enums, tuple structs, generic structs and structs with a `#[serde(flatten)]` field have
/// the JSON so far as their partial, and so has a field marked `#[output(partial_json)]` in
/// a mirror (for a field type without a partial, such as a foreign type).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no typed partial",
    label = "no `Partial<{Self}>`",
    note = "derive `StructuredOutput` for `{Self}` (it generates the partial mirror); for a field of a type you cannot derive it for, write `#[output(partial_json)]` on the field to keep its JSON so far in the mirror"
)]
pub trait HasPartial {
    /// The mirror: what is known of a `Self` while it streams in.
    type Partial: Clone + std::fmt::Debug + Default + PartialEq + Send + Sync + 'static;

    /// The mirror of `value`, the JSON so far; `None` when it does not have the shape of a
    /// `Self` (the final parse reports it).
    fn partial(value: &Value) -> Option<Self::Partial>;

    /// Checks the constraints of the parts of `value` that are complete: all of it when
    /// `open` is `None`, else everything off `open`, the path to the value still being
    /// received.
    fn check_partial(value: &Value, open: Option<&[OpenSeg]>, v: &mut Validation) {
        let _ = (value, open, v);
    }
}

/// What is known of a `T` while it streams in: `Partial<Plan>` is `PlanPartial`.
pub type Partial<T> = <T as HasPartial>::Partial;

/// For the derive: a complete `T` at `value` deserialized and validated whole.
#[doc(hidden)]
pub fn check_complete<T: StructuredOutput>(value: &Value, v: &mut Validation) {
    if let Ok(parsed) = T::deserialize(value) {
        parsed.validate_into(v);
    }
}

/// For the derive: `value` as a `T` when complete, for its field checks.
#[doc(hidden)]
pub fn complete<T: DeserializeOwned>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// For the derive: the open path below member `key` of an open object, `None` when that
/// member is complete.
#[doc(hidden)]
pub fn open_member<'a>(open: &'a [OpenSeg], key: &str) -> Option<&'a [OpenSeg]> {
    match open.split_first() {
        Some((OpenSeg::Key(k), rest)) if k == key => Some(rest),
        _ => None,
    }
}

impl HasPartial for String {
    type Partial = String;

    fn partial(value: &Value) -> Option<String> {
        value.as_str().map(str::to_string)
    }
}

impl HasPartial for bool {
    type Partial = bool;

    fn partial(value: &Value) -> Option<bool> {
        value.as_bool()
    }
}

macro_rules! number_partial {
    ($($t:ty),*) => {$(
        impl HasPartial for $t {
            type Partial = $t;

            fn partial(value: &Value) -> Option<$t> {
                <$t>::deserialize(value).ok()
            }
        }
    )*};
}

use serde::Deserialize as _;
number_partial!(
    u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, char
);

impl HasPartial for Value {
    type Partial = Value;

    fn partial(value: &Value) -> Option<Value> {
        Some(value.clone())
    }
}

impl<T: HasPartial> HasPartial for Option<T> {
    type Partial = T::Partial;

    fn partial(value: &Value) -> Option<T::Partial> {
        if value.is_null() {
            return None;
        }
        T::partial(value)
    }

    fn check_partial(value: &Value, open: Option<&[OpenSeg]>, v: &mut Validation) {
        if !value.is_null() {
            T::check_partial(value, open, v);
        }
    }
}

impl<T: HasPartial> HasPartial for Box<T> {
    /// Boxed, so a recursive output's mirror has a size.
    type Partial = Box<T::Partial>;

    fn partial(value: &Value) -> Option<Box<T::Partial>> {
        T::partial(value).map(Box::new)
    }

    fn check_partial(value: &Value, open: Option<&[OpenSeg]>, v: &mut Validation) {
        T::check_partial(value, open, v);
    }
}

impl<T: HasPartial> HasPartial for Vec<T> {
    /// The items so far; the last one may be partial.
    type Partial = Vec<T::Partial>;

    fn partial(value: &Value) -> Option<Vec<T::Partial>> {
        Some(value.as_array()?.iter().filter_map(T::partial).collect())
    }

    fn check_partial(value: &Value, open: Option<&[OpenSeg]>, v: &mut Validation) {
        let Some(items) = value.as_array() else {
            return;
        };
        let (open_index, rest) = match open.and_then(<[OpenSeg]>::split_first) {
            Some((OpenSeg::Index(i), rest)) => (Some(*i), rest),
            _ => (None, &[][..]),
        };
        for (i, item) in items.iter().enumerate() {
            let open = (open_index == Some(i)).then_some(rest);
            v.index(i, |v| T::check_partial(item, open, v));
        }
    }
}

macro_rules! map_partial {
    ($($map:ident),*) => {$(
        impl<V: HasPartial> HasPartial for $map<String, V> {
            type Partial = BTreeMap<String, V::Partial>;

            fn partial(value: &Value) -> Option<Self::Partial> {
                Some(
                    value
                        .as_object()?
                        .iter()
                        .filter_map(|(k, v)| Some((k.clone(), V::partial(v)?)))
                        .collect(),
                )
            }

            fn check_partial(value: &Value, open: Option<&[OpenSeg]>, v: &mut Validation) {
                let Some(map) = value.as_object() else {
                    return;
                };
                for (key, item) in map {
                    let open = match open {
                        None => None,
                        Some(open) => match open_member(open, key) {
                            Some(rest) => Some(rest),
                            // A complete member of an open map.
                            None => None,
                        },
                    };
                    v.field(key, |v| V::check_partial(item, open, v));
                }
            }
        }
    )*};
}

map_partial!(BTreeMap, HashMap);

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtins_mirror_the_json_so_far() {
        assert_eq!(String::partial(&json!("Par")), Some("Par".to_string()));
        assert_eq!(u8::partial(&json!(300)), None);
        assert_eq!(
            Vec::<Option<u32>>::partial(&json!([1, null, 3])),
            Some(vec![1, 3])
        );
        assert_eq!(
            BTreeMap::<String, bool>::partial(&json!({"a": true})),
            Some(BTreeMap::from([("a".to_string(), true)]))
        );
    }
}
