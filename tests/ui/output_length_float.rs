use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(length(max = 2.5))]
    title: String,
}

fn main() {}
