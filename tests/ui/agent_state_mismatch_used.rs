use agentry::prelude::*;

#[derive(Default)]
struct Cart;
#[derive(Default)]
struct Basket;

/// Empty the cart.
#[tool]
fn empty(cart: State<Cart>) -> String {
    cart.update(|_| {});
    "emptied".into()
}

/// Shops.
#[agent(tools(empty), state = Basket)]
struct Shopper;

fn main() {
    let agent = Shopper::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("empty it", ());
}
