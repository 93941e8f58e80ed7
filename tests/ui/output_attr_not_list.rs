use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output = "x"]
    score: u8,
}

fn main() {}
