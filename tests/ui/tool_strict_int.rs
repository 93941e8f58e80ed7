use agentry::prelude::*;

/// Do something.
#[tool(strict = 1)]
fn ping() -> String {
    String::new()
}

fn main() {}
