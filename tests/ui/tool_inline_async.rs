use agentry::tool;

/// Look something up.
#[tool(inline)]
async fn lookup(key: String) -> String {
    key
}

fn main() {}
