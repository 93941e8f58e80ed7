use agentry::prelude::*;

/// Send an email.
///
/// # Arguments
/// * `to` - The address.
#[tool]
fn send_email(to: String) -> String {
    to
}

/// Sends mail.
#[agent(tools(send_email), review(send_email(approve | edit)))]
struct Mailer;

fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("mail bob", ());
}
