use agentry::prelude::*;

/// You handle refunds.
#[agent(tools())]
struct Refunds;

/// You triage requests.
#[agent(tools(), handoffs(Refunds))]
struct Triage;

#[tokio::main]
async fn main() {
    let agent = Triage::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("I want my money back", ()).await.unwrap();
    println!("{}", run.output);
}
