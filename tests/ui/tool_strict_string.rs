use agentry::prelude::*;

/// Do something.
#[tool(strict = "yes")]
fn ping() -> String {
    String::new()
}

fn main() {}
