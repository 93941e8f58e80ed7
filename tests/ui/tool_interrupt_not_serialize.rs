use agentry::prelude::*;

struct Confirm {
    amount: u64,
}

/// Refund an order after a person confirms it.
#[tool]
async fn refund(order: String, ask: Interrupt<Confirm, bool>) -> String {
    if ask.ask(Confirm { amount: 42 }).await {
        format!("refunded {order}")
    } else {
        "declined".to_string()
    }
}

/// A refund desk.
#[agent(tools(refund))]
struct Desk;

fn main() {}
