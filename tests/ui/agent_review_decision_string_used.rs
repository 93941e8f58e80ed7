use agentry::prelude::*;

/// Send an email.
#[tool]
fn send_email(to: String) -> String {
    to
}

/// Mails.
#[agent(tools(send_email), review(send_email("approve")))]
struct Mailer;

fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("mail Ada", ());
}
