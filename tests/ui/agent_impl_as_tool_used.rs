use agentry::prelude::*;

#[derive(Clone, Default)]
struct Notes {
    prefix: String,
}

/// You format notes.
#[agent(as_tool(description = "Formats notes."))]
impl Notes {
    /// Format a note.
    ///
    /// # Arguments
    /// * `text` - The note.
    #[tool]
    fn format_note(&self, text: String) -> String {
        format!("{}{text}", self.prefix)
    }
}

/// You plan: ask the notes agent.
#[agent(tools(Notes))]
struct Planner;

#[tokio::main]
async fn main() {
    let agent = Planner::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("Note: buy milk", ()).await.unwrap();
    println!("{}", run.output);
}
