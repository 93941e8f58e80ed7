use agentry::output::StructuredExt;
use agentry::prelude::{Deserialize, JsonSchema, Message};
use agentry::testing::ScriptedModel;

/// The data of an invoice.
#[derive(Debug, Deserialize, JsonSchema)]
struct Invoice {
    /// The invoice number.
    number: String,
}

async fn read(model: &ScriptedModel) -> String {
    let invoice: Invoice = model
        .structured::<Invoice>()
        .max_retries(1)
        .invoke(vec![Message::user("Invoice INV-2041.")])
        .await
        .unwrap();
    invoice.number
}

fn main() {
    let _ = read;
}
