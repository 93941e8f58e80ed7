use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Movie {
    #[output(range(min = 1, max = 10))]
    title: String,
}

fn main() {}
