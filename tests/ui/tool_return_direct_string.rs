use agentry::prelude::*;

/// Do something.
#[tool(return_direct = "true")]
fn ping() -> String {
    String::new()
}

fn main() {}
