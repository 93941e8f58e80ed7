use agentry::prelude::*;

#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Report {
    summary: String,
}

/// Reports.
#[agent(tools(), output = "Report")]
struct Reporter;

fn main() {
    let agent = Reporter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("report", ());
}
