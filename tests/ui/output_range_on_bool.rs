use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(range(min = 0))]
    ok: bool,
}

fn main() {}
