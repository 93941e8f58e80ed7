use agentry::persist::InMemoryCheckpointer;
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

async fn chat(agent: &GreeterAgent) {
    let thread = agent.thread("user-7");
    let run = thread.run("Hi", 7u64).await.unwrap();
    println!("{}", run.output);
}

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new())
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let _ = chat(&agent);
}
