use agentry::prelude::*;

/// A grade.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Grade {
    /// A to F.
    #[output(range(min = 'A', max = 'F'))]
    letter: char,
}

/// Grades essays.
#[agent(tools(), output = Grade)]
struct Grader;

fn main() {
    let agent = Grader::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("grade this essay", ());
}
