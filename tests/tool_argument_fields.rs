//! The fields of a `#[tool]`'s arguments struct parse and are described exactly as serde and
//! schemars derive them, whatever route the macro takes for each type (a standard type as it
//! is; any other through the probe that keeps a missing derive to one compile error; an
//! `Option` through serde's own handling of a missing field).

use std::collections::HashMap;

use agentry::prelude::*;
use agentry::schema::canonical_schema_for;
use agentry::tool::parse_arguments;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
struct Room {
    /// Number of beds.
    beds: u8,
}

/// Plan a stay.
///
/// # Arguments
/// * `nights` - How many nights.
/// * `room` - The room to book.
/// * `tags` - Labels for the booking.
/// * `prices` - Prices by currency.
/// * `upgrade` - A better room, if any.
#[tool]
fn plan(
    nights: u32,
    room: Room,
    tags: Vec<String>,
    prices: HashMap<String, f64>,
    upgrade: Option<Room>,
) -> String {
    format!("{nights} {room:?} {tags:?} {prices:?} {upgrade:?}")
}

/// What schemars derives for the same fields.
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[allow(dead_code)]
struct Expected {
    /// How many nights.
    nights: u32,
    /// The room to book.
    room: Room,
    /// Labels for the booking.
    tags: Vec<String>,
    /// Prices by currency.
    prices: HashMap<String, f64>,
    /// A better room, if any.
    upgrade: Option<Room>,
}

#[test]
fn the_schema_is_the_one_schemars_derives() {
    let mut expected = canonical_schema_for::<Expected>();
    let map = expected.as_object_mut().unwrap();
    map.remove("description");
    map.remove("title");
    let mut actual = <plan as Tool>::definition().parameters.clone();
    actual.as_object_mut().unwrap().remove("title");
    assert_eq!(actual, expected);
}

#[test]
fn fields_parse_as_serde_derives_them() {
    let args = parse_arguments::<<plan as Tool>::Args>(
        "plan",
        r#"{"nights":2,"room":{"beds":1},"tags":["sea"],"prices":{"eur":90.5}}"#,
        false,
    )
    .unwrap();
    assert_eq!(args.room, Room { beds: 1 });
    assert_eq!(args.tags, ["sea"]);
    assert_eq!(args.upgrade, None);
    let args = parse_arguments::<<plan as Tool>::Args>(
        "plan",
        r#"{"nights":2,"room":{"beds":1},"tags":[],"prices":{},"upgrade":{"beds":2}}"#,
        false,
    )
    .unwrap();
    assert_eq!(args.upgrade, Some(Room { beds: 2 }));
    let args = parse_arguments::<<plan as Tool>::Args>(
        "plan",
        r#"{"nights":2,"room":{"beds":1},"tags":[],"prices":{},"upgrade":null}"#,
        false,
    )
    .unwrap();
    assert_eq!(args.upgrade, None);
}

#[test]
fn a_bad_nested_value_names_its_path() {
    let Err(err) = parse_arguments::<<plan as Tool>::Args>(
        "plan",
        r#"{"nights":2,"room":{"beds":"two"},"tags":[],"prices":{}}"#,
        false,
    ) else {
        panic!("a string for a u8 must not parse")
    };
    let agentry::ToolCallError::InvalidArguments { path, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(path, "room.beds");
    let Err(err) = parse_arguments::<<plan as Tool>::Args>(
        "plan",
        r#"{"nights":2,"room":{"beds":1},"prices":{}}"#,
        false,
    ) else {
        panic!("a missing required field must not parse")
    };
    assert!(err.to_string().contains("missing field `tags`"), "{err}");
}
