use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(pattern = "^[0-9]+$")]
    score: u32,
}

fn main() {}
