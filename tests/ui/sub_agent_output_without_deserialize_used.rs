use agentry::prelude::*;

/// A summary.
#[derive(Serialize, JsonSchema, StructuredOutput)]
struct Summary {
    /// The text.
    text: String,
}

/// Summarizes.
#[agent(tools(), output = Summary, as_tool(name = "summarize", description = "Summarize a text."))]
struct Summarizer;

/// Leads.
#[agent(tools(Summarizer))]
struct Lead;

fn main() {
    let agent = Lead::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("summarize the minutes", ());
}
