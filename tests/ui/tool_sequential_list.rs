use agentry::prelude::*;

/// Do something.
#[tool(sequential(true))]
fn ping() -> String {
    String::new()
}

fn main() {}
