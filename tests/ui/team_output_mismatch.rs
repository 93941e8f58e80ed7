use agentry::multi::Team;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};

/// A refund decision.
#[derive(Serialize, Deserialize, JsonSchema, StructuredOutput)]
struct Refund {
    /// Euros.
    amount_eur: u32,
}

/// You decide refunds.
#[agent(tools(), output = Refund)]
struct Refunds;

fn main() {
    // The team answers with `String`; `Refunds` answers with `Refund`.
    let _ = Team::<String>::builder().agent(
        "refunds",
        "Refunds.",
        Refunds::builder(ScriptedModel::new([Turn::text("{}")])),
    );
}
