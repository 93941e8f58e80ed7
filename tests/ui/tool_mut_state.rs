use agentry::tool;

struct Cart {
    items: Vec<String>,
}

/// Add an item to the cart.
#[tool]
fn add_item(item: String, cart: &mut Cart) -> String {
    cart.items.push(item);
    "added".to_string()
}

fn main() {}
