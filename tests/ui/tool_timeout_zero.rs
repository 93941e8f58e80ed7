use agentry::prelude::*;

/// Do something.
#[tool(timeout = "0s")]
async fn ping() -> String {
    String::new()
}

fn main() {}
