use agentry::prelude::*;

/// A review.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Review {
    #[serde(skip)]
    cache: std::rc::Rc<String>,
    title: String,
}

fn main() {}
