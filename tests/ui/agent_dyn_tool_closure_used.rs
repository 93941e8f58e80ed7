use agentry::prelude::*;

/// You answer.
#[agent(tools())]
struct Helper;

async fn ask() {
    // A closure is not a tool: wrap it in `FnTool`.
    let agent = Helper::builder(agentry::testing::TestModel::new())
        .dyn_tool(|x: String| x.len())
        .build();
    let _ = agent.run("hi", ()).await;
}

fn main() {
    let _ = ask();
}
