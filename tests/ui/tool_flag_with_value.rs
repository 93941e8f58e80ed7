use agentry::prelude::*;

/// Save a note.
///
/// # Arguments
/// * `text` - The note.
#[tool(sequential = "yes")]
fn save(text: String) -> String {
    text
}

/// Notes.
#[agent(tools(save))]
struct Notes;

fn main() {
    let agent = Notes::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("save hi", ());
}
