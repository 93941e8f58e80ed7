use agentry::prelude::*;

/// Shout.
///
/// # Arguments
/// * `text` - What to shout.
#[tool("shout_loud")]
fn shout(text: String) -> String {
    text.to_uppercase()
}

/// You shout.
#[agent(tools(shout))]
struct Shouter;

#[tokio::main]
async fn main() {
    let agent = Shouter::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("hi", ()).await.unwrap();
    println!("{}", run.output);
}
