use agentry::prelude::*;

/// A film.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
#[output(validate = check)]
struct Movie {
    title: String,
}

fn check(movie: Movie) -> bool {
    !movie.title.is_empty()
}

fn main() {}
