use agentry::prelude::*;

struct Address {
    street: String,
}

/// Ship a parcel.
///
/// # Arguments
/// * `to` - Where to; the sender's address when omitted.
#[tool]
fn ship(to: Option<Address>) -> String {
    to.map(|a| a.street).unwrap_or_default()
}

/// Ships parcels.
#[agent(tools(ship))]
struct Shipper;

fn main() {
    let agent = Shipper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("ship it", ());
}
