use agentry::prelude::*;

/// Reports progress.
#[tool]
async fn progress(a: StreamWriter, b: StreamWriter) -> u32 {
    let _ = (a, b);
    1
}

/// Works.
#[agent(tools(progress))]
struct Worker;

fn main() {
    let agent = Worker::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("go", ());
}
