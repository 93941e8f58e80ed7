use agentry::prelude::*;

struct User {
    name: String,
}
struct Tenant;

/// Greet the user.
#[tool]
fn greet(user: Context<User>) -> String {
    format!("Hello {}", user.name)
}

/// A greeter.
#[agent(tools(greet), context = Tenant)]
struct Greeter;

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("hi", Tenant);
}
