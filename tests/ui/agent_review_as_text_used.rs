use agentry::prelude::*;

/// Send an email.
///
/// # Arguments
/// * `to` - The address.
#[tool]
fn send_email(to: String) -> String {
    format!("sent to {to}")
}

/// You write emails.
#[agent(tools(send_email), review = "send_email")]
struct Mailer;

#[tokio::main]
async fn main() {
    let agent = Mailer::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Write to ada@example.com", ()).await.unwrap();
    println!("{}", run.output);
}
