use agentry::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Inner {
    a: String,
}

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[serde(flatten)]
    #[output(length(max = 3))]
    inner: Inner,
}

fn main() {}
