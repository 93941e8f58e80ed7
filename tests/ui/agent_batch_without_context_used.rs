use agentry::prelude::*;

#[derive(Clone)]
struct User {
    name: String,
}

/// Greets the user.
#[tool]
fn greet(user: Context<User>) -> String {
    format!("hello {}", user.name)
}

/// You greet people.
#[agent(tools(greet), context = User)]
struct Greeter;

async fn greet_all(agent: &GreeterAgent) {
    // The agent has a context: each input is `(input, context)`.
    let results = agent.batch(["Hi", "Hello"], 2).await;
    println!("{}", results.len());
}

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new()).build();
    let _ = greet_all(&agent);
}
