use agentry::prelude::*;

/// A title.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Title {
    /// The text.
    #[output(length(1, 10))]
    text: String,
}

fn main() {
    let title: Title = serde_json::from_str(r#"{"text": "Dune"}"#).unwrap();
    title.validate().unwrap();
    println!("{title:?}");
}
