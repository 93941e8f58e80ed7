use agentry::agent::Input;
use agentry::multi::AgentInput;
use agentry::prelude::*;

/// What the planner gives the writer.
#[derive(Debug, Deserialize, JsonSchema)]
struct Brief {
    /// What the report is about.
    topic: String,
}

impl AgentInput for Brief {
    fn into_input(self) -> Input {
        Input::new(format!("Write about {}", self.topic))
    }
}

/// You write short reports.
#[agent(tools(), as_tool(description = "Writes a report.", input = "Brief"))]
struct Writer;

/// You plan reports.
#[agent(tools(Writer))]
struct Planner;

fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("A report on Rust", ());
}
