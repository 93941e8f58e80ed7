use agentry::prelude::*;

struct Address {
    street: String,
}

/// Do something.
#[tool]
fn ship(to: Option<Address>) -> String {
    to.map(|a| a.street).unwrap_or_default()
}

fn main() {}
