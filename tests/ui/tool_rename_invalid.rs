use agentry::prelude::*;

/// Do something.
#[tool]
fn book(#[arg(rename = "start date")] start: String) -> String {
    start
}

fn main() {}
