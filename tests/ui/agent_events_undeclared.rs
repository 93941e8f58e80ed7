use agentry::{StreamWriter, agent, tool};
use serde::Serialize;

#[derive(Serialize)]
struct Progress {
    done: u32,
}

/// Import rows, reporting progress.
#[tool]
fn import(progress: StreamWriter<Progress>) -> String {
    progress.write(Progress { done: 1 });
    "imported".to_string()
}

/// An importer that does not say what its tools write.
#[agent(tools(import))]
struct Importer;

fn main() {
    let model = agentry::testing::ScriptedModel::new([]);
    let agent = Importer::builder(model).build();
    let _stream = agent.stream("Import", ());
}
