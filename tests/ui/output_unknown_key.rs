use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(minimum = 1)]
    score: u8,
}

fn main() {}
