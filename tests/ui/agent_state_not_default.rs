use agentry::prelude::*;

struct Cart {
    items: Vec<String>,
}

/// Adds an item.
#[tool]
fn add(item: String, cart: State<Cart>) -> String {
    cart.update(|c| c.items.push(item));
    "added".to_string()
}

/// Shops.
#[agent(tools(add), state = Cart)]
struct Shopper;

fn main() {
    let agent = Shopper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("buy milk", ());
}
