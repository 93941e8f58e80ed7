use agentry::prelude::*;

#[derive(Clone, Default)]
struct Notes;

/// You keep notes.
#[agent]
impl (Notes, Notes) {
    /// Count the notes.
    #[tool]
    fn count(&self) -> usize {
        2
    }
}

fn main() {}
