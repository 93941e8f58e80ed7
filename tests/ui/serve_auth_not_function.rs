use agentry::persist::InMemoryCheckpointer;
use agentry::prelude::*;
use agentry::serve::Server;

#[derive(Clone, Default)]
struct User {
    name: String,
}

/// Greet the user.
#[tool]
fn greet(user: Context<User>) -> String {
    format!("Hello, {}", user.name)
}

/// You greet.
#[agent(tools(greet), context = User)]
struct Greeter;

fn main() {
    let agent = Greeter::builder(agentry::testing::TestModel::new())
        .checkpointer(InMemoryCheckpointer::default())
        .build();
    let server = Server::new(agent, "secret-token").unwrap();
    let _ = server;
}
