use agentry::prelude::*;

#[derive(Deserialize)]
struct Address {
    street: String,
}

/// Do something.
#[tool]
fn ship(to: Address) -> String {
    to.street
}

fn main() {}
