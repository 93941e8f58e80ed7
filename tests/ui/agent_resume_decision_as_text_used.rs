use agentry::agent::Outcome;
use agentry::prelude::*;

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient's address.
#[tool]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// You send emails.
#[agent(tools(send_email), review(send_email(approve, reject)))]
struct Mailer;

async fn review(agent: &MailerAgent) {
    if let Outcome::Paused(pause) = agent.run_or_pause("Tell Bob: 3pm", ()).await.unwrap() {
        let call_id = pause.reviews().next().unwrap().call_id.clone();
        // A decision is a `Decision` value, not its name.
        let outcome = agent.resume(pause, [(call_id, "approve")], ()).await.unwrap();
        let _ = outcome.finished();
    }
}

fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new()).build();
    let _ = review(&agent);
}
