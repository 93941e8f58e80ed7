use agentry::tool;

/// Look something up.
#[tool(timeout = "5 seconds")]
fn lookup() -> String {
    String::new()
}

fn main() {}
