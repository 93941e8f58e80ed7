use std::rc::Rc;

use agentry::prelude::*;

struct Session {
    user: Rc<String>,
}

/// Who is logged in.
#[tool]
fn whoami(session: Context<Session>) -> String {
    session.user.to_string()
}

/// Waits, then says who is logged in (the context held across the await).
#[tool]
async fn greet_later(session: Context<Session>) -> String {
    tokio::task::yield_now().await;
    format!("Hello, {}", session.user)
}

/// You answer questions about the session.
#[agent(tools(whoami, greet_later), context = Session)]
struct Assistant;

fn main() {
    let agent = Assistant::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("Who am I?", Session { user: Rc::new("ada".into()) });
}
