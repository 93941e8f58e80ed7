use agentry::prelude::*;

#[derive(Serialize, Clone)]
struct Progress {
    done: u32,
}

/// Do work.
#[tool]
async fn work(writer: StreamWriter<String>) -> String {
    writer.write("half".to_string());
    "done".into()
}

/// Works.
#[agent(tools(work), events = Progress)]
struct Worker;

fn main() {
    let agent = Worker::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("work", ());
}
