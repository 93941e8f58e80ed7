use agentry::{CallTool, Context, tool};

struct User;
struct Tenant;

/// Who am I?
#[tool]
async fn whoami(user: Context<User>) -> String {
    let _ = user;
    String::new()
}

// What an agent declared with `context = Tenant` requires of each of its tools.
fn agent_with_tenant_context<T: CallTool<Tenant, ()>>(_tool: T) {}

fn main() {
    agent_with_tenant_context(whoami {});
}
