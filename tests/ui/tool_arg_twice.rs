use agentry::prelude::*;

/// Do something.
#[tool]
fn greet(#[arg(description = "Who.")] #[arg(rename = "who")] name: String) -> String {
    name
}

fn main() {}
