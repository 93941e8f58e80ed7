use agentry::prelude::*;

#[derive(JsonSchema)]
struct Address {
    street: String,
}

/// Do something.
#[tool]
fn ship(to: Address) -> String {
    to.street
}

fn main() {}
