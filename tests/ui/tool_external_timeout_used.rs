use agentry::prelude::*;

/// Ask the user to pick a file.
///
/// # Arguments
/// * `filter` - An extension, e.g. "pdf".
#[tool(external, timeout = "30s")]
fn pick_file(filter: String) -> String;

/// You open files.
#[agent(tools(pick_file))]
struct Opener;

fn main() {
    let agent = Opener::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("open a pdf", ());
}
