use agentry::{agent, tool};

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient.
#[tool]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// An assistant that emails.
#[agent(tools(send_email), review(send_email()))]
struct Assistant;

fn main() {}
