use agentry::persist::InMemoryCheckpointer;
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

async fn approve_all(agent: &MailerAgent) {
    let thread = agent.thread("user-7");
    let pause = thread.pending().await.unwrap().unwrap();
    // A decision is a `Decision` value, not a yes or no.
    let decisions: Vec<_> = pause.reviews().map(|r| (r.call_id.clone(), true)).collect();
    let _ = thread.resume(decisions, ()).await;
}

fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new())
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let _ = approve_all(&agent);
}
