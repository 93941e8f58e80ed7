use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Movie {
    #[output(length(max = 4))]
    year: u16,
}

fn main() {}
