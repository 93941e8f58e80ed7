use std::borrow::Cow;

use agentry::prelude::*;

/// Echo a word.
///
/// # Arguments
/// * `word` - The word.
#[tool]
fn echo(word: Cow<'_, str>) -> String {
    word.into_owned()
}

/// You echo.
#[agent(tools(echo))]
struct Echoer;

fn main() {
    let agent = Echoer::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("echo hi", ());
}
