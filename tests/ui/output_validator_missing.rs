use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[output(validate = no_such_check)]
    title: String,
}

fn main() {}
