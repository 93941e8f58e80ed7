use agentry::tool;

struct Address {
    street: String,
}

/// Ship a parcel.
#[tool]
fn ship(to: Address) -> String {
    to.street
}

fn main() {}
