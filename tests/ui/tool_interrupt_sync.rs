use agentry::prelude::*;

/// Refund an order after a person confirms it.
#[tool]
fn refund(order: String, ask: Interrupt<String, bool>) -> String {
    let _ = ask;
    format!("refunded {order}")
}

/// A refund desk.
#[agent(tools(refund))]
struct Desk;

fn main() {}
