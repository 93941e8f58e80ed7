use agentry::prelude::*;

/// Look a key up.
///
/// # Arguments
/// * `key` - The key.
/// * `section` - Where to look.
#[tool]
async fn lookup(key: String, section: String, key: u32) -> String {
    format!("{key} in {section}")
}

/// Looks things up.
#[agent(tools(lookup))]
struct Looker;

fn main() {
    let agent = Looker::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("find it", ());
}
