use agentry::prelude::*;
use agentry::testing::ScriptedModel;

#[derive(Clone, Debug)]
struct Progress {
    percent: u8,
}

/// Import a file.
///
/// # Arguments
/// * `path` - The file.
#[tool]
async fn import(path: String, progress: StreamWriter<Progress>) -> String {
    progress.write(Progress { percent: 100 });
    format!("imported {path}")
}

/// You import files.
#[agent(tools(import), events = Progress)]
struct Importer;

async fn go() {
    let agent = Importer::builder(ScriptedModel::new([])).build();
    let run = agent.stream("Import data.csv", ()).result().await.unwrap();
    println!("{}", run.output);
}

fn main() {
    let _ = go;
}
