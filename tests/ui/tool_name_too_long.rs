use agentry::prelude::*;

/// Do something.
#[tool(name = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")]
fn ping() -> String {
    String::new()
}

fn main() {}
