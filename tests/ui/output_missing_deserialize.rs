use agentry::prelude::JsonSchema;
use agentry::StructuredOutput;

/// A film.
#[derive(JsonSchema, StructuredOutput)]
struct Movie {
    title: String,
}

fn main() {}
