use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(range(min = 10, max = 1))]
    score: u8,
    #[output(length())]
    points: Vec<String>,
    #[output(range(min = zero))]
    weight: f64,
}

fn main() {}
