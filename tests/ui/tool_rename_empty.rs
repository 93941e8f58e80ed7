use agentry::prelude::*;

/// Do something.
#[tool]
fn book(#[arg(rename = "")] start: String) -> String {
    start
}

fn main() {}
