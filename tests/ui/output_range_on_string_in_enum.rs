use agentry::prelude::*;

/// A verdict.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
enum Verdict {
    Accept {
        #[output(range(min = 1))]
        reason: String,
    },
    Reject,
}

/// Judges.
#[agent(tools(), output = Verdict)]
struct Judge;

fn main() {
    let agent = Judge::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("judge", ());
}
