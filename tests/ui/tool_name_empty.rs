use agentry::prelude::*;

/// Do something.
#[tool(name = "")]
fn ping() -> String {
    String::new()
}

fn main() {}
