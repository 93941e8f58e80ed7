use agentry::{agent, tool};

/// Send an email.
///
/// # Arguments
/// * `to` - The recipient.
#[tool]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// Search the archive.
///
/// # Arguments
/// * `query` - What to look for.
#[tool]
fn search(query: String) -> String {
    query
}

/// An assistant that emails.
#[agent(tools(send_email, search), review(send_mail(approve, reject)))]
struct Assistant;

fn main() {
    let _ = Assistant::builder(agentry::testing::TestModel::new()).build();
}
