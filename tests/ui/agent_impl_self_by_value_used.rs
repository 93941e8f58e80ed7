use agentry::prelude::*;

#[derive(Clone)]
struct Notes {
    prefix: String,
}

/// You keep notes.
#[agent(max_turns = 4)]
impl Notes {
    /// Format a note.
    ///
    /// # Arguments
    /// * `text` - The note.
    #[tool]
    fn add(self, text: String) -> String {
        format!("{}{text}", self.prefix)
    }
}

#[tokio::main]
async fn main() {
    let notes = Notes { prefix: "- ".into() };
    let agent = notes.into_builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Remember milk", ()).await.unwrap();
    println!("{}", run.output);
}
