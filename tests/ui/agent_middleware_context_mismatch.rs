use agentry::middleware::Middleware;
use agentry::{agent, tool};

struct User;
struct Tenant;

/// Written for agents whose context is a `Tenant`.
struct AuditTenant;

impl Middleware<Tenant, ()> for AuditTenant {}

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_string()
}

/// A greeter.
#[agent(tools(hello), context = User, middleware(AuditTenant))]
struct Greeter;

fn main() {}
