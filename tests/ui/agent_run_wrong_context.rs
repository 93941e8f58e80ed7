use agentry::prelude::*;

struct User {
    id: u64,
}

/// Who am I?
#[tool]
fn whoami(user: Context<User>) -> u64 {
    user.id
}

/// Knows the user.
#[agent(tools(whoami), context = User)]
struct Assistant;

async fn ask() -> Result<String, Box<dyn std::error::Error>> {
    let agent = Assistant::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("who am I?", 7u64).await?;
    Ok(run.output)
}

fn main() {
    let _ = ask();
}
