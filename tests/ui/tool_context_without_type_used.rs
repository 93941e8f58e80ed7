use agentry::prelude::*;

struct User {
    name: String,
}

/// Greet the user.
#[tool]
fn greet(user: Context) -> String {
    format!("hello {}", user.name)
}

/// Greets.
#[agent(tools(greet), context = User)]
struct Greeter;

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", User { name: "Ada".into() });
}
