//! Structured extraction: a typed value out of free text, with validation. No agent and no
//! tools — `model.structured::<T>()` on any model. An invalid first answer is sent back to
//! the model with the exact problem, and the corrected answer is returned.
//!
//! Offline by default (the built-in `MockServer` plays the model); set `OPENAI_API_KEY` (or
//! another provider's key, see `examples/support/mod.rs`) to use a real model.
//!
//! Run: `cargo run --example extraction`

mod support;

use agentry::output::StructuredExt;
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use serde_json::json;

/// One line of an invoice.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Line {
    /// What was sold.
    item: String,
    /// How many.
    #[output(range(min = 1))]
    quantity: u32,
    /// Price of one unit, in euros.
    #[output(range(min = 0))]
    unit_price_eur: f64,
}

/// The data of an invoice.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
#[output(validate = totals_are_positive)]
struct Invoice {
    /// The invoice number, e.g. "INV-2041".
    #[output(pattern = "^INV-[0-9]+$")]
    number: String,
    /// Who issued it.
    vendor: String,
    /// The issue date, as YYYY-MM-DD.
    date: String,
    /// Its lines, in order.
    #[output(length(min = 1))]
    lines: Vec<Line>,
}

fn totals_are_positive(invoice: &Invoice) -> Result<(), String> {
    let total: f64 = invoice
        .lines
        .iter()
        .map(|l| l.unit_price_eur * f64::from(l.quantity))
        .sum();
    if total > 0.0 {
        Ok(())
    } else {
        Err("the invoice total must be positive".to_string())
    }
}

const TEXT: &str = "Invoice INV-2041 from Acme Tools, issued 2025-03-14: \
                    3 hammers at 12.50 EUR each and 1 ladder at 89.00 EUR.";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let invoice: Invoice = backend
        .model
        .structured::<Invoice>()
        .max_retries(2)
        .invoke(vec![
            Message::system("Extract the invoice's data."),
            Message::user(TEXT),
        ])
        .await?;
    println!("text: {TEXT}\n");
    println!("{invoice:#?}");
    if let Some(server) = &backend.server {
        println!(
            "\nthe mock model answered {} times: its first answer broke the `number` pattern \
             and was sent back with the reason",
            server.request_count()
        );
    }
    Ok(())
}

/// The offline stand-in for a model: its first answer has a malformed invoice number; once
/// the SDK sends the validation error back, it answers correctly.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let corrected = request.body["messages"]
        .as_array()
        .is_some_and(|m| m.iter().any(|m| m["role"] == "assistant"));
    let number = if corrected { "INV-2041" } else { "2041" };
    let invoice = json!({
        "number": number,
        "vendor": "Acme Tools",
        "date": "2025-03-14",
        "lines": [
            { "item": "hammer", "quantity": 3, "unit_price_eur": 12.5 },
            { "item": "ladder", "quantity": 1, "unit_price_eur": 89.0 }
        ]
    });
    MockResponse::final_answer(request, "Invoice", invoice)
}
