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
fn add(item: String, cart: State<Cart>, other: State<Cart>) -> String {
    cart.update(move |c| c.items.push(item));
    let _ = other;
    "added".into()
}

/// Shops.
#[agent(tools(add), state = Cart)]
struct Shopper;

fn main() {
    let agent = Shopper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("buy milk", ());
}
