use agentry::prelude::*;

/// Read a file.
#[tool(idempotent = "yes")]
fn read_file(path: String) -> String {
    path
}

/// Reads.
#[agent(tools(read_file))]
struct Reader;

fn main() {
    let agent = Reader::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("read a.txt", ());
}
