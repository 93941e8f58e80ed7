use std::sync::Mutex;

use agentry::prelude::*;

/// Notes, without `Default`.
struct Notes {
    lines: Mutex<Vec<String>>,
}

/// You keep notes.
#[agent]
impl Notes {
    /// Add a note.
    ///
    /// # Arguments
    /// * `text` - The note.
    #[tool]
    fn add(&self, text: String) -> usize {
        let mut lines = self.lines.lock().unwrap();
        lines.push(text);
        lines.len()
    }
}

#[tokio::main]
async fn main() {
    let agent = Notes::builder(agentry::testing::TestModel::new()).build();
    let run = agent.run("note milk", ()).await.unwrap();
    println!("{}", run.output);
}
