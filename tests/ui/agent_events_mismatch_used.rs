use agentry::prelude::*;

#[derive(Serialize)]
struct Progress(u32);
#[derive(Serialize)]
struct Other;

/// Work.
#[tool]
async fn work(writer: StreamWriter<Progress>) -> String {
    writer.write(Progress(1));
    "done".into()
}

/// Works.
#[agent(tools(work), events = Other)]
struct Worker;

fn main() {
    let agent = Worker::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("work", ());
}
