use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(length(min = 5, max = 2))]
    title: String,
}

fn main() {}
