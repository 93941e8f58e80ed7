use agentry::output::{PartialOutput, StructuredEvent, StructuredExt};
use agentry::prelude::{Deserialize, JsonSchema, Message};
use agentry::testing::ScriptedModel;
use futures::StreamExt;

/// A plain output: `Deserialize + JsonSchema`, no `StructuredOutput` derive.
#[derive(Debug, Deserialize, JsonSchema)]
struct Plain {
    text: String,
}

fn show(partial: &PartialOutput<Vec<Plain>>) {
    let _ = partial.typed();
}

fn main() {
    let model = ScriptedModel::new([]);
    let _ = model.structured::<Vec<String>>().stream(vec![Message::user("hi")]).next();
    let _ = show;
    let _: Option<StructuredEvent<String>> = None;
}
