//! Guardrails: checks on the user's message (beside the first model request), on tool calls
//! and on the typed output, with the built-ins and one of your own. Offline, against scripted
//! models (`agentry::testing`).
//!
//! Run: `cargo run --example guardrails`

use std::time::{Duration, Instant};

use agentry::guard::builtin::{BlockList, LlmJudge, MaxLength, PiiCheck, SafetyVerdict};
use agentry::guard::{InputGuardrail, Verdict};
use agentry::middleware::PiiKind;
use agentry::prelude::*;
use agentry::testing::{ScriptedModel, Turn};
use serde_json::json;

/// Who is asking.
struct Guest {
    banned: bool,
}

/// Turns away banned guests. It takes 50 ms (as a lookup in another service would), but runs
/// while the model is already answering, so a guest who may ask waits no longer.
struct NotBanned;

impl InputGuardrail<Guest> for NotBanned {
    type Reason = &'static str;

    fn name(&self) -> &str {
        "not_banned"
    }

    async fn check(&self, _: &str, guest: &Guest) -> Verdict<String, &'static str> {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if guest.banned {
            Verdict::Block("this guest may not book")
        } else {
            Verdict::Pass
        }
    }
}

/// Book a table.
///
/// # Arguments
/// * `restaurant` - Where.
/// * `note` - A note for the restaurant.
#[tool]
fn book_table(restaurant: String, note: String) -> String {
    format!("Booked at {restaurant}. Note: {note}. Confirmation sent to desk@hotel.example.")
}

/// You book tables for hotel guests.
#[agent(
    tools(book_table),
    context = Guest,
    guardrails(
        input(NotBanned, MaxLength::chars(500), PiiCheck::block([PiiKind::CreditCard])),
        tool_input(BlockList::keywords(["allergy-free guaranteed"])),
        tool_output(PiiCheck::redact([PiiKind::Email])),
        output(BlockList::keywords(["internal use only"])),
    )
)]
struct Concierge;

fn model() -> ScriptedModel {
    ScriptedModel::new([
        Turn::tool_call(
            "book_table",
            json!({"restaurant": "Chez Lu", "note": "window seat"}),
        ),
        Turn::text("Your table at Chez Lu is booked."),
    ])
    .with_delay(Duration::from_millis(80))
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    // 1. Everything passes; the 50 ms check ran beside the 80 ms request.
    let scripted = std::sync::Arc::new(model());
    let agent = Concierge::builder(scripted.clone()).build();
    let started = Instant::now();
    let run = agent
        .run("A table for two tonight?", Guest { banned: false })
        .await
        .unwrap();
    println!("1. {} ({} ms)", run.output, started.elapsed().as_millis());
    // The tool's result reached the model with the email redacted.
    let seen = scripted.requests()[1].messages.last().unwrap().text();
    println!("   the model saw: {seen}");

    // 2. A banned guest: the check trips while the request is in flight and cancels it.
    let started = Instant::now();
    let error = Concierge::builder(model())
        .build()
        .run("A table for two tonight?", Guest { banned: true })
        .await
        .unwrap_err();
    println!("2. {error} ({} ms)", started.elapsed().as_millis());
    println!("   usage reported: {}", error.partial().usage);

    // 3. A card number in the message: blocked at once, before anything is sent.
    let error = Concierge::builder(model())
        .build()
        .run("Book it on 4111 1111 1111 1111", Guest { banned: false })
        .await
        .unwrap_err();
    println!("3. {error}");

    // 4. An LLM judge: another model's typed verdict decides.
    let judge = ScriptedModel::new([Turn::text(
        json!({"allowed": false, "reason": "asks for another guest's booking"}).to_string(),
    )]);
    let agent = Concierge::builder(model())
        .input_guardrail(LlmJudge::<SafetyVerdict>::new(
            judge,
            "Allow only requests about the guest's own bookings.",
        ))
        .build();
    let error = agent
        .run("What did room 12 book?", Guest { banned: false })
        .await
        .unwrap_err();
    println!("4. {error}");
}
