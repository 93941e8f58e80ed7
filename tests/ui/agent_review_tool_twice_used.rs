use agentry::prelude::*;

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient's address.
/// * `body` - The text.
#[tool]
fn send_email(to: String, body: String) -> String {
    format!("sent to {to}: {body}")
}

/// You send emails.
#[agent(tools(send_email), review(send_email(approve), send_email(reject)))]
struct Mailer;

fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run_or_pause("Tell Bob: 3pm", ());
}
