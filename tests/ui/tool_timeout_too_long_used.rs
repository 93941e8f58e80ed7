use agentry::prelude::*;

/// Wait.
#[tool(timeout = "99999999999999999h")]
async fn wait() -> String {
    "done".to_string()
}

/// You wait.
#[agent(tools(wait))]
struct Waiter;

#[tokio::main]
async fn main() {
    let agent = Waiter::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Wait", ()).await.unwrap();
    println!("{}", run.output);
}
