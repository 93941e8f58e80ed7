use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
#[output(description = 5)]
struct Review {
    title: String,
}

fn main() {}
