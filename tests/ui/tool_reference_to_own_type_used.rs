use agentry::prelude::*;

struct User { name: String }

/// Greet the user.
///
/// # Arguments
/// * `greeting` - How to greet.
#[tool]
fn greet(greeting: String, user: &User) -> String {
    format!("{greeting}, {}!", user.name)
}

/// You greet people.
#[agent(tools(greet), context = User)]
struct Greeter;

#[tokio::main]
async fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Say hi", User { name: "Ada".into() }).await.unwrap();
    println!("{}", run.output);
}
