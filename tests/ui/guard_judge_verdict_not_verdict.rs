use agentry::guard::builtin::LlmJudge;
use agentry::prelude::*;

/// What the judge says.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Opinion {
    /// Whether it is fine.
    fine: bool,
}

/// You answer.
#[agent(tools())]
struct Answerer;

#[tokio::main]
async fn main() {
    let judge = LlmJudge::<Opinion>::new(agentry::testing::TestModel::new(), "no insults");
    let agent = Answerer::builder(agentry::testing::TestModel::new())
        .input_guardrail(judge)
        .build();
    let run = agent.run("Hi", ()).await.unwrap();
    println!("{}", run.output);
}
