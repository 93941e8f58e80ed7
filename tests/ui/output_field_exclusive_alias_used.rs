use agentry::prelude::*;

/// A rating.
#[derive(Debug, Deserialize, JsonSchema, StructuredOutput)]
struct Rating {
    /// Stars.
    #[output(lt = 6)]
    stars: u32,
}

fn main() {
    let rating: Rating = serde_json::from_str(r#"{"stars": 3}"#).unwrap();
    rating.validate().unwrap();
    println!("{:?}", rating);
}
