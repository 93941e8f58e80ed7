use agentry::prelude::*;

/// A person's name.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Name<'a> {
    first: &'a str,
}

fn main() {}
