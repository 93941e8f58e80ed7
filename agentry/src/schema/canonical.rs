//! Generating the canonical schema of a Rust type.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The canonical schema of `T`: JSON Schema draft 2020-12 as schemars generates it for
/// deserialization, with definitions under `$defs`, and without the root `$schema` and
/// `title` (a title such as `GetWeatherArgs` names a Rust type, not anything the model needs).
///
/// ```
/// #[derive(schemars::JsonSchema)]
/// struct Point { x: i32, y: i32 }
///
/// let schema = agentry::schema::canonical_schema_for::<Point>();
/// assert_eq!(schema["type"], "object");
/// assert!(schema.get("title").is_none());
/// ```
pub fn canonical_schema_for<T: JsonSchema + ?Sized>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .for_deserialize()
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
    }
    value
}
