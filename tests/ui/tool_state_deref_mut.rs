use agentry::prelude::*;

#[derive(Default)]
struct Cart {
    items: Vec<String>,
}

/// Add an item.
///
/// # Arguments
/// * `item` - What to add.
#[tool]
fn add(item: String, cart: State<Cart>) -> String {
    cart.items.push(item);
    "added".into()
}

/// Shops.
#[agent(tools(add), state = Cart)]
struct Shopper;

fn main() {
    let agent = Shopper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("buy milk", ());
}
