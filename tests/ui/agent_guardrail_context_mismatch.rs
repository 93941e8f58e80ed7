use agentry::guard::{InputGuardrail, Verdict};
use agentry::{agent, tool};

struct User;
struct Tenant;

/// Written for agents whose context is a `Tenant`.
struct TenantQuota;

impl InputGuardrail<Tenant> for TenantQuota {
    type Reason = String;

    fn name(&self) -> &str {
        "tenant_quota"
    }

    async fn check(&self, _: &str, _: &Tenant) -> Verdict<String, String> {
        Verdict::Pass
    }
}

/// Say hello.
#[tool]
fn hello() -> String {
    "hello".to_string()
}

/// A greeter.
#[agent(tools(hello), context = User, guardrails(input(TenantQuota)))]
struct Greeter;

fn main() {
    let model = agentry::testing::ScriptedModel::new([]);
    let _agent = Greeter::builder(model).build();
}
