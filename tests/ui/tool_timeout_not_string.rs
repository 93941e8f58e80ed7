use agentry::prelude::*;

/// Do something.
#[tool(timeout = 5)]
async fn ping() -> String {
    String::new()
}

fn main() {}
