use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Movie {
    title: String,
    #[serde(skip)]
    #[output(length(max = 10))]
    cache: String,
}

fn main() {}
