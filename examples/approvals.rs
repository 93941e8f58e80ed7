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
//! The assistant also books a room, and the booking tool asks you which room from inside its
//! own work (`Interrupt`): the run pauses again with that typed question, and your answer
//! re-runs the tool from its start with the answer supplied.
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

/// Which room to book: the question `book_room` asks a person.
#[derive(Debug, Serialize, Deserialize)]
struct WhichRoom {
    time: String,
    free: Vec<String>,
}

/// Book a meeting room.
///
/// # Arguments
/// * `time` - When the meeting is.
#[tool]
async fn book_room(time: String, ask: Interrupt<WhichRoom, String>) -> String {
    // Runs twice (before the pause and when the answer comes back): it only reads.
    let free = vec!["Blue".to_string(), "Green".to_string()];
    let room = ask
        .ask(WhichRoom {
            time: time.clone(),
            free: free.clone(),
        })
        .await;
    if !free.contains(&room) {
        return format!("Room {room} is not free at {time}.");
    }
    // After the last ask: runs once, with the answer.
    format!("Room {room} booked for {time}.")
}

/// You are an assistant that writes and sends short emails for the user with `send_email`,
/// and books meeting rooms with `book_room`. After that, confirm in one sentence.
#[agent(
    tools(send_email, book_room),
    context = Sender,
    review(send_email(approve, edit, reject))
)]
struct Mailer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let backend = support::backend(mock_model).await?;
    let offline = backend.server.is_some();
    let agent = Mailer::builder(backend.model).max_turns(4).build();
    let sender = || Sender {
        address: "ada@example.com".to_string(),
    };
    let ask = "Email bob@example.com that the meeting moves to 3pm tomorrow, and book a room.";
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
                for question in pause.questions() {
                    let which: WhichRoom = question.question_as()?;
                    decisions.push(question.answer(choose_room(&which))?);
                }
                outcome = agent.resume(pause, decisions, sender()).await?;
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

/// Asks which room on the terminal; the first free one when there is no terminal.
fn choose_room(question: &WhichRoom) -> String {
    let first = question.free.first().cloned().unwrap_or_default();
    println!(
        "book_room asks: which room at {}? Free: {}",
        question.time,
        question.free.join(", ")
    );
    if !std::io::stdin().is_terminal() {
        println!("(standard input is not a terminal: taking {first})");
        return first;
    }
    match prompt(&format!("Room [{first}]: ")) {
        Some(room) if !room.is_empty() => room,
        _ => first,
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

/// The offline stand-in for a model: writes the email and books a room, then confirms with
/// what the tools (or the reviewer) answered.
fn mock_model(request: &RecordedRequest) -> MockResponse {
    let results = request.tool_results();
    if results.is_empty() {
        return MockResponse::tool_calls(vec![
            ToolCall::new(
                "call_email",
                "send_email",
                json!({
                    "to": "bob@example.com",
                    "subject": "Meeting moved",
                    "body": "Hi Bob, the meeting moves to 3pm tomorrow. Ada",
                })
                .to_string(),
            ),
            ToolCall::new(
                "call_room",
                "book_room",
                json!({ "time": "3pm tomorrow" }).to_string(),
            ),
        ]);
    }
    let said: Vec<String> = results.iter().map(|(_, r)| r.to_string()).collect();
    MockResponse::text(format!("Done: {}", said.join(" ")))
}
