use agentry::prelude::*;

/// A post.
#[derive(Deserialize, JsonSchema, StructuredOutput)]
struct Post {
    /// The text.
    #[output(max_length = 280)]
    text: String,
}

/// You write posts.
#[agent(tools(), output = Post)]
struct Poster;

fn main() {
    let agent = Poster::builder(agentry::testing::TestModel::new()).build();
    let _ = agent.run("A post about Rust", ());
}
