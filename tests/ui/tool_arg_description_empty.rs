use agentry::prelude::*;

/// Do something.
#[tool]
fn greet(#[arg(description = "")] name: String) -> String {
    name
}

fn main() {}
