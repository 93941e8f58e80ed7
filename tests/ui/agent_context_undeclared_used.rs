use agentry::prelude::*;

struct User {
    name: String,
}

/// Greet the user.
#[tool]
fn greet(user: Context<User>) -> String {
    format!("Hello {}", user.name)
}

/// A greeter: its tool reads a `User`, but no `context = User` is declared.
#[agent(tools(greet))]
struct Greeter;

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", ());
}
