use agentry::middleware::{Flow, Hook, Middleware, MiddlewareError, RunCx};
use agentry::{Message, agent, tool};

struct User;
struct Tenant {
    name: String,
}

/// Logs the tenant's name before the run.
struct AuditTenant;

impl Middleware<Tenant, ()> for AuditTenant {
    fn before_agent<'a>(
        &'a self,
        _messages: &'a mut Vec<Message>,
        cx: &'a RunCx<'a, Tenant, ()>,
    ) -> Hook<'a, Result<Flow, MiddlewareError>> {
        println!("tenant {}", cx.context().name);
        Hook::ready(Ok(Flow::Continue))
    }
}

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_string()
}

/// A greeter.
#[agent(tools(hello), context = User)]
struct Greeter;

fn main() {
    let model = agentry::testing::TestModel::new();
    let _agent = Greeter::builder(model).middleware(AuditTenant).build();
}
