//! A stateful shopping-cart agent: tools read and update a typed `State<Cart>`, the state
//! survives from one run to the next, and so does the conversation.
//!
//! Offline by default (the built-in `MockServer` plays the model); set `OPENAI_API_KEY` (or
//! another provider's key, see `examples/support/mod.rs`) to use a real model.
//!
//! Run: `cargo run --example shopping_cart`

mod support;

use std::collections::BTreeMap;

use agentry::agent::Input;
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};

/// The cart: item name → quantity. Tools receive it as `State<Cart>`.
#[derive(Debug, Clone, Default, PartialEq)]
struct Cart {
    items: BTreeMap<String, u32>,
}

/// The shop's price list, in cents. Shared read-only through the run's context.
struct Catalog {
    prices: BTreeMap<&'static str, u32>,
}

#[derive(Debug, thiserror::Error)]
enum CartError {
    #[error("`{0}` is not sold here; available: {1}")]
    Unknown(String, String),
    #[error("there is no `{0}` in the cart")]
    NotInCart(String),
}

/// Add an item to the cart.
///
/// # Arguments
/// * `item` - The item's name, as in the catalog.
/// * `quantity` - How many to add.
#[tool]
fn add_item(
    item: String,
    quantity: u32,
    catalog: Context<Catalog>,
    cart: State<Cart>,
) -> Result<String, CartError> {
    if !catalog.prices.contains_key(item.as_str()) {
        let known: Vec<&str> = catalog.prices.keys().copied().collect();
        return Err(CartError::Unknown(item, known.join(", ")));
    }
    let message = format!("added {quantity} × {item}");
    cart.update(move |c| *c.items.entry(item).or_default() += quantity);
    Ok(message)
}

/// Remove an item from the cart entirely.
///
/// # Arguments
/// * `item` - The item's name.
#[tool]
fn remove_item(item: String, cart: State<Cart>) -> Result<String, CartError> {
    if !cart.items.contains_key(&item) {
        return Err(CartError::NotInCart(item));
    }
    let message = format!("removed {item}");
    cart.update(move |c| {
        c.items.remove(&item);
    });
    Ok(message)
}

/// Show the cart's items and total.
#[tool]
fn view_cart(catalog: Context<Catalog>, cart: State<Cart>) -> String {
    if cart.items.is_empty() {
        return "the cart is empty".to_string();
    }
    let mut total = 0;
    let mut lines = Vec::new();
    for (item, quantity) in &cart.items {
        let price = catalog.prices.get(item.as_str()).copied().unwrap_or(0);
        total += price * quantity;
        lines.push(format!("{quantity} × {item}"));
    }
    format!(
        "{}; total {}.{:02} EUR",
        lines.join(", "),
        total / 100,
        total % 100
    )
}

/// You are a grocery assistant. Use the tools to change and show the cart; never guess its
/// content.
#[agent(tools(add_item, remove_item, view_cart), context = Catalog, state = Cart)]
struct Shop;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let shop = Shop::builder(backend.model).build();
    let catalog = std::sync::Arc::new(Catalog {
        prices: BTreeMap::from([("apple", 40), ("bread", 250), ("milk", 120)]),
    });

    let mut history = Vec::new();
    let mut cart = Cart::default();
    for said in [
        "Please add 3 apples and a bread.",
        "Actually remove the bread, and add a milk. What is in my cart now?",
    ] {
        println!("user: {said}");
        let run = shop
            .run_with_state(Input::with_history(history, said), catalog.clone(), cart)
            .await?;
        for step in &run.steps {
            let result = match &step.result {
                Ok(out) => out.text_content(),
                Err(e) => e.model_message(),
            };
            println!(
                "  tool {}({}) → {result}",
                step.call.name, step.call.arguments
            );
        }
        println!("assistant: {}", run.output);
        println!("  cart state: {:?}\n", run.state.items);
        history = run.messages.into_vec();
        cart = run.state;
    }
    let json = serde_json::to_string(&history)?;
    println!(
        "the conversation ({} messages) serializes to {} bytes of JSON, ready to store and reload",
        history.len(),
        json.len()
    );
    Ok(())
}

/// The offline stand-in for a model: it turns each user request into tool calls (changes
/// first; then, in a later turn so it sees them applied, a look at the cart), then summarizes
/// what the tools answered.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let said = request.last_user_text().to_lowercase();
    let answered = request.tool_results_since_last_user();
    let wants_view = said.contains("what is in my cart");
    let viewed = answered.iter().any(|(id, _)| id.starts_with("view"));

    let mut calls = Vec::new();
    if answered.is_empty() {
        for (phrase, name, args) in [
            ("3 apples", "add_item", r#"{"item":"apple","quantity":3}"#),
            ("a bread", "add_item", r#"{"item":"bread","quantity":1}"#),
            ("remove the bread", "remove_item", r#"{"item":"bread"}"#),
            ("add a milk", "add_item", r#"{"item":"milk","quantity":1}"#),
        ] {
            if said.contains(phrase) && !(phrase == "a bread" && said.contains("remove")) {
                calls.push(ToolCall::new(format!("change_{}", calls.len()), name, args));
            }
        }
    }
    if calls.is_empty() && wants_view && !viewed {
        calls.push(ToolCall::new("view_0", "view_cart", "{}"));
    }
    if !calls.is_empty() {
        return MockResponse::tool_calls(calls);
    }
    if answered.is_empty() {
        return MockResponse::text("How can I help with your groceries?");
    }
    let summary: Vec<String> = answered.into_iter().map(|(_, text)| text).collect();
    MockResponse::text(format!("Done: {}.", summary.join("; ")))
}
