use agentry::prelude::*;

/// A report.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Report {
    summary: String,
}

/// Count the rows.
#[tool(return_direct)]
fn count_rows() -> u32 {
    3
}

/// Reports.
#[agent(tools(count_rows), output = Report)]
struct Reporter;

fn main() {
    let agent = Reporter::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("report", ());
}
