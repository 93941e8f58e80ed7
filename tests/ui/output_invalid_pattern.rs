use agentry::prelude::*;

/// A ticket price.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Price {
    #[output(pattern = "^[A-Z{3}$")]
    currency: String,
}

fn main() {}
