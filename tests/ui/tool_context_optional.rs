use agentry::prelude::*;

struct User {
    id: u64,
}

/// Who am I?
#[tool]
fn whoami(user: Option<Context<User>>) -> u64 {
    user.map_or(0, |u| u.id)
}

/// Knows the user.
#[agent(tools(whoami), context = User)]
struct Assistant;

fn main() {
    let agent = Assistant::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("who am I?", User { id: 1 });
}
