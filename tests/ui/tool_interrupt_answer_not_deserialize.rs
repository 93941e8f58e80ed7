use agentry::prelude::*;

struct Verdict {
    approved: bool,
}

/// Refund an order after a person confirms it.
#[tool]
async fn refund(order: String, ask: Interrupt<String, Verdict>) -> String {
    let _ = ask;
    format!("refunded {order}")
}

/// A refund desk.
#[agent(tools(refund))]
struct Desk;

fn main() {}
