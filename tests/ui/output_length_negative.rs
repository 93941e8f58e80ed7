use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(length(min = -1))]
    points: Vec<String>,
}

fn main() {}
