use agentry::prelude::*;

/// Do something.
#[tool]
fn join(words: Vec<&str>) -> String {
    words.concat()
}

fn main() {}
