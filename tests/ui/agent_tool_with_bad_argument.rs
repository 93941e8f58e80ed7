use agentry::prelude::*;

struct Address {
    street: String,
}

/// Ship a parcel.
#[tool]
fn ship(to: Address) -> String {
    to.street
}

/// A planner.
#[agent(tools(ship))]
struct Planner;

fn main() {}
