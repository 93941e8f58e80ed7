use agentry::prelude::*;

struct Db<T> {
    rows: Vec<T>,
}

/// Answers from the database.
#[agent]
impl<T: Send + Sync + 'static> Db<T> {
    /// Count the rows.
    #[tool]
    fn count(&self) -> usize {
        self.rows.len()
    }
}

fn main() {}
