//! Human in the loop: an assistant that wants to send an email stops before sending, and the
//! terminal asks you: `y` (send), `n` (reject, with a reason for the model) or `e` (edit the
//! recipient, subject or body first).
//!
//! Offline by default (the built-in MockServer plays the model); with `OPENAI_API_KEY`,
//! `ANTHROPIC_API_KEY`, `GEMINI_API_KEY`, `OPENAI_BASE_URL` or `AGENTRY_MODEL` set, a real
//! model writes the email. When standard input is not a terminal (or closes), the example does
//! not wait: it takes a scripted decision — approve against the offline model, reject against
//! a real one (a real email is never approved without a person).
//!
//! The pause is a value: it is printed as JSON, which is what you would store to resume in
//! another process.
//!
//! Run: `cargo run --example approvals`

mod support;

use std::io::{BufRead, IsTerminal, Write};

use agentry::agent::Outcome;
use agentry::middleware::Decision;
use agentry::prelude::*;
use agentry::testing::{MockResponse, RecordedRequest};
use serde_json::json;

#[derive(Debug)]
struct Sender {
    address: String,
}

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient's address.
/// * `subject` - The subject line.
/// * `body` - The text of the email.
#[tool]
fn send_email(to: String, subject: String, body: String, from: Context<Sender>) -> String {
    // A real tool would talk to a mail server here.
    println!(
        "\n  [mail] {} -> {to}: {subject}\n  [mail] {body}",
        from.address
    );
    format!("Email sent to {to}.")
}

/// You are an assistant that writes and sends short emails for the user with `send_email`.
/// After sending, confirm in one sentence.
#[agent(tools(send_email), context = Sender, review(send_email(approve, edit, reject)))]
struct Mailer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let offline = backend.server.is_some();
    let agent = Mailer::builder(backend.model).max_turns(4).build();
    let sender = || Sender {
        address: "ada@example.com".to_string(),
    };
    let ask = "Email bob@example.com that the meeting moves to 3pm tomorrow.";
    println!("user: {ask}\n");

    let mut outcome = agent.run_or_pause(ask, sender()).await?;
    loop {
        match outcome {
            Outcome::Finished(run) => {
                println!("\nassistant: {}\n({})", run.output, run.usage);
                return Ok(());
            }
            Outcome::Paused(pause) => {
                println!(
                    "The run paused for review. The pause as stored (JSON, {} bytes):\n{}\n",
                    serde_json::to_string(&pause)?.len(),
                    serde_json::to_string_pretty(&pause.calls)?
                );
                let mut decisions = Vec::new();
                for review in pause.reviews() {
                    println!("{}", review.description);
                    let call = pause
                        .calls
                        .iter()
                        .find(|c| c.call.id == review.call_id)
                        .map(|c| c.arguments())
                        .unwrap_or_default();
                    decisions.push((review.call_id.clone(), decide(&call, offline)));
                }
                outcome = agent.resume(*pause, decisions, sender()).await?;
            }
        }
    }
}

/// Asks on the terminal; takes the scripted decision when there is no terminal to ask.
fn decide(arguments: &serde_json::Value, offline: bool) -> Decision {
    let scripted = || {
        if offline {
            println!("(standard input is not a terminal: approving, as scripted offline)");
            Decision::Approve
        } else {
            println!(
                "(standard input is not a terminal: rejecting; a person must approve real email)"
            );
            Decision::Reject {
                message: "Nobody was there to approve this email; do not send it.".to_string(),
            }
        }
    };
    if !std::io::stdin().is_terminal() {
        return scripted();
    }
    loop {
        let Some(answer) = prompt("Send it? [y]es / [n]o / [e]dit: ") else {
            return scripted();
        };
        match answer.to_lowercase().as_str() {
            "y" | "yes" => return Decision::Approve,
            "n" | "no" => {
                let reason = prompt("Why not (for the assistant)? ").unwrap_or_default();
                return Decision::Reject {
                    message: if reason.is_empty() {
                        "The user rejected this email.".to_string()
                    } else {
                        format!("The user rejected this email: {reason}")
                    },
                };
            }
            "e" | "edit" => {
                let mut edited = arguments.clone();
                for field in ["to", "subject", "body"] {
                    let current = edited[field].as_str().unwrap_or_default().to_string();
                    let Some(new) = prompt(&format!("{field} [{current}]: ")) else {
                        return scripted();
                    };
                    if !new.is_empty() {
                        edited[field] = json!(new);
                    }
                }
                return Decision::Edit { arguments: edited };
            }
            _ => println!("Please answer y, n or e."),
        }
    }
}

/// One line from standard input; `None` when it is closed.
fn prompt(question: &str) -> Option<String> {
    print!("{question}");
    std::io::stdout().flush().ok()?;
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim().to_string()),
    }
}

/// The offline stand-in for a model: writes the email, then confirms with what the tool (or
/// the reviewer) answered.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    match request.tool_results().last() {
        None => MockResponse::tool_calls(vec![ToolCall::new(
            "call_email",
            "send_email",
            json!({
                "to": "bob@example.com",
                "subject": "Meeting moved",
                "body": "Hi Bob, the meeting moves to 3pm tomorrow. Ada",
            })
            .to_string(),
        )]),
        Some((_, result)) => MockResponse::text(format!("Done: {result}")),
    }
}
