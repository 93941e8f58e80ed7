use agentry::prelude::*;

/// Do something.
#[tool(description = "")]
fn ping() -> String {
    String::new()
}

fn main() {}
