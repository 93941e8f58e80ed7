use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
#[output(name = "my movie", colour = "red")]
struct Movie {
    title: String,
}

fn main() {}
