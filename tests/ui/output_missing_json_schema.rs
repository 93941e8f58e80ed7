use agentry::prelude::Deserialize;
use agentry::StructuredOutput;

/// A film.
#[derive(Deserialize, StructuredOutput)]
struct Movie {
    title: String,
}

fn main() {}
