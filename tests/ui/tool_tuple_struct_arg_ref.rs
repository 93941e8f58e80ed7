use agentry::prelude::*;

/// Do something.
#[tool]
fn first(pair: (String, &str)) -> String {
    pair.0
}

fn main() {}
