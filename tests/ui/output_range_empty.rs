use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(range())]
    score: u8,
}

fn main() {}
