use agentry::prelude::*;

/// Transfer money.
///
/// # Arguments
/// * `cents` - How much.
#[tool]
fn transfer(cents: u64) -> String {
    format!("sent {cents}")
}

/// You move money.
#[agent(tools(transfer), review(transfer(approve, reject, approve)))]
struct Bank;

fn main() {
    let agent = Bank::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("send 5 euros", ());
}
