use agentry::prelude::*;

/// Do something.
#[tool(name = ping_tool)]
fn ping() -> String {
    String::new()
}

fn main() {}
